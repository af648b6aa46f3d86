//go:build unix

package exec

import (
	"bufio"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The watchdog ends the task trees when vx itself is killed with SIGKILL,
// which runs no code of vx. It is a second process (vx started again with
// a hidden argument, see [EnableWatchdog]) in a process group of its own,
// whose stdin is a pipe that only vx holds the other end of: vx writes the
// id of each task's process group as the task starts ("+ID") and when its
// tree is gone ("-ID"). When vx ends normally it writes "exit". When the
// pipe ends without it, vx died: the watchdog sends SIGTERM, then SIGKILL
// a second later, to every group still registered. Processes that left
// their task's group (setsid) are not reached: vx's subreaper (Linux) would
// have ended them, and it died with vx.
var watchdog struct {
	sync.Mutex
	argv    []string // how to start it; nil: no watchdog
	started bool     // the first task started: the watchdog's timer runs
	stopped bool     // StopWatchdog was called
	timer   *time.Timer
	pending map[int]bool // the groups registered before the watchdog starts
	w       *os.File     // the watchdog's stdin, once it starts
	pid     atomic.Int64 // the watchdog's process id, once started
}

// EnableWatchdog makes the first [Start] also start the watchdog: the
// program argv[0] with the arguments argv[1:], which must call
// [RunWatchdog]. cmd/vx passes its own executable and a hidden argument.
func EnableWatchdog(argv ...string) {
	watchdog.Lock()
	watchdog.argv = argv
	watchdog.Unlock()
}

// StopWatchdog tells the watchdog that vx ends normally: it reads "exit"
// and ends by itself. vx does not wait for it, so that ending costs vx
// nothing; [EndOrphans] leaves it alone. A watchdog not started yet never
// starts.
func StopWatchdog() {
	watchdog.Lock()
	defer watchdog.Unlock()
	watchdog.stopped = true
	if watchdog.timer != nil {
		watchdog.timer.Stop()
	}
	if watchdog.w == nil {
		return
	}
	io.WriteString(watchdog.w, "exit\n")
	watchdog.w.Close()
	watchdog.w = nil
}

// watchdogPID is the watchdog's process id, or 0.
func watchdogPID() int { return int(watchdog.pid.Load()) }

// watchGroup tells the watchdog that group pgid is a task's (+) or is
// gone (-), arming the watchdog's start on first use; until it starts, vx
// keeps the groups itself.
func watchGroup(sign byte, pgid int) {
	watchdog.Lock()
	defer watchdog.Unlock()
	if !watchdog.started && watchdog.argv != nil && sign == '+' && !watchdog.stopped {
		watchdog.started = true
		watchdog.pending = map[int]bool{}
		watchdog.timer = time.AfterFunc(watchdogDelay, startWatchdog)
	}
	switch {
	case watchdog.w != nil:
		fmt.Fprintf(watchdog.w, "%c%d\n", sign, pgid)
	case watchdog.pending != nil && sign == '+':
		watchdog.pending[pgid] = true
	case watchdog.pending != nil:
		delete(watchdog.pending, pgid)
	}
}

// watchdogDelay is how long vx runs tasks before it starts the watchdog.
// Most tasks end sooner, and a run of short tasks then pays for no second
// process (a fork, an exec and a Go start-up: 1–2 ms of CPU per run on a
// 2-core machine, competing with the task), nor for its pipe. A vx killed
// outright within this time leaves its tasks, as it would with no watchdog.
var watchdogDelay = 250 * time.Millisecond

// startWatchdog starts the watchdog, watchdogDelay after the first task
// started, off the tasks' path, unless vx is ending by then: it makes the
// pipe, writes the groups registered so far into it, and starts the
// watchdog reading it.
func startWatchdog() {
	watchdog.Lock()
	if watchdog.stopped || watchdog.w != nil {
		// Once StopWatchdog has been called, a watchdog started anyway
		// would read "exit" and end at once: it is simply not started.
		watchdog.Unlock()
		return
	}
	r, w, err := os.Pipe()
	if err != nil {
		watchdog.Unlock()
		return
	}
	for pgid := range watchdog.pending {
		fmt.Fprintf(w, "+%d\n", pgid)
	}
	watchdog.pending = nil
	watchdog.w = w // what vx writes from now on waits in the pipe
	cmd := osexec.Command(watchdog.argv[0], watchdog.argv[1:]...)
	watchdog.Unlock()
	cmd.Stdin = r
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Start() == nil {
		watchdog.pid.Store(int64(cmd.Process.Pid))
		go cmd.Wait() // reaped if it ends while vx runs
	}
	r.Close()
}

// RunWatchdog is the watchdog's main loop, reading vx's messages from in;
// it returns the watchdog's exit code.
func RunWatchdog(in io.Reader) int {
	// Signals meant for vx's terminal or session are not the watchdog's.
	signal.Ignore(unix.SIGINT, unix.SIGQUIT, unix.SIGHUP, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU)
	groups := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if line == "exit" {
			return 0
		}
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid <= 1 {
			continue
		}
		if line[0] == '+' {
			groups[pgid] = true
		} else {
			delete(groups, pgid)
		}
	}
	// vx is gone without saying exit: end what it left.
	for pgid := range groups {
		unix.Kill(-pgid, unix.SIGTERM)
		unix.Kill(-pgid, unix.SIGCONT)
	}
	deadline := time.Now().Add(time.Second)
	for len(groups) > 0 && time.Now().Before(deadline) {
		for pgid := range groups {
			if unix.Kill(-pgid, 0) != nil || !procGroupAlive(pgid) {
				delete(groups, pgid)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	for pgid := range groups {
		unix.Kill(-pgid, unix.SIGKILL)
	}
	return 0
}
