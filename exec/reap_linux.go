//go:build linux

package exec

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes vx the child subreaper of its descendants
// (PR_SET_CHILD_SUBREAPER): a process whose parent dies is re-parented to
// vx instead of to init, so that what escapes a task's process group
// (setsid, a double fork, the tasks of an inner vx that was killed) stays
// within reach of [EndOrphans]. Linux only; elsewhere it returns
// [errors.ErrUnsupported].
func BecomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// EndOrphans ends and reaps every child vx still has: once no task runs,
// those are processes re-parented to vx (see [BecomeSubreaper]). Each gets
// SIGTERM (its whole group when it leads one), SIGKILL after grace if it is
// still alive, and is reaped; their own children, re-parented to vx in
// turn, are ended the same way. The watchdog is left alone: after
// [StopWatchdog] it ends by itself. It returns how many processes it ended.
// Call it only when nothing else of vx waits for a child.
func EndOrphans(grace time.Duration) int {
	ended := 0
	for round := 0; round < 32; round++ {
		if !reapChildren() {
			return ended // no child at all: the usual end of a run
		}
		kids, dying := liveChildren()
		if len(kids) == 0 && dying == 0 {
			return ended
		}
		if len(kids) == 0 {
			// A child that just died is reaped in the next round; its
			// own children, re-parented to vx as it died, are found then.
			time.Sleep(time.Millisecond)
			continue
		}
		ended += len(kids)
		endStrays(kids, grace)
	}
	reapChildren()
	return ended
}

// reapChildren reaps every child of vx that has exited, and reports
// whether vx may have children left (alive, or not yet reapable).
func reapChildren() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case err == unix.EINTR:
		case err == unix.ECHILD:
			return false
		case err != nil || pid == 0:
			return true
		}
	}
}

// liveChildren lists the children of vx that are alive, from
// /proc/self/task/*/children, or by scanning /proc where the kernel lacks
// that file, and counts the others it saw (zombies not reaped yet). The
// watchdog is left out of both.
func liveChildren() (live []int, dying int) {
	wd := watchdogPID()
	add := func(pid int, alive bool) {
		switch {
		case pid == wd:
		case alive:
			live = append(live, pid)
		default:
			dying++
		}
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	found := false
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		found = true
		for _, w := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(w)); err == nil {
				add(pid, linuxAlive(pid))
			}
		}
	}
	if found {
		return live, dying
	}
	self := []byte(strconv.Itoa(os.Getpid()))
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		fields := bytes.Fields(b[i+1:])
		if len(fields) > 1 && bytes.Equal(fields[1], self) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				add(pid, fields[0][0] != 'Z' && fields[0][0] != 'X')
			}
		}
	}
	return live, dying
}
