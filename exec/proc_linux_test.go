//go:build linux

package exec

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	// fgrun plays vx in single-task mode on a terminal: it runs args[0] as
	// a task with Foreground, then reports how the task ended and who
	// owns the terminal afterwards.
	registerHelper("fgrun", func(args []string) int {
		env := []string{"PATH=" + os.Getenv("PATH"), helperEnv + "=fgreport"}
		p, err := Start(context.Background(), Spec{Script: args[0], Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Foreground: true})
		if err != nil {
			fmt.Println("start error:", err)
			return 1
		}
		res, err := p.Wait()
		fg, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
		fmt.Printf("after: exit=%d signal=%s err=%v restored=%t\n", res.ExitCode, res.Signal, err, fg == unix.Getpgrp())
		return 0
	})
	// fgreport is the task's program: it says whether its process group
	// owns the terminal, then waits for Ctrl-C.
	registerHelper("fgreport", func([]string) int {
		fg, _ := unix.IoctlGetInt(0, unix.TIOCGPGRP)
		fmt.Printf("task: foreground=%t\n", fg == unix.Getpgrp())
		time.Sleep(300 * time.Second)
		return 0
	})
}

// openPTY returns the master and the slave of a new pseudo-terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	rc, err := m.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var ioErr error
	rc.Control(func(fd uintptr) {
		if ioErr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ioErr == nil {
			n, ioErr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		}
	})
	if ioErr != nil {
		t.Fatalf("unlock pseudo-terminal: %v", ioErr)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestForegroundTerminal runs a "vx" (helper fgrun) as the session leader
// of a pseudo-terminal. With Foreground, its task's group owns the terminal,
// so Ctrl-C typed there kills the task while "vx" survives it, and the
// terminal comes back to "vx" afterwards (without SIGTTOU stopping it).
func TestForegroundTerminal(t *testing.T) {
	t.Parallel()
	master, slave := openPTY(t)
	vx := osexec.Command(mustExecutable(t), testBinary(t))
	vx.Env = []string{"PATH=" + os.Getenv("PATH"), helperEnv + "=fgrun"}
	vx.Stdin, vx.Stdout, vx.Stderr = slave, slave, slave
	vx.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := vx.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { vx.Process.Kill() })
	slave.Close()
	out := newSyncBuffer()
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	out.waitFor(t, "task: foreground=")
	if !strings.Contains(out.String(), "task: foreground=true") {
		t.Fatalf("the task's group does not own the terminal:\n%s", out)
	}
	master.Write([]byte{3}) // Ctrl-C
	got := out.waitFor(t, "after:")
	done := make(chan error, 1)
	go func() { done <- vx.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("vx helper: %v (killed by the terminal's SIGINT?); output:\n%s", err, got)
		}
	case <-time.After(deadline):
		t.Fatalf("vx helper did not exit; output:\n%s", out)
	}
	if want := "after: exit=130 signal=SIGINT err=<nil> restored=true"; !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// TestForegroundIgnoredWithoutOwnTerminal: a terminal that is not vx's
// controlling terminal (or whose foreground group is not vx's) is left
// alone; the task runs as if Foreground were false.
func TestForegroundIgnoredWithoutOwnTerminal(t *testing.T) {
	t.Parallel()
	_, slave := openPTY(t)
	if fd, ok := foregroundTTY(slave); ok {
		t.Fatalf("foregroundTTY(pty slave not owned by vx) = %d, true; want false", fd)
	}
	p := startT(t, Spec{Script: "exit 5", Env: testEnv(t), Stdin: slave, Stdout: slave, Foreground: true})
	if p.os.fg {
		t.Errorf("Start took a terminal vx does not own")
	}
	if res, err := waitWithin(t, p); err != nil || res.ExitCode != 5 {
		t.Errorf("Wait() = %+v, %v; want exit 5", res, err)
	}
}
