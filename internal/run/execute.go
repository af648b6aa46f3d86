package run

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/quote"
)

// Options control [Execute].
type Options struct {
	Concurrency int           // tasks running at once; at least 1
	Continue    bool          // after a failure, keep running what does not depend on it
	Grace       time.Duration // once ctx is done, how long tasks get to exit before their trees are killed
	Args        []string      // appended to the scripts of target tasks (after --), not to their dependencies

	Env func(*Node) []string // the child environment of a task (TaskEnv)

	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Terminal       bool // stdin is a terminal: a single task may take the foreground
	OutputTerminal bool // stdout and stderr are terminals: a task's line ended by a bare \r is ended before another's
	Color          bool // colour the prefixes and the summary

	// LogOrder lays out the output of a run of several tasks: LogStream
	// (the default) or LogGrouped. A run of one task is always live.
	LogOrder LogOrder
	// OutputLogs, when set, is how much of every task's output the run
	// shows (LogsFull, LogsHashOnly, LogsNewOnly, LogsErrorsOnly,
	// LogsNone), over each task's "outputLogs"; see outputlogs.go.
	OutputLogs string
	// GitHubActions folds each grouped block into ::group:: / ::endgroup::
	// workflow commands, except a failed task's.
	GitHubActions bool

	// StallWarning is how long every slot may be held while tasks wait for
	// one before vx says which tasks wait and how to unblock them (mark
	// never-ending tasks persistent, or raise the concurrency); once per run.
	// 0 means 10s; negative turns the warning off.
	StallWarning time.Duration

	// Cache, when set, is asked before each cacheable task starts: a hit
	// restores its outputs and replays its logs instead of running it, and
	// a task that exits 0 is stored.
	Cache *TaskCache

	// Kill, closed once ctx is done, kills every running tree at once
	// instead of waiting out Grace (vx closes it on a second signal).
	Kill <-chan struct{}

	// Observer, when set, is told when each task starts and ends
	// (vx run --profile).
	Observer Observer

	// Timeout and Retries are each task's timeout (0: none) and retries
	// when its entry has no "timeout" or "retries" of its own (vx run's
	// --timeout and --retries): see attempt.go.
	Timeout time.Duration
	Retries int

	// Trace, when set and not TraceOff, traces each cached task that runs
	// and reports what it read outside its key and wrote outside its
	// outputs (vx run --trace); TraceStrict fails the task for it.
	Trace *Tracing
}

// An Observer is told when each task of a run starts and ends: started
// once its process started, its shell could not be found, or the cache
// was asked for it; ended with what became of it. A task that never
// starts (skipped) is not reported. Execute calls the methods from one
// goroutine, in the order of events: a task that takes a slot another
// task left is reported started after that task was reported ended.
type Observer interface {
	TaskStarted(n *Node, at time.Time)
	TaskEnded(tr TaskRun)
}

// Outcome says how a run ended.
type Outcome struct {
	Total     int      // tasks in the graph
	Started   int      // tasks that were started
	Succeeded int      // tasks that ran or were restored from the cache
	Cached    int      // tasks restored from the cache (counted in Started and Succeeded too)
	Remote    int      // of Cached, those found in the remote cache
	Failed    []string // IDs of failed tasks, in the order they ended
	Skipped   int      // tasks not started: a dependency failed, or the run stopped
	Stopped   int      // persistent tasks ended by the signal that stopped the run (not failures)
	Flaky     []string // IDs of the tasks that passed after a failed attempt (counted in Succeeded too), in the order they ended
	// Signal is the signal that stopped the run ([exec.CauseSignal] of
	// ctx; SIGTERM when ctx was cancelled without one), or nil.
	Signal os.Signal
	// ExitCode of the last task that ended; Code uses it when the run had one task.
	ExitCode int
	Start    time.Time // when the run started
	Elapsed  time.Duration
	// Tasks says what became of each task of the graph, in graph order:
	// what `vx run --summary` reports.
	Tasks []TaskRun
}

// TaskRun is what became of one task of a run.
type TaskRun struct {
	Node *Node
	// Status is "succeeded" (it ran and exited 0), "cached" (restored
	// from the cache instead of run: Cache says which), "failed", "stopped" (a persistent task ended by the signal that
	// stopped the run), or "skipped" (not started: a
	// dependency failed, or the run stopped first).
	Status     string
	Start, End time.Time // zero when the task did not start
	ExitCode   int       // 128+N when killed by signal N; 127 when its shell could not be started
	Signal     string    // the signal that ended the task ("SIGINT"), or ""
	Argv       []string  // what was started: the shell found in the task's PATH and its arguments
	Err        error     // why the task could not be started, or nil
	// Cache is "hit" (restored from the local store, not run), "remote-hit" (from
	// the remote cache) or "miss" when the task cache was
	// asked, "" when it was not (no cache in the run, or a task that is not
	// cacheable: persistent, "cache": false, or without a vx.json entry).
	Cache string
	// Attempts is how many times the task ran (more than 1 when a failed
	// attempt was retried; 0 when it did not run), Flaky whether it
	// passed after a failed attempt, TimedOut whether its last attempt
	// ran out of time (its Err is then a [*TimeoutError]).
	Attempts int
	Flaky    bool
	TimedOut bool
}

// Code returns the exit code vx should end with: 128+signal after an
// interrupt, the task's own code when the run had exactly one task (1 when
// that task exited 0 but failed all the same: its output could not be
// written, or waiting for it failed), 1 when any task failed, else 0.
func (o Outcome) Code() int {
	switch {
	case o.Signal != nil:
		if s, ok := o.Signal.(syscall.Signal); ok {
			return 128 + int(s)
		}
		return 130
	case o.Total == 1 && o.Started == 1 && o.ExitCode > 0:
		return o.ExitCode
	case len(o.Failed) > 0:
		return 1
	}
	return 0
}

// stallMessage says which tasks have waited for a slot, which hold the
// slots, and the two ways out.
func stallMessage(running map[*Node]process, ready []*Node, conc int, after time.Duration) string {
	var holding []string
	file := "" // where the holders are declared (the first's, by ID)
	for n := range running {
		if !n.Config.Persistent {
			holding = append(holding, quote.Name(n.ID))
			if file == "" || n.configFile() < file {
				file = n.configFile()
			}
		}
	}
	sort.Strings(holding)
	waiting := make([]string, len(ready))
	for i, n := range ready {
		waiting[i] = quote.Name(n.ID)
	}
	return fmt.Sprintf("vx: %d %s waited %s for a slot: all %d (--concurrency %d) are held by %s; waiting: %s. "+
		"If tasks run until stopped (dev servers, watchers), mark them \"persistent\": true in %s; otherwise raise --concurrency",
		len(waiting), plural(len(waiting), "task has", "tasks have"), after.Round(time.Millisecond), conc, conc,
		listSome(holding, 8), listSome(waiting, 8), cmp.Or(file, config.FileName))
}

// listSome joins the first n of ids, and says how many more there are.
func listSome(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:n], ", "), len(ids)-n)
}

// StopCode is the exit code of a vx stopped by ctx before any task ran:
// 128+N for the signal the cause names ([exec.Interrupt]), 143 without one.
func StopCode(ctx context.Context) int { return Outcome{Signal: stopSignal(ctx)}.Code() }

// IsBrokenPipe reports whether err is a write to an output whose reader is
// gone (`vx ls | head -1`).
func IsBrokenPipe(err error) bool { return exec.IsBrokenPipe(err) }

// terminalUse says what a task stopped by SIGTTIN or SIGTTOU tried to do.
func terminalUse(sig string) string {
	if sig == "SIGTTIN" {
		return "it tried to read the terminal"
	}
	return "it tried to write to the terminal or change its settings"
}

// stopSignal is the signal a cancelled ctx stopped the run with.
func stopSignal(ctx context.Context) os.Signal {
	if sig := exec.CauseSignal(ctx); sig != nil {
		return sig
	}
	return syscall.SIGTERM
}

func describe(r exec.Result) string {
	if r.Signal != "" {
		return fmt.Sprintf("killed by %s (exit code %d)", r.Signal, r.ExitCode)
	}
	return fmt.Sprintf("exit code %d", r.ExitCode)
}

// summary is the one line printed after a run of several tasks.
func summary(o Outcome, color bool) string {
	var b strings.Builder
	if o.Cached > 0 {
		fmt.Fprintf(&b, "vx: %d %s: %d cached", o.Total, plural(o.Total, "task", "tasks"), o.Cached)
		if o.Remote > 0 {
			fmt.Fprintf(&b, " (%d remote)", o.Remote)
		}
		fmt.Fprintf(&b, ", %d ran", o.Started-o.Cached)
		if len(o.Failed) == 0 {
			b.WriteString(", 0 failed")
		}
	} else {
		fmt.Fprintf(&b, "vx: %d %s: %d succeeded", o.Total, plural(o.Total, "task", "tasks"), o.Succeeded)
	}
	if len(o.Failed) > 0 {
		shown := make([]string, len(o.Failed))
		for i, id := range o.Failed {
			shown[i] = quote.Name(id)
		}
		fail := fmt.Sprintf("%d failed (%s)", len(o.Failed), strings.Join(shown, ", "))
		if color {
			fail = "\x1b[1;31m" + fail + colorReset
		}
		b.WriteString(", " + fail)
	}
	if len(o.Flaky) > 0 {
		fmt.Fprintf(&b, ", %d flaky (%s)", len(o.Flaky), strings.Join(quoteAll(o.Flaky), ", "))
	}
	if o.Skipped > 0 {
		fmt.Fprintf(&b, ", %d not run", o.Skipped)
	}
	if o.Stopped > 0 && o.Signal != nil {
		fmt.Fprintf(&b, ", %d persistent stopped by %s", o.Stopped, SignalName(o.Signal))
	} else if o.Stopped > 0 {
		fmt.Fprintf(&b, ", %d persistent stopped once %s dependents were done", o.Stopped, plural(o.Stopped, "its", "their"))
	} else if o.Signal != nil {
		fmt.Fprintf(&b, ", stopped by %s", SignalName(o.Signal))
	}
	fmt.Fprintf(&b, " in %s", o.Elapsed.Round(time.Millisecond))
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SignalName names sig as the summary and --summary do: "SIGINT",
// "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE", else Go's name for it.
func SignalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return sig.String()
}
