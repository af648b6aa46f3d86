//go:build linux

package exec

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Job control. A task's shell is vx's child, so the kernel tells vx when
// it stops (SIGCHLD with CLD_STOPPED, read with waitid(WSTOPPED|WNOHANG),
// which leaves the exit to os/exec's Wait):
//
//   - A foreground task (Spec.Foreground) stopped by Ctrl-Z, or by SIGTTIN
//     or SIGTTOU, means the user wants the terminal back: vx takes the
//     terminal back and stops its own process group with the same signal,
//     so the user's shell sees the job stop and shows its prompt. When the
//     shell continues vx (fg: with the terminal, bg: without), vx gives the
//     terminal to the task again if it has it, and continues the task.
//   - Any other task stopped by SIGTTIN or SIGTTOU tried to use a terminal
//     it does not own, and would wait forever: its tree is ended, and
//     Result.TerminalStop says why.
//
// Only a stop of the task's group leader (the shell, or the program it
// exec'd) is seen: vx is not the parent of the shell's children.

var stops struct {
	sync.Mutex
	procs map[*Process]bool
	once  sync.Once
}

func init() {
	procWatch = watchStops
	procUnwatch = func(p *Process) {
		stops.Lock()
		delete(stops.procs, p)
		stops.Unlock()
		if p.os.cont != nil {
			signal.Stop(p.os.cont)
			close(p.os.cont)
		}
	}
}

func watchStops(p *Process) {
	stops.once.Do(func() {
		stops.procs = map[*Process]bool{}
		c := make(chan os.Signal, 1)
		signal.Notify(c, unix.SIGCHLD)
		go func() {
			for range c {
				checkStops()
			}
		}()
	})
	if p.os.fg {
		// vx continued (fg, bg): give the task the terminal again if vx
		// has it, and continue the task.
		p.os.cont = make(chan os.Signal, 1)
		signal.Notify(p.os.cont, unix.SIGCONT)
		go func(c chan os.Signal) {
			for range c {
				p.resume()
			}
		}(p.os.cont)
	}
	stops.Lock()
	stops.procs[p] = true
	stops.Unlock()
	checkStops() // it may have stopped before it was registered
}

func checkStops() {
	stops.Lock()
	procs := make([]*Process, 0, len(stops.procs))
	for p := range stops.procs {
		procs = append(procs, p)
	}
	stops.Unlock()
	for _, p := range procs {
		if sig, ok := stoppedBy(p.os.pgid); ok {
			p.stopped(sig)
		}
	}
}

// stoppedBy reports whether the child pid has stopped since it was last
// asked, and by which signal.
func stoppedBy(pid int) (syscall.Signal, bool) {
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WNOHANG, nil); err != nil {
		return 0, false
	}
	// For SIGCHLD the union after the three ints holds si_pid, si_uid and
	// si_status; it starts on a pointer boundary.
	raw := (*[128]byte)(unsafe.Pointer(&info))
	off := 12
	if unsafe.Sizeof(uintptr(0)) == 8 {
		off = 16
	}
	gotPid := *(*int32)(unsafe.Pointer(&raw[off]))
	status := *(*int32)(unsafe.Pointer(&raw[off+8]))
	if gotPid == 0 || info.Code != 5 { // CLD_STOPPED
		return 0, false
	}
	return syscall.Signal(status), true
}

func (p *Process) stopped(sig syscall.Signal) {
	if p.os.fg {
		p.suspend(sig)
		return
	}
	if sig != unix.SIGTTIN && sig != unix.SIGTTOU {
		return // stopped by someone on purpose (kill -STOP): theirs to continue
	}
	p.mu.Lock()
	if p.done {
		p.mu.Unlock()
		return
	}
	p.terminalStop = unix.SignalName(sig)
	p.signalled = true
	unix.Kill(-p.os.pgid, unix.SIGTERM)
	unix.Kill(-p.os.pgid, unix.SIGCONT) // a stopped process takes SIGTERM once continued
	p.mu.Unlock()
	time.AfterFunc(p.leftoverGrace, func() { p.Kill() })
}

// suspend stops vx as its foreground task was stopped: vx takes the
// terminal back and stops its own process group with the same signal (a
// SIGSTOP for any other), so that the user's shell sees its job stop. The
// SIGCONT that fg or bg sends later reaches resume. A vx whose group is
// orphaned cannot be stopped (the kernel drops the signal): it continues
// the task at once, as bg would.
func (p *Process) suspend(sig syscall.Signal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	withoutTTOU(func() { unix.IoctlSetPointerInt(p.os.tty, unix.TIOCSPGRP, unix.Getpgrp()) })
	if sig != unix.SIGTSTP && sig != unix.SIGTTIN && sig != unix.SIGTTOU {
		sig = unix.SIGSTOP
	}
	if groupOrphaned() {
		unix.Kill(-p.os.pgid, unix.SIGCONT)
		return
	}
	unix.Kill(-unix.Getpgrp(), sig)
}

// resume continues the task after vx was continued, giving it the terminal
// when vx has it (fg) and leaving it in the background otherwise (bg).
func (p *Process) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	if !p.giveTerminal() && !p.os.polling {
		// bg: a shell's later fg gives vx the terminal without a signal
		// when the job is running; watch for it.
		p.os.polling = true
		go p.awaitForeground()
	}
	unix.Kill(-p.os.pgid, unix.SIGCONT)
}

// giveTerminal hands the terminal to the task when vx's group has it, and
// reports whether it did. Called with p.mu held.
func (p *Process) giveTerminal() bool {
	pgrp, err := unix.IoctlGetInt(p.os.tty, unix.TIOCGPGRP)
	if err != nil || pgrp != unix.Getpgrp() {
		return false
	}
	withoutTTOU(func() { unix.IoctlSetPointerInt(p.os.tty, unix.TIOCSPGRP, p.os.pgid) })
	return true
}

// awaitForeground polls, while the task runs in the background, until the
// terminal is vx's group's again, and gives it to the task.
func (p *Process) awaitForeground() {
	for {
		time.Sleep(100 * time.Millisecond)
		p.mu.Lock()
		if p.done || p.giveTerminal() {
			p.os.polling = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}

// withoutTTOU runs f with SIGTTOU ignored: a process in the background may
// then set the terminal's foreground group.
func withoutTTOU(f func()) {
	ignored := signal.Ignored(unix.SIGTTOU)
	signal.Ignore(unix.SIGTTOU)
	f()
	if !ignored {
		signal.Reset(unix.SIGTTOU)
	}
}

// groupOrphaned reports whether vx's process group is orphaned: no member's
// parent (here: vx's parent) is in another group of the same session. The
// kernel does not stop such a group on SIGTSTP, SIGTTIN or SIGTTOU, so no
// shell could continue it.
func groupOrphaned() bool {
	ppid := unix.Getppid()
	psid, err1 := unix.Getsid(ppid)
	ppgrp, err2 := unix.Getpgid(ppid)
	sid, err3 := unix.Getsid(0)
	if err1 != nil || err2 != nil || err3 != nil {
		return true
	}
	return psid != sid || ppgrp == unix.Getpgrp()
}
