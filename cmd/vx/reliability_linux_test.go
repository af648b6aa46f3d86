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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testtool"
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

// TestReliabilityJobControl proves that job control works for a single
// task run from an interactive shell on a terminal: Ctrl-Z stops the task
// and vx and gives the terminal back to the shell; bg lets the task run on
// in the background; fg gives it the terminal again; the task then ends
// normally and vx exits 0, leaving nothing behind.
func TestReliabilityJobControl(t *testing.T) {
	watchInterrupts(t)
	bash := testtool.Need(t, "apt-get install bash: the test needs an interactive shell with job control", "bash")
	// The task waits in one long sleep, which the test ends, and Ctrl-Z
	// comes only once that sleep runs: dash starts each program with vfork,
	// and a Ctrl-Z that lands between the vfork and the exec stops the
	// child before it runs the program while dash waits for that exec,
	// unstoppable (state D): the job never stops, as with bash's own job
	// control. A task that polled (sleep in a loop) hit that window under
	// load: in two of five CI runs at 50 polls a second, in two of four
	// loaded runs at one a second (the first sleep starts right after
	// "ready"). Writing "ready" is a builtin, so no other fork is near.
	root := sleepWorkspace(t, map[string]string{
		"p": `echo $$ > pid; : > ready; sleep 317; echo finished`,
	})
	dir := filepath.Join(root, "packages", "p")
	master, slave := openPty(t)
	defer master.Close()
	var screen syncBuffer
	go io.Copy(&screen, master)
	sh := exec.Command(bash, "--norc", "--noprofile", "-i")
	sh.Dir, sh.Env = dir, append(testEnv(), "TERM=dumb", "PS1=$ ")
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	t.Cleanup(func() {
		syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		sh.Process.Kill()
		sh.Wait()
	})
	fg := func() int {
		g, _ := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPGRP)
		return g
	}
	state := func(pid int) byte {
		st, _, _ := procStat(pid)
		return st
	}
	typeLine := func(s string) {
		if _, err := master.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	if !waitUntil(30*time.Second, func() bool { return strings.Contains(screen.String(), "$ ") }) {
		t.Fatalf("no prompt from bash; terminal:\n%s", screen.String())
	}
	typeLine("vx run work\n")
	waitFiles(t, 15*time.Second, func() bool { return false }, filepath.Join(dir, "ready"))
	task := readPids(t, filepath.Join(dir, "pid"))[0]
	if !waitUntil(15*time.Second, func() bool { return fg() == task }) {
		t.Fatalf("the task's group %d never got the terminal (foreground group %d)", task, fg())
	}
	var vx int
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", task)); err == nil {
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		vx, _ = strconv.Atoi(f[1]) // the task shell's parent
	}

	sleepPid := func() int { return procByCmdline("sleep\x00317\x00") }
	if !waitUntil(15*time.Second, func() bool { return sleepPid() > 0 }) {
		t.Fatalf("the task's sleep never started")
	}
	typeLine("\x1a") // Ctrl-Z
	if !waitUntil(30*time.Second, func() bool { return fg() == sh.Process.Pid }) {
		t.Fatalf("after Ctrl-Z the terminal stayed with group %d, not the shell's %d; task state %c, vx state %c; terminal:\n%s",
			fg(), sh.Process.Pid, state(task), state(vx), screen.String())
	}
	if !waitUntil(15*time.Second, func() bool { return state(task) == 'T' && state(vx) == 'T' }) {
		t.Errorf("after Ctrl-Z: task state %c, vx state %c; want both stopped (T)", state(task), state(vx))
	}

	typeLine("bg\n")
	if !waitUntil(30*time.Second, func() bool { return state(task) != 'T' && state(vx) != 'T' }) {
		t.Errorf("after bg: task state %c, vx state %c; want both running; terminal:\n%s", state(task), state(vx), screen.String())
	}
	if fg() != sh.Process.Pid {
		t.Errorf("after bg the terminal belongs to group %d, want the shell's %d", fg(), sh.Process.Pid)
	}

	typeLine("fg\n")
	if !waitUntil(30*time.Second, func() bool { return fg() == task }) {
		t.Fatalf("after fg the terminal belongs to group %d, want the task's %d; terminal:\n%s", fg(), task, screen.String())
	}
	if err := syscall.Kill(sleepPid(), syscall.SIGTERM); err != nil { // the task goes on: echo finished
		t.Fatal(err)
	}
	if !waitUntil(15*time.Second, func() bool { return fg() == sh.Process.Pid }) {
		t.Fatalf("the shell did not get the terminal back after the task ended; terminal:\n%s", screen.String())
	}
	typeLine("echo rc=$?\n") // fg's status is the job's
	if !waitUntil(30*time.Second, func() bool { return strings.Contains(screen.String(), "rc=0") }) {
		t.Errorf("want the task's output and rc=0; terminal:\n%s", screen.String())
	}
	if alive := leftovers(root, 2*time.Second); len(alive) > 0 {
		t.Errorf("%d task processes outlived vx:\n  %s", len(alive), strings.Join(alive, "\n  "))
	}
}

// TestReliabilityTerminalStop proves that in a run of several tasks on a
// terminal, a task that tries to read the terminal (which it does not own:
// vx keeps the foreground) is not left stopped forever: vx says so in one
// line and ends it, and the run ends.
func TestReliabilityTerminalStop(t *testing.T) {
	watchInterrupts(t)
	root := sleepWorkspace(t, map[string]string{
		"reader": `sleep 300 & read answer < /dev/tty; echo "got $answer"`,
		"other":  `echo other done`,
	})
	master, slave := openPty(t)
	defer master.Close()
	var screen syncBuffer
	go io.Copy(&screen, master)
	cmd := exec.Command(vxBinary(t), "run", "work", "--grace", "500ms")
	cmd.Dir, cmd.Env = root, append(testEnv(), "TERM=dumb")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
		}
	})
	res, ok := waitDeadline(cmd, 15*time.Second)
	if !ok {
		t.Fatalf("vx did not end within 15s with a task stopped by SIGTTIN; terminal:\n%s", screen.String())
	}
	time.Sleep(50 * time.Millisecond) // let the copy drain the terminal
	out := screen.String()
	want := "reader#work stopped: it tried to read the terminal; run it alone to use the terminal"
	if res.code != 1 || strings.Count(out, want) != 1 || !strings.Contains(out, "other done") {
		t.Errorf("exit code %d; want 1, the line %q once and the other task's output; terminal:\n%s", res.code, want, out)
	}
	if alive := leftovers(root, 2*time.Second); len(alive) > 0 {
		t.Errorf("%d task processes outlived vx:\n  %s", len(alive), strings.Join(alive, "\n  "))
	}
}
