//go:build unix

package exec

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// procOS is the Unix state of a Process: the process group and the
// terminal it was given.
type procOS struct {
	pgid int
	tty  int            // descriptor of the terminal given to the task, if fg
	fg   bool           // the task's group was made the terminal's foreground group
	cont chan os.Signal // SIGCONT to vx, while a foreground task runs (Linux)
	// polling: the task was continued in the background (bg); vx watches
	// for the terminal to come back (fg). Guarded by Process.mu.
	polling bool
}

// Hooks the Linux file fills in: extra SysProcAttr settings, better
// liveness tests than kill(-pgid, 0) and kill(pid, 0), which also count
// zombies, and the search for the processes that hold a pipe.
var (
	procConfigure  = func(*syscall.SysProcAttr) {}
	procGroupAlive = func(pgid int) bool { return true }
	procAlive      = func(pid int) bool { return true }
	pipeHolders    = func([]*os.File) []int { return nil }
	procWatch      = func(*Process) {} // job control, see jobctl_linux.go
	procUnwatch    = func(*Process) {}
)

// endStrays ends processes that left a task's tree: SIGTERM to each (to
// its whole group when it leads one other than vx's), SIGKILL to those
// still alive after grace.
func endStrays(pids []int, grace time.Duration) {
	signal := func(s syscall.Signal) {
		for _, pid := range pids {
			if pgid, err := unix.Getpgid(pid); err == nil && pgid == pid && pgid != unix.Getpgrp() {
				unix.Kill(-pgid, s)
			}
			unix.Kill(pid, s)
		}
	}
	gone := func() bool {
		for _, pid := range pids {
			if unix.Kill(pid, 0) == nil && procAlive(pid) {
				return false
			}
		}
		return true
	}
	signal(unix.SIGTERM)
	deadline := time.Now().Add(grace)
	for pause := time.Millisecond; !gone(); pause = min(2*pause, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			signal(unix.SIGKILL)
			return
		}
		time.Sleep(pause)
	}
}

func (p *Process) startOS(spec Spec) error {
	attr := &syscall.SysProcAttr{Setpgid: true}
	procConfigure(attr)
	if spec.Foreground {
		if fd, ok := foregroundTTY(spec.Stdin, spec.Stdout, spec.Stderr); ok {
			attr.Foreground, attr.Ctty = true, fd
			p.os.tty, p.os.fg = fd, true
		}
	}
	p.cmd.SysProcAttr = attr
	if err := p.cmd.Start(); err != nil {
		return err
	}
	p.os.pgid = p.cmd.Process.Pid
	watchGroup('+', p.os.pgid)
	procWatch(p)
	return nil
}

// foregroundTTY returns the descriptor of the first standard stream that is
// a terminal whose foreground process group is vx's own.
func foregroundTTY(streams ...any) (int, bool) {
	for _, s := range streams {
		f, ok := s.(*os.File)
		if !ok || f == nil {
			continue
		}
		rc, err := f.SyscallConn()
		if err != nil {
			continue
		}
		fd := -1
		rc.Control(func(d uintptr) { fd = int(d) })
		if fd < 0 {
			continue
		}
		pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		if err != nil {
			continue // not a terminal
		}
		return fd, pgrp == unix.Getpgrp()
	}
	return 0, false
}

// leaderExited gives the terminal back to vx's process group. vx is in the
// background at that moment, so SIGTTOU is ignored for the call.
func (p *Process) leaderExited() {
	procUnwatch(p)
	if !p.os.fg {
		return
	}
	ignored := signal.Ignored(unix.SIGTTOU)
	signal.Ignore(unix.SIGTTOU)
	unix.IoctlSetPointerInt(p.os.tty, unix.TIOCSPGRP, unix.Getpgrp())
	if !ignored {
		signal.Reset(unix.SIGTTOU)
	}
}

func (p *Process) signalOS(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return fmt.Errorf("exec: signal %v: not a Unix signal", sig)
	}
	return p.kill(s)
}

func (p *Process) killOS() error { return p.kill(unix.SIGKILL) }

func (p *Process) kill(s syscall.Signal) error {
	err := unix.Kill(-p.os.pgid, s)
	if errors.Is(err, unix.ESRCH) {
		return os.ErrProcessDone
	}
	if err != nil {
		return fmt.Errorf("exec: signal process group %d: %w", p.os.pgid, err)
	}
	return nil
}

// treeAlive reports whether a live process remains in the task's group.
// A group whose members may not be signalled (EPERM) counts as gone:
// nothing vx could do would end it.
func (p *Process) treeAlive() bool {
	if unix.Kill(-p.os.pgid, 0) != nil {
		return false
	}
	return procGroupAlive(p.os.pgid)
}

func (p *Process) terminateTree() { unix.Kill(-p.os.pgid, unix.SIGTERM) }
func (p *Process) killTree()      { unix.Kill(-p.os.pgid, unix.SIGKILL) }
func (p *Process) release()       { watchGroup('-', p.os.pgid) }

func exitResult(state *os.ProcessState, killed bool) Result {
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok {
		return Result{ExitCode: state.ExitCode()}
	}
	if ws.Signaled() {
		s := ws.Signal()
		name := unix.SignalName(s)
		if name == "" {
			name = "signal " + strconv.Itoa(int(s))
		}
		return Result{ExitCode: 128 + int(s), Signal: name}
	}
	return Result{ExitCode: ws.ExitStatus()}
}

// IsBrokenPipe reports whether err is a write to a pipe or socket whose
// reader is gone (EPIPE).
func IsBrokenPipe(err error) bool { return errors.Is(err, unix.EPIPE) }
