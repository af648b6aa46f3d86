package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/guard"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

// TaskEnv returns the exact environment of n's child process: the isolated
// env built from parent (the environment vx was started with) and n's
// declarations, with the project's bin paths in front of PATH, then the
// variables vx sets on every task. `vx run` and `vx env` both call it, and
// the task cache keys n on the same environment (taskEnviron).
func TaskEnv(ws *workspace.Workspace, n *Node, parent []string, goos string) []string {
	env, _ := taskEnviron(ws, n, parent, goos)
	return env
}

func envOptions(ws *workspace.Workspace, n *Node, parent []string, goos string) exec.EnvOptions {
	return exec.EnvOptions{
		Source:      parent,
		PassThrough: taskPassThrough(n, parent, goos),
		Define:      n.Config.Define,
		BinPaths:    ws.BinPaths(n.Project),
		GOOS:        goos,
	}
}

// taskChain is VX_RUN_CHAIN for a task of the workspace at root: the chain
// vx was started inside (see [guard.ParseChain]), then root.
func taskChain(root string, parent []string, goos string) string {
	sep := listSeparator(goos)
	outer, _ := exec.LookupEnv(parent, exec.ChainEnv, goos)
	outerWS, _ := exec.LookupEnv(parent, exec.WorkspaceEnv, goos)
	chain := guard.ParseChain(outer, outerWS, sep)
	if len(chain) == 0 || chain[len(chain)-1] != root {
		chain = append(chain, root)
	}
	return strings.Join(chain, sep)
}

// listSeparator is the PATH list separator of goos.
func listSeparator(goos string) string {
	if goos == "windows" || goos == "" && runtime.GOOS == "windows" {
		return ";"
	}
	return ":"
}

// taskPassThrough expands n's passThrough names against parent, less
// vx's own remote-cache settings (VX_REMOTE_*: the cache's URL, its auth
// header, its signing key): they configure vx and never reach a task, even
// when a pattern such as "VX_*" matches them.
func taskPassThrough(n *Node, parent []string, goos string) []string {
	names := config.ExpandPassThrough(n.Config.PassThrough, parent, goos)
	out := names[:0:0]
	for _, name := range names {
		if !strings.HasPrefix(exec.EnvNameKey(name, goos), exec.EnvNameKey("VX_REMOTE_", goos)) {
			out = append(out, name)
		}
	}
	return out
}

// CheckBinPaths returns an error when a node_modules/.bin directory that
// would go on the PATH of one of nodes' tasks cannot be one PATH entry
// under goos's rules ([exec.CheckBinPath]): a workspace at /home/me/co:lon
// would give its tasks the relative entry lon/node_modules/.bin. vx refuses
// to run (or show the env of) such a task rather than leave the entry out
// silently.
func CheckBinPaths(ws *workspace.Workspace, nodes []*Node, goos string) error {
	seen := map[*workspace.Project]bool{}
	for _, n := range nodes {
		if seen[n.Project] {
			continue
		}
		seen[n.Project] = true
		for _, dir := range ws.BinPaths(n.Project) {
			if err := exec.CheckBinPath(dir, goos); err != nil {
				return fmt.Errorf("%w (task %s)", err, quote.Name(n.ID))
			}
		}
	}
	return nil
}

// packageName is npm_package_name: the package.json "name", "" (unset)
// when the package has none, as npm leaves it unset; never the directory
// that stands in for the name in task ids.
func packageName(p *workspace.Project) string {
	if p.Unnamed {
		return ""
	}
	return p.Name
}

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
	// Status is "succeeded" (a task restored from the cache too),
	// "failed", "stopped" (a persistent task ended by the signal that
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

type result struct {
	n      *Node
	res    exec.Result
	err    error
	closer func()
	end    time.Time
	cached bool // restored from the cache, not run
}

// Execute runs g. Dependencies finish before their dependents start.
//
// Cancelling ctx stops the run: no task starts any more, and every running
// task's tree gets the signal the cause names, once, then is killed after
// opts.Grace (see [exec.Start]) or when opts.Kill is closed. The summary
// line of a run of several tasks is left out when the cause is SIGPIPE:
// nobody reads vx's output any more.
func Execute(ctx context.Context, g *Graph, opts Options) Outcome {
	start := time.Now()
	out := Outcome{Total: len(g.Nodes), Start: start, Tasks: make([]TaskRun, len(g.Nodes))}
	for i, n := range g.Nodes {
		out.Tasks[i] = TaskRun{Node: n, Status: "skipped"}
	}
	if opts.Concurrency < 1 {
		opts.Concurrency = 1
	}
	single := len(g.Nodes) == 1
	// A write to vx's own output that finds the reader gone (`vx run t |
	// head -1`) stops the run as SIGPIPE would have stopped vx.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	broken := func(err error) {
		if exec.IsBrokenPipe(err) {
			cancel(&exec.Interrupt{Signal: syscall.SIGPIPE})
		}
	}
	stdout, stderr := newOutput(opts.Stdout, opts.Stderr, opts.OutputTerminal)
	stdout.o.broken = broken
	ids := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[i] = n.ID
	}
	width := prefixWidth(ids)

	pending := make([]int, len(g.Nodes)) // unfinished dependencies
	dependents := make([][]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		pending[n.index] = len(n.Deps)
		for _, d := range n.Deps {
			dependents[d.index] = append(dependents[d.index], n)
		}
	}
	var ready []*Node // kept in graph order
	for _, n := range g.Nodes {
		if pending[n.index] == 0 {
			ready = append(ready, n)
		}
	}
	blocked := make([]bool, len(g.Nodes)) // a dependency failed or was skipped
	running := map[*Node]process{}
	results := make(chan result)
	stopping := false
	done, kill := ctx.Done(), opts.Kill
	if done == nil {
		kill = nil
	}

	blocks := make([]*block, len(g.Nodes)) // grouped output of the running tasks

	// ended hands a task's end to the loop, after the cache has taken it
	// (TaskCache.after), which must not wait for the loop.
	ended := func(r result) {
		if opts.Cache != nil {
			opts.Cache.after(r.n, r.err == nil && r.res.ExitCode == 0)
		}
		results <- r
	}

	nullOut, nullErr := isNullDevice(opts.Stdout), isNullDevice(opts.Stderr)
	shells := &exec.ShellCache{} // files checked for the shell, once per run
	started := func(n *Node) {
		if opts.Observer != nil {
			opts.Observer.TaskStarted(n, out.Tasks[n.index].Start)
		}
	}
	startTask := func(n *Node) {
		spec := exec.Spec{Script: n.Script, Dir: n.Project.Dir, Env: opts.Env(n), Grace: opts.Grace, Shells: shells}
		if n.Target {
			spec.Args = opts.Args
		}
		closer := func() {}
		if single {
			spec.Stdin, spec.Stdout, spec.Stderr = opts.Stdin, opts.Stdout, opts.Stderr
			spec.Foreground = opts.Terminal
		} else {
			prefix := taskPrefix(n.ID, width, n.index, opts.Color)
			dstOut, dstErr := stdout, stderr
			if opts.LogOrder == LogGrouped && !n.Config.Persistent {
				b := &block{}
				blocks[n.index] = b
				dstOut, dstErr = newOutput(blockStream{b, false}, blockStream{b, true}, false)
			}
			o, e := newPrefixWriter(dstOut, prefix), newPrefixWriter(dstErr, prefix)
			spec.Stdout, spec.Stderr = o, e
			closer = func() { o.Close(); e.Close() }
			// A stream nobody reads goes straight to the null device,
			// unless the cache keeps the task's logs.
			if opts.Cache == nil || !n.Cacheable {
				if nullOut {
					spec.Stdout = opts.Stdout
				}
				if nullErr {
					spec.Stderr = opts.Stderr
				}
			}
		}
		if ctx.Err() != nil {
			closer()
			return // the run was stopped meanwhile
		}
		out.Started++
		out.Tasks[n.index].Start = time.Now()
		if opts.Cache != nil {
			var hit bool
			if n.Cacheable {
				out.Tasks[n.index].Cache = "miss"
			}
			if hit, spec.Stdout, spec.Stderr = opts.Cache.before(n, spec.Stdout, spec.Stderr); hit {
				out.Tasks[n.index].Cache = "hit"
				out.Cached++
				if opts.Cache.Status(n) == "remote-hit" {
					out.Tasks[n.index].Cache = "remote-hit"
					out.Remote++
				}
				started(n)
				go func() { results <- result{n: n, closer: closer, end: time.Now(), cached: true} }()
				running[n] = nil
				return
			}
		}
		p, err := startScripts(ctx, n, spec)
		if err != nil && ctx.Err() != nil {
			out.Started--
			out.Tasks[n.index].Start = time.Time{}
			closer()
			return
		}
		if err != nil {
			err = explainNotFound(err, spec.Env)
			started(n)
			end := time.Now()
			go func() { ended(result{n: n, res: exec.Result{ExitCode: 127}, err: err, closer: closer, end: end}) }()
			running[n] = nil
			return
		}
		running[n] = p
		out.Tasks[n.index].Argv = p.Argv()
		started(n)
		go func() {
			res, err := p.Wait()
			ended(result{n: n, res: res, err: err, closer: closer, end: time.Now()})
		}()
	}

	killAll := func() {
		for _, p := range running {
			if p != nil {
				p.Kill()
			}
		}
	}

	// Persistent tasks (servers, watchers) start whatever the concurrency:
	// they hold no slot, so they cannot starve the tasks that do end.
	busy := 0 // slots held: running tasks that are not persistent
	stallAfter := opts.StallWarning
	if stallAfter == 0 {
		stallAfter = 10 * time.Second
	}
	var stall *time.Timer
	var stallC <-chan time.Time
	stallWarned := stallAfter < 0
	stopStall := func() {
		if stall != nil {
			stall.Stop()
			stall, stallC = nil, nil
		}
	}
	defer stopStall()

	for {
		if !stopping {
			waiting := ready[:0]
			for _, n := range ready {
				switch {
				case n.Config.Persistent:
					startTask(n)
				case busy < opts.Concurrency:
					busy++
					startTask(n)
				default:
					waiting = append(waiting, n)
				}
			}
			ready = waiting
		}
		if len(running) == 0 {
			break
		}
		if !stallWarned && !stopping && len(ready) > 0 {
			if stall == nil {
				stall = time.NewTimer(stallAfter)
				stallC = stall.C
			}
		} else {
			stopStall()
		}
		select {
		case <-stallC:
			stallWarned = true
			stopStall()
			fmt.Fprintln(stderr, stallMessage(running, ready, opts.Concurrency, stallAfter))
			continue
		case r := <-results:
			delete(running, r.n)
			if !r.n.Config.Persistent {
				busy--
			}
			stopStall() // a slot came free: the wait starts again
			r.closer()
			failed := r.err != nil || r.res.ExitCode != 0
			if b := blocks[r.n.index]; b != nil {
				blocks[r.n.index] = nil
				if err := writeBlock(stdout, stderr, quote.Name(r.n.ID), opts.GitHubActions && !failed, b); err != nil {
					fmt.Fprintf(stderr, "vx: %s: its output could not be written in full: %v\n", quote.Name(r.n.ID), err)
				}
			}
			out.ExitCode = r.res.ExitCode
			tr := &out.Tasks[r.n.index]
			tr.End, tr.ExitCode, tr.Signal, tr.Err = r.end, r.res.ExitCode, r.res.Signal, r.err
			tr.Status = "succeeded"
			if failed {
				tr.Status = "failed"
			}
			// A persistent task ended by the interrupt that stopped the run
			// did what it is for: it was stopped, it did not fail.
			stopped := failed && ctx.Err() != nil && r.n.Config.Persistent && r.err == nil
			switch {
			case stopped:
				tr.Status = "stopped"
				out.Stopped++
			case !failed:
				out.Succeeded++
			default:
				out.Failed = append(out.Failed, r.n.ID)
				if r.err != nil && exec.CauseSignal(ctx) != syscall.SIGPIPE {
					fmt.Fprintf(stderr, "vx: %s: %v\n", quote.Name(r.n.ID), r.err)
				} else if r.res.TerminalStop != "" {
					fmt.Fprintf(stderr, "vx: %s stopped: %s; run it alone to use the terminal\n", quote.Name(r.n.ID), terminalUse(r.res.TerminalStop))
				} else if !single && ctx.Err() == nil {
					fmt.Fprintf(stderr, "vx: %s failed: %s\n", quote.Name(r.n.ID), describe(r.res))
				}
				if !opts.Continue {
					stopping = true
				}
			}
			if opts.Observer != nil {
				opts.Observer.TaskEnded(*tr)
			}
			for _, d := range dependents[r.n.index] {
				if failed {
					blocked[d.index] = true
				}
				pending[d.index]--
				if pending[d.index] == 0 {
					if blocked[d.index] {
						markBlocked(d, dependents, pending, blocked)
					} else {
						ready = insertByIndex(ready, d)
					}
				}
			}
		case <-done:
			// Each tree got its signal from its own watch of ctx.
			done = nil
			stopping = true
			out.Signal = stopSignal(ctx)
		case <-kill:
			kill = nil
			killAll()
		}
	}
	if out.Signal == nil && ctx.Err() != nil {
		out.Signal = stopSignal(ctx)
	}
	out.Skipped = out.Total - out.Started
	out.Elapsed = time.Since(start)
	if !single && out.Signal != syscall.SIGPIPE {
		fmt.Fprintln(stderr, summary(out, opts.Color))
	}
	return out
}

// explainNotFound adds the task's PATH to an error that says its shell
// was not found, and where vx looks.
func explainNotFound(err error, env []string) error {
	if !errors.Is(err, osexec.ErrNotFound) {
		return err
	}
	path, ok := exec.LookupEnv(env, "PATH", "")
	if !ok {
		path = "unset"
	} else {
		path = strconv.Quote(path)
	}
	return fmt.Errorf("%w; the task's PATH is %s (vx looks programs up in the task's PATH, not in its own: set PATH where vx runs, or define it in vx.json)", err, path)
}

// stallMessage says which tasks have waited for a slot, which hold the
// slots, and the two ways out.
func stallMessage(running map[*Node]process, ready []*Node, conc int, after time.Duration) string {
	var holding []string
	for n := range running {
		if !n.Config.Persistent {
			holding = append(holding, quote.Name(n.ID))
		}
	}
	sort.Strings(holding)
	waiting := make([]string, len(ready))
	for i, n := range ready {
		waiting[i] = quote.Name(n.ID)
	}
	return fmt.Sprintf("vx: %d %s waited %s for a slot: all %d (--concurrency %d) are held by %s; waiting: %s. "+
		"If tasks run until stopped (dev servers, watchers), mark them \"persistent\": true in vx.json; otherwise raise --concurrency",
		len(waiting), plural(len(waiting), "task has", "tasks have"), after.Round(time.Millisecond), conc, conc,
		listSome(holding, 8), listSome(waiting, 8))
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

// markBlocked propagates a failure: n will not run, nor will anything that
// waits on it. Counts are decremented so the bookkeeping stays exact.
func markBlocked(n *Node, dependents [][]*Node, pending []int, blocked []bool) {
	for _, d := range dependents[n.index] {
		blocked[d.index] = true
		pending[d.index]--
		if pending[d.index] == 0 {
			markBlocked(d, dependents, pending, blocked)
		}
	}
}

func insertByIndex(ready []*Node, n *Node) []*Node {
	i := sort.Search(len(ready), func(i int) bool { return ready[i].index > n.index })
	ready = append(ready, nil)
	copy(ready[i+1:], ready[i:])
	ready[i] = n
	return ready
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
	if o.Skipped > 0 {
		fmt.Fprintf(&b, ", %d not run", o.Skipped)
	}
	if o.Stopped > 0 && o.Signal != nil {
		fmt.Fprintf(&b, ", %d persistent stopped by %s", o.Stopped, SignalName(o.Signal))
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
