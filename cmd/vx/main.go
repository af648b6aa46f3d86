// Command vx runs the package.json scripts of a JavaScript workspace, each
// in an isolated environment. See README.md and docs/.
//
// This is vx's only contact with the process itself: it reads the
// arguments, the environment, the working directory and the signals, and
// hands them to package cli, which returns the exit code and an error. This
// is the one place that prints an error: "vx: " and [diag.Message], with a
// file named relative to the working directory.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cli"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/term"
)

func main() {
	os.Exit(run())
}

// watchdogArg starts vx as the watchdog of another vx (see
// exec.EnableWatchdog): the only argument, never typed by a user.
const watchdogArg = "__vx-watchdog"

func run() int {
	if len(os.Args) == 2 && os.Args[1] == watchdogArg {
		return exec.RunWatchdog(os.Stdin)
	}
	if len(os.Args) > 2 && os.Args[1] == exec.TraceShimArg {
		return exec.RunTraceShim(os.Args[2:], os.Environ())
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "vx: cannot read the working directory: %v\n", err)
		return cli.ExitUsage
	}
	var sigs signalWatch
	defer sigs.stop()
	var tasks taskLifetime
	code, err := cli.Main(cli.Process{
		Args:           os.Args[1:],
		Environ:        os.Environ(),
		Dir:            dir,
		Stdin:          os.Stdin,
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		StdinTerminal:  term.IsTerminal(os.Stdin.Fd()),
		StdoutTerminal: term.SupportsColor(os.Stdout.Fd()),
		StderrTerminal: term.SupportsColor(os.Stderr.Fd()),
		NoColor:        os.Getenv("NO_COLOR") != "",
		Signals:        sigs.start,
		StartTasks:     tasks.start,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "vx: %s\n", diag.Message(err, dir))
	}
	tasks.end()
	return code
}

// taskLifetime is what vx does for its task trees beyond starting and
// waiting for each: only a command that starts tasks pays for it.
type taskLifetime struct{ started atomic.Bool }

// start runs before the first task starts. Processes that escape a task's
// process group are re-parented to vx (Linux), which ends them in end; a
// second process, started with the first task (see exec.EnableWatchdog),
// ends the task trees if vx is killed outright (SIGKILL).
func (l *taskLifetime) start() {
	l.started.Store(true)
	exec.BecomeSubreaper()
	if self, err := os.Executable(); err == nil {
		exec.EnableWatchdog(self, watchdogArg)
	}
}

// end runs as vx exits, once no task runs: it lets the watchdog go and ends
// what escaped the tasks' groups.
func (l *taskLifetime) end() {
	if !l.started.Load() {
		return
	}
	exec.StopWatchdog()
	exec.EndOrphans(orphanGrace)
}

// orphanGrace is how long processes that escaped their task's group get
// between SIGTERM and SIGKILL when vx ends them on its way out.
const orphanGrace = 2 * time.Second

// signalWatch starts watching signals when cli asks (cli.Process.Signals):
// --version and --help end sooner without it.
type signalWatch struct{ end func() }

func (w *signalWatch) start() (context.Context, <-chan struct{}) {
	ctx, kill, end := signalContext()
	w.end = end
	return ctx, kill
}

func (w *signalWatch) stop() {
	if w.end != nil {
		w.end()
	}
}

// signalContext maps the signals that end vx (stopSignals) to
// cancellation: the first cancels ctx with an [exec.Interrupt] naming it,
// so that tasks get that signal and vx exits 128+N; a second closes kill,
// which kills the task trees at once. SIGPIPE is caught too (see
// ignoredSignals), so that a closed output is an error vx's writers see
// rather than death.
func signalContext() (ctx context.Context, kill <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	killc := make(chan struct{})
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, append(stopSignals, ignoredSignals...)...)
	done := make(chan struct{})
	go func() {
		first := true
		for {
			var sig os.Signal
			select {
			case sig = <-sigs:
			case <-done:
				return
			}
			if ignored(sig) {
				continue
			}
			if first {
				first = false
				cancel(&exec.Interrupt{Signal: sig})
			} else {
				close(killc)
				return
			}
		}
	}()
	return ctx, killc, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

func ignored(sig os.Signal) bool {
	for _, s := range ignoredSignals {
		if s == sig {
			return true
		}
	}
	return false
}
