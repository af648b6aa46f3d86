package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	osexec "os/exec"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/quote"
)

// Execute runs g. Dependencies finish before their dependents start.
//
// Cancelling ctx stops the run: no task starts any more, and every running
// task's tree gets the signal the cause names, once, then is killed after
// opts.Grace (see [exec.Start]) or when opts.Kill is closed. The summary
// line of a run of several tasks is left out when the cause is SIGPIPE:
// nobody reads vx's output any more.
func Execute(ctx context.Context, g *Graph, opts Options) Outcome {
	s := newScheduler(ctx, g, opts)
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

// A scheduler runs one graph: it starts each task once its dependencies
// have ended and a slot is free ([scheduler.start]), waits for the next
// event ([scheduler.wait]) and records each task's end
// ([scheduler.ended]); [Options.Observer] hears of both. It is used by one goroutine, Execute's; each
// running task's own goroutine only sends its [result].
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

func newScheduler(ctx context.Context, g *Graph, opts Options) *scheduler {
	if opts.Concurrency < 1 {
		opts.Concurrency = 1
	}
	s := &scheduler{
		g:          g,
		opts:       opts,
		single:     len(g.Nodes) == 1,
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
			if g.inGraph(d) { // vx run --only leaves dependencies out
				s.pending[n.index]++
				s.dependents[d.index] = append(s.dependents[d.index], n)
			}
		}
	}
	s.serve = newServing(g, s.dependents)
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
// end.
func (s *scheduler) startReady() {
	if s.stopping {
		return
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
	spec, closer := s.spec(n)
	if s.ctx.Err() != nil {
		closer()
		return // the run was stopped meanwhile
	}
	s.out.Started++
	s.out.Tasks[n.index].Start = time.Now()
	shown := spec.Stderr // before the cache wraps it to keep the task's logs
	if s.restore(n, &spec, closer) {
		return
	}
	s.serve.wrap(n, &spec)
	s.spawn(n, spec, closer, shown)
	s.beginReady(n)
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
	if opts.Cache == nil || !n.Cacheable {
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
	c := s.opts.Cache
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
	s.out.Cached++
	if c.Status(n) == "remote-hit" {
		tr.Cache = "remote-hit"
		s.out.Remote++
	}
	s.running[n] = nil
	s.started(n)
	go func() { s.results <- result{n: n, closer: closer, end: time.Now(), cached: true} }()
	return true
}

// spawn starts n's scripts and a goroutine that waits for them. A task
// that cannot start ends at once with exit code 127, unless the run was
// stopped meanwhile: then it did not start.
func (s *scheduler) spawn(n *Node, spec exec.Spec, closer func(), shown io.Writer) {
	p, err := startAttempts(s.serve.taskCtx(s.ctx, n), n, spec, policyOf(n, s.opts.Timeout, s.opts.Retries), s.attemptLog(n, shown), s.opts.Cache)
	if err != nil && s.ctx.Err() != nil {
		s.out.Started--
		s.out.Tasks[n.index].Start = time.Time{}
		closer()
		return
	}
	if err != nil {
		err = explainNotFound(err, spec.Env, n.configFile())
		s.started(n)
		end := time.Now()
		s.running[n] = nil
		go func() { s.report(result{n: n, res: exec.Result{ExitCode: 127}, err: err, closer: closer, end: end}) }()
		return
	}
	s.running[n] = p
	s.out.Tasks[n.index].Argv = p.Argv()
	if len(spec.Args) > 0 {
		// The arguments after -- are shown hidden (HideArgs).
		shown := spec
		shown.Args = HideArgs(s.opts.Cache, spec.Args)
		if _, argv, err := exec.Resolve(shown); err == nil {
			s.out.Tasks[n.index].Argv = argv
		}
	}
	s.started(n)
	go func() {
		res, err := p.Wait()
		if res.Trace != nil {
			// Reported where the task's output goes, not in its logs: a
			// hit replays the logs, and the report is of this run.
			s.checkTrace(n, &res, spec.Env, shown)
		}
		s.report(result{n: n, res: res, err: err, closer: closer, end: time.Now(), tries: p.info})
	}()
}

// report hands the end of a task that ran to the loop, after the cache
// has taken it (TaskCache.after): the cache's per-task locks must not
// wait for the loop.
func (s *scheduler) report(r result) {
	if s.opts.Cache != nil {
		s.opts.Cache.after(r.n, r.err == nil && r.res.ExitCode == 0)
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

// wait waits for the next event: a task's end, the run's stop (each tree
// gets its signal from its own watch of ctx), the order to kill every
// tree, or the stall warning's time.
func (s *scheduler) wait() {
	if !s.stopping && len(s.ready) > 0 {
		s.stall.start()
	} else {
		s.stall.stop()
	}
	select {
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
// the dependents start (or, after a failure, marks them blocked).
func (s *scheduler) ended(r result) {
	n := r.n
	released := s.endedServer(&r)
	delete(s.running, n)
	if !n.Config.Persistent {
		s.busy--
	}
	s.stall.stop() // a slot came free: the wait starts again
	failed := r.err != nil || r.res.ExitCode != 0
	s.logs[n.index].end(failed)
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
	if !released {
		s.release(n, failed)
	}
	s.afterEnd(n, failed)
}

// record writes r into the outcome and reports a failure.
func (s *scheduler) record(r result, failed bool) {
	s.out.ExitCode = r.res.ExitCode
	tr := &s.out.Tasks[r.n.index]
	tr.End, tr.ExitCode, tr.Signal, tr.Err = r.end, r.res.ExitCode, r.res.Signal, r.err
	tr.Status = "succeeded"
	s.out.noteAttempts(tr, r.tries)
	switch {
	case failed:
		tr.Status = "failed"
	case r.cached:
		tr.Status = "cached"
	}
	// A persistent task ended by the interrupt that stopped the run did
	// what it is for: it was stopped, it did not fail.
	stopped := failed && s.ctx.Err() != nil && r.n.Config.Persistent && r.err == nil
	stopped = stopped || s.stoppedByVx(r.n) && r.err == nil // its dependents were done
	switch {
	case stopped:
		tr.Status = "stopped"
		s.out.Stopped++
	case !failed:
		s.out.Succeeded++
	default:
		s.out.Failed = append(s.out.Failed, r.n.ID)
		s.reportFailure(r)
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
	out.Skipped = out.Total - out.Started
	out.Elapsed = time.Since(out.Start)
	if n := s.nTraced.Load(); n > 0 && out.Signal != syscall.SIGPIPE {
		fmt.Fprintln(s.stderr, traceSummary(int(n), int(s.tracedReads.Load()), int(s.tracedWrites.Load())))
	}
	if !s.single && out.Signal != syscall.SIGPIPE {
		fmt.Fprintln(s.stderr, summary(*out, s.opts.Color))
	}
	return *out
}

// stallTimer times how long every slot has been held while tasks wait for
// one; it fires once per run ([Options.StallWarning]).
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
