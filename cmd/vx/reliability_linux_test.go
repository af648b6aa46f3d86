package main

// Ctrl-C in a real terminal: vx runs on the slave side of a pseudo-terminal
// as a session leader, and the test types ^C on the master side, so the
// kernel's line discipline sends SIGINT to the terminal's foreground
// process group exactly as it would for a user. Linux-only (the pty ioctls).

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// openPty returns the master and slave ends of a new pseudo-terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here (/dev/ptmx: %v)", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("cannot unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("cannot name the pseudo-terminal: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("cannot open the pseudo-terminal's slave: %v", err)
	}
	return master, slave
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestReliabilityCtrlC proves that Ctrl-C typed in a terminal reaches each
// task once: with one task, vx gives the task's process group the
// terminal's foreground, so the kernel signals the task and not vx; with
// several, vx keeps the foreground, receives the SIGINT and passes it on
// once to every task's tree. No process of the trees survives vx.
func TestReliabilityCtrlC(t *testing.T) {
	watchInterrupts(t)
	tests := []struct {
		name     string
		project  string // one task in this project; "" = every task, from the root
		counted  []string
		wantCode int // -1: the task's own code, not checked
	}{
		{"one task has the foreground", "polite", []string{"polite"}, -1},
		{"several tasks", "", []string{"polite", "stubborn"}, 130},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := orphanWorkspace(t, orphanScripts)
			projects := []string{"fg", "polite", "shell", "stubborn"}
			dir := root
			if tc.project != "" {
				projects = []string{tc.project}
				dir = filepath.Join(root, "packages", tc.project)
			}
			master, slave := openPty(t)
			defer master.Close()
			var screen syncBuffer
			go io.Copy(&screen, master)

			cmd := exec.Command(vxBinary(t), "run", "work", "--grace", "500ms", "--concurrency", "4")
			cmd.Dir, cmd.Env = dir, append(testEnv(), "TERM=dumb")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			slave.Close()
			var tr tree
			t.Cleanup(tr.kill)
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
					cmd.Wait()
				}
			})
			var ready []string
			for _, p := range projects {
				ready = append(ready, filepath.Join(root, "packages", p, "ready"))
			}
			waitFiles(t, 15*time.Second, exitedFunc(cmd), ready...)
			for _, p := range projects {
				tr.add(readPids(t, filepath.Join(root, "packages", p, "pids")))
			}
			time.Sleep(50 * time.Millisecond)
			for _, g := range tr.groups {
				tr.add(groupMembers(g))
			}

			// Who has the terminal: the task's group with one task, vx's
			// with several (TIOCGPGRP on the master reports the slave's).
			fg, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPGRP)
			if err != nil {
				t.Fatal(err)
			}
			wantFg := cmd.Process.Pid
			if tc.project != "" && len(tr.groups) > 0 {
				wantFg = tr.groups[0]
			}
			if fg != wantFg {
				t.Errorf("the terminal's foreground process group is %d, want %d (vx is %d, the task groups %v)", fg, wantFg, cmd.Process.Pid, tr.groups)
			}

			if _, err := master.Write([]byte{0x03}); err != nil { // ^C
				t.Fatal(err)
			}
			res, ok := waitDeadline(cmd, 15*time.Second)
			if !ok {
				t.Fatalf("vx did not exit within 15s of ^C; terminal:\n%s", screen.String())
			}
			t.Logf("vx exited %d after ^C", res.code)
			if tc.wantCode >= 0 && res.code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; terminal:\n%s", res.code, tc.wantCode, screen.String())
			}
			if alive := tr.survivors(2 * time.Second); len(alive) > 0 {
				t.Errorf("%d task processes outlived vx by 2s:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
			want, got := map[string]string{}, map[string]string{}
			for _, p := range tc.counted {
				want[p] = "INT=1 TERM=0\n"
				b, _ := os.ReadFile(filepath.Join(root, "packages", p, "signals"))
				got[p] = string(b)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("signals received by the node processes after one ^C mismatch (-want +got):\n%s\nterminal:\n%s", diff, screen.String())
			}
		})
	}
}
