package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	osexec "os/exec"
	"slices"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/watch"
)

// Execute runs g. Dependencies finish before their dependents start.
//
// Cancelling ctx stops the run: no task starts any more, and every running
// task's tree gets the signal the cause names, once, then is killed after
// opts.Grace (see [exec.Start]) or when opts.Kill is closed. The summary
// line of a run of several tasks is left out when the cause is SIGPIPE:
// nobody reads vx's output any more.
func Execute(ctx context.Context, g *Graph, opts Options) Outcome {
	s := newScheduler(ctx, g, opts, nil)
	defer s.cancel(nil)
	defer s.stall.stop()
	for {
		s.startReady()
		if len(s.running) == 0 {
			break
		}
		s.wait()
	}
	return s.end()
}

// A scheduler runs the tasks of one graph, for vx run ([Execute]) and vx
// watch ([Watch]) alike: it starts each task once its dependencies allow
// and a slot is free ([scheduler.startReady], [scheduler.start]: restored
// from the cache, or spawned), waits for the next event
// ([scheduler.wait]) and records each task's end ([scheduler.ended],
// [scheduler.record]); [Options.Observer] hears of both, and
// [scheduler.outcome] counts what became of the tasks. It is used by one
// goroutine, Execute's or Watch's; each running task's own goroutine only
// sends its [result].
//
// vx run walks the graph once: pending, dependents and blocked say what
// may start. vx watch (w, watchrun.go) drives the same scheduler in
// rounds: it says which tasks run (again) and when, and hears of each
// end; its tasks each get a context of their own, so that one can be
// stopped alone, and the task cache of their batch of changes.
type scheduler struct {
	ctx    context.Context // cancelled with a cause when the run stops
	cancel context.CancelCauseFunc
	g      *Graph
	opts   Options
	single bool // a run of one task: it gets vx's own streams
	out    Outcome

	// The run's output: vx's streams behind one lock, the prefixes' width,
	// and each running grouped task's block.
	stdout, stderr   *lockedWriter
	width            int
	nullOut, nullErr bool // vx's stdout, stderr are the null device
	blocks           []*block
	logs             []taskLogs       // each task's shown streams and --output-logs mode
	shells           *exec.ShellCache // files checked for the shell, once per run

	// The graph's state, indexed by Node.index.
	pending    []int     // unfinished dependencies
	dependents [][]*Node // the tasks that wait for each
	blocked    []bool    // a dependency failed or was skipped
	ready      []*Node   // may start, waiting for a slot; in graph order
	running    map[*Node]process
	busy       int  // slots held: running tasks that are not persistent
	stopping   bool // no task starts any more
	results    chan result
	serve      *serving // the persistent tasks others wait for (ready.go)

	done, kill <-chan struct{} // ctx.Done() and opts.Kill, nil once handled
	stall      stallTimer

	// What tracing found (--trace), counted by the tasks' goroutines.
	nTraced, tracedReads, tracedWrites atomic.Int32

	ends   int   // tasks ended so far
	endSeq []int // by Node.index: when each task last ended (ends then), for the order of Failed and Flaky

	w *watchRun // vx watch's rounds (watchrun.go); nil for vx run
}

// result is how a task ended, sent by the goroutine that waited for it.
type result struct {
	n      *Node
	res    exec.Result
	err    error
	closer func()
	end    time.Time
	cached bool        // restored from the cache, not run
	tries  attemptInfo // its attempts (attempt.go)
}

// newScheduler prepares a run of g; w is vx watch's, or nil for vx run.
func newScheduler(ctx context.Context, g *Graph, opts Options, w *watchRun) *scheduler {
	if opts.Concurrency < 1 {
		opts.Concurrency = 1
	}
	s := &scheduler{
		g:          g,
		opts:       opts,
		w:          w,
		single:     len(g.Nodes) == 1 && w == nil, // a watched task never gets vx's streams
		endSeq:     make([]int, len(g.Nodes)),
		out:        Outcome{Total: len(g.Nodes), Start: time.Now(), Tasks: make([]TaskRun, len(g.Nodes))},
		nullOut:    isNullDevice(opts.Stdout),
		nullErr:    isNullDevice(opts.Stderr),
		blocks:     make([]*block, len(g.Nodes)),
		logs:       make([]taskLogs, len(g.Nodes)),
		shells:     &exec.ShellCache{},
		pending:    make([]int, len(g.Nodes)),
		dependents: make([][]*Node, len(g.Nodes)),
		blocked:    make([]bool, len(g.Nodes)),
		running:    map[*Node]process{},
		results:    make(chan result),
		stall:      stallTimer{after: opts.StallWarning},
	}
	for i, n := range g.Nodes {
		s.out.Tasks[i] = TaskRun{Node: n, Status: "skipped"}
	}
	// A write to vx's own output that finds the reader gone (`vx run t |
	// head -1`) stops the run as SIGPIPE would have stopped vx.
	s.ctx, s.cancel = context.WithCancelCause(ctx)
	s.stdout, s.stderr = newOutput(opts.Stdout, opts.Stderr, opts.OutputTerminal)
	s.stdout.o.broken = func(err error) {
		if exec.IsBrokenPipe(err) {
			s.cancel(&exec.Interrupt{Signal: syscall.SIGPIPE})
		}
	}
	ids := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[i] = n.ID
	}
	s.width = prefixWidth(ids)
	for _, n := range g.Nodes {
		for _, d := range n.Deps {
			if g.inGraph(d) { // --only leaves dependencies out
				s.pending[n.index]++
				s.dependents[d.index] = append(s.dependents[d.index], n)
			}
		}
	}
	s.serve = &serving{} // vx watch has its own servers (watchready.go)
	if w == nil {
		s.serve = newServing(g, s.dependents)
	}
	for _, n := range g.Nodes {
		if s.pending[n.index] == 0 {
			s.ready = append(s.ready, n)
		}
	}
	s.done, s.kill = s.ctx.Done(), opts.Kill
	if s.done == nil {
		s.kill = nil
	}
	return s
}

// startReady starts the ready tasks that a slot is free for, unless the
// run is stopping. Persistent tasks (servers, watchers) start whatever the
// concurrency: they hold no slot, so they cannot starve the tasks that do
// end. vx watch says afresh which tasks are ready, each time.
func (s *scheduler) startReady() {
	if s.stopping {
		return
	}
	if s.w != nil {
		s.ready = s.w.runnable()
	}
	waiting := s.ready[:0]
	for _, n := range s.ready {
		switch {
		case n.Config.Persistent:
			s.start(n)
		case s.busy < s.opts.Concurrency:
			s.busy++
			s.start(n)
		default:
			waiting = append(waiting, n)
		}
	}
	s.ready = waiting
}

// start starts n: restores it from the cache on a hit, else spawns its
// scripts. Either way its end comes back as a [result]; when the run was
// stopped meanwhile, n does not start and counts as skipped.
func (s *scheduler) start(n *Node) {
	if s.w != nil {
		s.w.starting(n)
	}
	spec, closer := s.spec(n)
	if s.ctx.Err() != nil {
		closer()
		return // the run was stopped meanwhile
	}
	s.out.Tasks[n.index] = TaskRun{Node: n, Status: "skipped", Start: time.Now()}
	shown := spec.Stderr // before the cache wraps it to keep the task's logs
	if s.restore(n, &spec, closer) {
		return
	}
	s.serve.wrap(n, &spec)
	if s.w != nil {
		s.w.srv.wrap(n, &spec)
	}
	s.spawn(n, spec, closer, shown)
	s.beginReady(n)
}

// cacheOf is the task cache n's run asks: vx run's, or in vx watch the
// one of the batch of changes n runs for; nil for none.
func (s *scheduler) cacheOf(n *Node) *TaskCache {
	if s.w != nil {
		return s.w.runCache(n)
	}
	return s.opts.Cache
}

// spec is what n's process gets: its script, directory and environment,
// and its output streams; closer flushes the streams once n has ended.
// A run of one task hands the task vx's own streams (and the terminal's
// foreground); otherwise each line goes out behind the task's prefix,
// grouped into one block per task with LogGrouped.
func (s *scheduler) spec(n *Node) (spec exec.Spec, closer func()) {
	opts := &s.opts
	spec = exec.Spec{Script: n.Script, Dir: n.Project.Dir, Env: opts.Env(n), Grace: opts.Grace, Shells: s.shells}
	if s.traced(n) {
		spec.TraceShim = opts.Trace.Shim
	}
	if n.Target {
		spec.Args = opts.Args
	}
	if s.single {
		spec.Stdin, spec.Stdout, spec.Stderr = opts.Stdin, opts.Stdout, opts.Stderr
		spec.Foreground = opts.Terminal
		s.limitLogs(n, &spec, "vx: "+quote.Name(n.ID)+": ")
		return spec, func() {}
	}
	prefix := taskPrefix(n.ID, s.width, n.index, opts.Color)
	dstOut, dstErr := s.stdout, s.stderr
	if opts.LogOrder == LogGrouped && !n.Config.Persistent {
		b := &block{}
		s.blocks[n.index] = b
		dstOut, dstErr = newOutput(blockStream{b, false}, blockStream{b, true}, false)
	}
	o, e := newPrefixWriter(dstOut, prefix), newPrefixWriter(dstErr, prefix)
	spec.Stdout, spec.Stderr = o, e
	// A stream nobody reads goes straight to the null device, unless the
	// cache keeps the task's logs.
	if s.cacheOf(n) == nil || !n.Cacheable {
		if s.nullOut {
			spec.Stdout = opts.Stdout
		}
		if s.nullErr {
			spec.Stderr = opts.Stderr
		}
	}
	s.limitLogs(n, &spec, "")
	return spec, func() { o.Close(); e.Close() }
}

// restore asks the cache for n: on a hit it has restored n's outputs and
// replayed its logs, and n ends at once. On a miss the cache may have
// wrapped spec's streams to keep n's logs.
func (s *scheduler) restore(n *Node, spec *exec.Spec, closer func()) bool {
	c := s.cacheOf(n)
	if c == nil {
		return false
	}
	tr := &s.out.Tasks[n.index]
	if n.Cacheable {
		tr.Cache = "miss"
	}
	var hit bool
	if hit, spec.Stdout, spec.Stderr = c.before(n, spec.Stdout, spec.Stderr, s.logs[n.index].cacheLine); !hit {
		return false
	}
	tr.Cache = "hit"
	if c.Status(n) == "remote-hit" {
		tr.Cache = "remote-hit"
	}
	s.running[n] = nil
	s.started(n)
	go func() { s.results <- result{n: n, closer: closer, end: time.Now(), cached: true} }()
	return true
}

// spawn starts n's scripts and a goroutine that waits for them. A task
// that cannot start ends at once with exit code 127, unless the run was
// stopped meanwhile: then it did not start. In vx watch each task runs in
// a context of its own, so that it can be stopped alone.
func (s *scheduler) spawn(n *Node, spec exec.Spec, closer func(), shown io.Writer) {
	ctx := s.serve.taskCtx(s.ctx, n)
	if s.w != nil {
		ctx = s.w.taskCtx(ctx, n)
	}
	tc := s.cacheOf(n)
	p, err := startAttempts(ctx, n, spec, policyOf(n, s.opts.Timeout, s.opts.Retries), s.attemptLog(n, shown), tc)
	if err != nil && s.ctx.Err() != nil {
		s.out.Tasks[n.index].Start = time.Time{}
		closer()
		return
	}
	if err != nil {
		err = explainNotFound(err, spec.Env, n.configFile())
		s.started(n)
		end := time.Now()
		s.running[n] = nil
		go func() {
			s.report(tc, ctx, result{n: n, res: exec.Result{ExitCode: 127}, err: err, closer: closer, end: end})
		}()
		return
	}
	s.running[n] = p
	s.out.Tasks[n.index].Argv = p.Argv()
	if len(spec.Args) > 0 {
		// The arguments after -- are shown hidden (HideArgs).
		shown := spec
		shown.Args = HideArgs(tc, spec.Args)
		if _, argv, err := exec.Resolve(shown); err == nil {
			s.out.Tasks[n.index].Argv = argv
		}
	}
	s.started(n)
	if s.w != nil {
		s.w.srv.begin(n, ctx)
	}
	go func() {
		res, err := p.Wait()
		if res.Trace != nil && (s.w == nil || ctx.Err() == nil) {
			// Reported where the task's output goes, not in its logs: a
			// hit replays the logs, and the report is of this run.
			s.checkTrace(tc, n, &res, spec.Env, shown)
		}
		s.report(tc, ctx, result{n: n, res: res, err: err, closer: closer, end: time.Now(), tries: p.info})
	}()
}

// report hands the end of a task that ran to the loop, after tc, the
// cache it ran with, has taken it (TaskCache.after): the cache's per-task
// locks must not wait for the loop, which may itself wait for a lock
// another vx holds. vx watch never stores a run it stopped (ctx, the
// task's own: to run it again, or at Ctrl-C).
func (s *scheduler) report(tc *TaskCache, ctx context.Context, r result) {
	if tc != nil {
		tc.after(r.n, r.err == nil && r.res.ExitCode == 0 && (s.w == nil || ctx.Err() == nil))
	}
	s.results <- r
}

// started tells the observer that n has started: its process, or the
// cache's answer, or the failure to find its shell.
func (s *scheduler) started(n *Node) {
	if s.opts.Observer != nil {
		s.opts.Observer.TaskStarted(n, s.out.Tasks[n.index].Start)
	}
}

// explainNotFound adds the task's PATH to an error that says its shell
// was not found, and where vx looks; configFile is where the task is
// declared.
func explainNotFound(err error, env []string, configFile string) error {
	if !errors.Is(err, osexec.ErrNotFound) {
		return err
	}
	path, ok := exec.LookupEnv(env, "PATH", "")
	if !ok {
		path = "unset"
	} else {
		path = strconv.Quote(path)
	}
	return fmt.Errorf("%w; the task's PATH is %s (vx looks programs up in the task's PATH, not in its own: set PATH where vx runs, or define it in %s)", err, path, configFile)
}

// wait waits for the next event: a task's end, a server's readiness, the
// run's stop (each tree gets its signal from its own watch of ctx), the
// order to kill every tree, or the stall warning's time; in vx watch also
// a batch of changes, or the end of a loop guard's pause.
func (s *scheduler) wait() {
	if !s.stopping && len(s.ready) > 0 {
		s.stall.start()
	} else {
		s.stall.stop()
	}
	var changes <-chan watch.Batch
	var held <-chan time.Time
	var served <-chan watchReadyEvent
	if s.w != nil {
		served = s.w.srv.events
		if !s.stopping {
			changes, held = s.w.changes, s.w.heldC
		}
	}
	select {
	case b, ok := <-changes:
		s.w.changed(b, ok)
	case <-held:
		s.w.rerunHeld()
	case ev := <-served:
		s.w.serverReady(ev)
	case <-s.stall.c:
		s.stall.fired()
		fmt.Fprintln(s.stderr, stallMessage(s.running, s.ready, s.opts.Concurrency, s.stall.wait()))
	case r := <-s.results:
		s.ended(r)
	case ev := <-s.serve.events:
		s.readyEvent(ev)
	case <-s.done:
		s.done = nil
		s.stopping = true
		s.out.Signal = stopSignal(s.ctx)
	case <-s.kill:
		s.kill = nil
		killAll(s.running)
	}
}

// killAll kills every tree of running at once (a second Ctrl-C).
func killAll(running map[*Node]process) {
	for _, p := range running {
		if p != nil {
			p.Kill()
		}
	}
}

// ended records the end of r's task: it frees the task's slot, flushes its
// output, reports a failure, tells the observer and lets
// the dependents start (or, after a failure, marks them blocked); in vx
// watch, the watch decides what runs next.
func (s *scheduler) ended(r result) {
	n := r.n
	released := s.endedServer(&r)
	if s.w != nil {
		s.w.serverEnded(&r)
	}
	delete(s.running, n)
	if !n.Config.Persistent {
		s.busy--
	}
	s.stall.stop() // a slot came free: the wait starts again
	failed := r.err != nil || r.res.ExitCode != 0
	stopped := s.w != nil && s.w.stoppedRun(n, failed) // vx watch stopped it: its errors need no showing
	s.logs[n.index].end(failed && !stopped)
	r.closer()
	if b := s.blocks[n.index]; b != nil {
		s.blocks[n.index] = nil
		if err := writeBlock(s.stdout, s.stderr, quote.Name(n.ID), s.opts.GitHubActions && !failed, b); err != nil {
			fmt.Fprintf(s.stderr, "vx: %s: its output could not be written in full: %v\n", quote.Name(n.ID), err)
		}
	}
	s.record(r, failed)
	if s.opts.Observer != nil {
		s.opts.Observer.TaskEnded(s.out.Tasks[n.index])
	}
	if s.w != nil {
		s.w.ended(r, failed)
		return
	}
	if !released {
		s.release(n, failed)
	}
	s.afterEnd(n, failed)
}

// record writes r into the outcome and reports a failure.
func (s *scheduler) record(r result, failed bool) {
	s.out.ExitCode = r.res.ExitCode
	s.ends++
	s.endSeq[r.n.index] = s.ends
	tr := &s.out.Tasks[r.n.index]
	tr.End, tr.ExitCode, tr.Signal, tr.Err = r.end, r.res.ExitCode, r.res.Signal, r.err
	tr.Status = "succeeded"
	tr.Attempts, tr.Flaky, tr.TimedOut = r.tries.n, r.tries.flaky, r.tries.timedOut
	switch {
	case failed:
		tr.Status = "failed"
	case r.cached:
		tr.Status = "cached"
	}
	// A persistent task ended by the interrupt that stopped the run did
	// what it is for: it was stopped, it did not fail; nor did a server
	// whose dependents were done, or in vx watch a task stopped to run
	// again. A run vx watch stopped says nothing of the task: no failure
	// is reported.
	stopped := failed && s.ctx.Err() != nil && r.n.Config.Persistent && r.err == nil
	stopped = stopped || s.stoppedByVx(r.n) && r.err == nil
	quiet := false
	if s.w != nil {
		stopped = stopped || s.w.state[r.n.index].again
		quiet = s.w.stoppedRun(r.n, failed)
	}
	switch {
	case stopped:
		tr.Status = "stopped"
	case failed:
		if !quiet {
			s.reportFailure(r)
		}
		if !s.opts.Continue {
			s.stopping = true
		}
	}
}

// reportFailure prints the one line that says why r's task failed, unless
// its own output says it: a run of one task, or a run being stopped.
func (s *scheduler) reportFailure(r result) {
	id := quote.Name(r.n.ID)
	switch {
	case r.err != nil && exec.CauseSignal(s.ctx) != syscall.SIGPIPE:
		fmt.Fprintf(s.stderr, "vx: %s: %v\n", id, r.err)
	case r.res.TerminalStop != "" && s.w != nil: // a watched task never gets the terminal
		fmt.Fprintf(s.stderr, "vx: %s stopped: %s\n", id, terminalUse(r.res.TerminalStop))
	case r.res.TerminalStop != "":
		fmt.Fprintf(s.stderr, "vx: %s stopped: %s; run it alone to use the terminal\n", id, terminalUse(r.res.TerminalStop))
	case !s.single && s.ctx.Err() == nil:
		fmt.Fprintf(s.stderr, "vx: %s failed: %s\n", id, describe(r.res))
	}
}

// release counts n's end in each of its dependents: one whose last
// dependency ended becomes ready, unless a dependency failed, which blocks
// it and everything that waits on it.
func (s *scheduler) release(n *Node, failed bool) {
	for _, d := range s.dependents[n.index] {
		if failed {
			s.blocked[d.index] = true
		}
		s.pending[d.index]--
		if s.pending[d.index] == 0 {
			if s.blocked[d.index] {
				s.markBlocked(d)
			} else {
				s.ready = insertByIndex(s.ready, d)
			}
		}
	}
}

// markBlocked propagates a failure: n will not run, nor will anything that
// waits on it. Counts are decremented so the bookkeeping stays exact.
func (s *scheduler) markBlocked(n *Node) {
	for _, d := range s.dependents[n.index] {
		s.blocked[d.index] = true
		s.pending[d.index]--
		if s.pending[d.index] == 0 {
			s.markBlocked(d)
		}
	}
}

// end completes the outcome once no task runs, and prints the summary
// line of a run of several tasks.
func (s *scheduler) end() Outcome {
	out := &s.out
	if out.Signal == nil && s.ctx.Err() != nil {
		out.Signal = stopSignal(s.ctx)
	}
	*out = s.outcome(nil)
	if n := s.nTraced.Load(); n > 0 && out.Signal != syscall.SIGPIPE {
		fmt.Fprintln(s.stderr, traceSummary(int(n), int(s.tracedReads.Load()), int(s.tracedWrites.Load())))
	}
	if !s.single && out.Signal != syscall.SIGPIPE {
		fmt.Fprintln(s.stderr, summary(*out, s.opts.Color))
	}
	return *out
}

// outcome counts what became of the tasks from their records, as the
// summary line and --summary report them: all of them for vx run, those
// of keep for a round of vx watch. A task "stopped" counts as stopped
// when it is persistent; any other (vx watch stopped it to run it again,
// and it has not yet) was not run.
func (s *scheduler) outcome(keep func(TaskRun) bool) Outcome {
	o := s.out
	o.Tasks = nil
	o.Started, o.Succeeded, o.Cached, o.Remote, o.Skipped, o.Stopped = 0, 0, 0, 0, 0, 0
	o.Failed, o.Flaky = nil, nil
	var failed, flaky []TaskRun
	for _, tr := range s.out.Tasks {
		if keep != nil && !keep(tr) {
			continue
		}
		o.Tasks = append(o.Tasks, tr)
		switch {
		case tr.Status == "cached":
			o.Cached++
			if tr.Cache == "remote-hit" {
				o.Remote++
			}
			fallthrough
		case tr.Status == "succeeded":
			o.Started++
			o.Succeeded++
			if tr.Flaky {
				flaky = append(flaky, tr)
			}
		case tr.Status == "failed":
			o.Started++
			failed = append(failed, tr)
		case tr.Status == "stopped" && tr.Node.Config.Persistent:
			o.Started++
			o.Stopped++
		default:
			o.Skipped++
		}
	}
	byEnd := func(a, b TaskRun) int { return s.endSeq[a.Node.index] - s.endSeq[b.Node.index] }
	slices.SortFunc(failed, byEnd)
	slices.SortFunc(flaky, byEnd)
	for _, tr := range failed {
		o.Failed = append(o.Failed, tr.Node.ID)
	}
	for _, tr := range flaky {
		o.Flaky = append(o.Flaky, tr.Node.ID)
	}
	o.Total = len(o.Tasks)
	o.Elapsed = time.Since(o.Start)
	return o
}

// stallTimer times how long every slot has been held while tasks wait for
// one; it fires once per run, in vx watch once per round
// ([Options.StallWarning]).
type stallTimer struct {
	after  time.Duration // 0: 10s; negative: never
	t      *time.Timer
	c      <-chan time.Time // t's channel while it runs, else nil
	warned bool
}

func (t *stallTimer) wait() time.Duration {
	if t.after == 0 {
		return 10 * time.Second
	}
	return t.after
}

// start starts the timer unless it runs or has fired.
func (t *stallTimer) start() {
	if t.warned || t.after < 0 {
		t.stop()
		return
	}
	if t.t == nil {
		t.t = time.NewTimer(t.wait())
		t.c = t.t.C
	}
}

func (t *stallTimer) stop() {
	if t.t != nil {
		t.t.Stop()
		t.t, t.c = nil, nil
	}
}

func (t *stallTimer) fired() {
	t.warned = true
	t.stop()
}

func insertByIndex(ready []*Node, n *Node) []*Node {
	i := sort.Search(len(ready), func(i int) bool { return ready[i].index > n.index })
	ready = append(ready, nil)
	copy(ready[i+1:], ready[i:])
	ready[i] = n
	return ready
}
