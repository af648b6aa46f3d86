package run

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/watch"
)

// WatchOptions control [Watch].
type WatchOptions struct {
	// The options are as for [Execute] (a graph after [Graph.Only] too),
	// each round as a run (the stall warning comes once a round; an
	// [RoundObserver] hears of each round's end), but for three: a watched
	// task never gets vx's stdin or terminal (vx must get Ctrl-C), its
	// lines are always prefixed, and a failure never stops the others
	// (Continue). Options.Cache is not used: Cache below is.
	Options
	// Changes are the batches of changed files.
	Changes <-chan watch.Batch
	// Cache returns the task cache for tasks about to run again, or nil
	// for none: a cache is asked for at every batch, so that the keys are
	// those of the files as they are now.
	Cache func(nodes []*Node) *TaskCache
	// Store is the cache's store, relative to the root (slash-separated),
	// "" when outside it: no file in it is an input. StoreDir is the
	// same, absolute.
	Store, StoreDir string
	// Written are the files vx itself rewrites after each round (--profile,
	// --summary), relative to the root (slash-separated): a change to
	// them is none.
	Written []string
	// Replan plans the tasks again, after a file the plan is made of
	// changed (vx.json, a package.json); nil: never.
	Replan func() (*Graph, error)
}

// WatchEnd says how [Watch] ended.
type WatchEnd struct {
	// Signal stopped vx watch ([exec.CauseSignal] of ctx; SIGTERM when
	// ctx was cancelled without one); nil when Replan is set.
	Signal os.Signal
	// Replan is the new plan, which differs from the one watched: every
	// task was stopped, and vx watch starts again with it.
	Replan *Graph
}

// Code is vx watch's exit code: 128+N after signal N.
func (e WatchEnd) Code() int { return Outcome{Signal: e.Signal}.Code() }

// Watch runs g's tasks, then, for each batch of changes, runs again the
// tasks whose inputs changed and those that depend on them, in graph
// order, through the cache ([planRerun] decides), until ctx is done.
//
// A task still running when its inputs change is stopped (its tree gets
// SIGTERM, then is killed after Grace) and starts again once its tree is
// gone. A persistent task (a dev server) starts once its dependencies
// have succeeded and starts again only when one of them ran again and its
// outputs changed ([cache.OutputsDigest]; a dependency that declares no
// outputs counts as changed when it ran rather than coming from the
// cache); a change to its own sources leaves it alone. A failed task
// holds back the tasks that depend on it until it succeeds; the others go
// on.
//
// Cancelling ctx ends everything as [Execute] does: each running tree gets
// the signal the cause names, once, and is killed after Grace or when
// Kill is closed; Watch returns once every tree is gone.
func Watch(ctx context.Context, g *Graph, o WatchOptions) WatchEnd {
	o.Continue = true // a failure never stops the others
	w := &watchRun{o: o, wi: newWatchInputs(g, o.Store), state: make([]taskState, len(g.Nodes)),
		changes: o.Changes, live: map[*waveCache]bool{}}
	s := newScheduler(ctx, g, o.Options, w)
	w.scheduler = s
	w.srv = newWatchServing(g, s.dependents)
	defer s.cancel(nil)
	defer s.stall.stop()
	w.later(g.Nodes)
	for {
		s.startReady()
		if w.inRound && !s.stopping && w.idle() {
			w.endRound()
		}
		if s.stopping && len(s.running) == 0 {
			break
		}
		s.wait()
	}
	// Tasks that were to run will not: their caches are done with too.
	for wc := range w.live {
		w.closing = append(w.closing, wc.tc)
	}
	w.closeCaches()
	if w.replan != nil {
		return WatchEnd{Replan: w.replan}
	}
	end := WatchEnd{Signal: stopSignal(s.ctx)}
	if end.Signal != syscall.SIGPIPE {
		if o := w.roundOutcome(); w.inRound && o.Total > 0 {
			o.Signal = end.Signal
			w.observeRound(o)
			fmt.Fprintln(s.stderr, summary(o, s.opts.Color))
		} else {
			fmt.Fprintf(s.stderr, "vx: stopped watching (%s)\n", SignalName(end.Signal))
		}
	}
	return end
}

// A RoundObserver is an [Observer] that vx watch also tells when a round ends: o counts the tasks run since the
// tasks were last idle, as the round's summary line does, and o.Tasks holds what became of them; the last round,
// cut short when vx watch is stopped, ends too (o.Signal set). vx run never calls RoundEnded: its one round is
// [Execute]'s Outcome.
type RoundObserver interface {
	Observer
	RoundEnded(o Outcome)
}

// taskState is what vx watch knows of one task.
type taskState struct {
	waiting bool       // to run (again) once its dependencies have
	again   bool       // running, but stopped to run again
	start   time.Time  // when its last run started; zero: never
	ok      bool       // its last run succeeded
	tc      *waveCache // the cache of its next run
	runTC   *waveCache // the cache its current run started with
	cancel  context.CancelCauseFunc
	// outputs identifies the task's outputs after its last run
	// ([cache.OutputsDigest], or the run's start time when it declares
	// none and ran), for the persistent tasks that depend on it; deps
	// holds, for a running persistent task, those of its dependencies
	// when it started.
	outputs string
	deps    []string

	// The loop guard: end is when the last run ended; selfRuns counts
	// the reruns in a row caused only by changes to selfPaths written
	// while the task ran (the task's own writes, or the user's saves:
	// vx cannot tell which); looping holds the files for which that
	// happened loopLimit times: a change to them made while the task ran
	// reruns it only after loopPause.
	end       time.Time
	selfRuns  int
	selfPaths string
	looping   map[string]bool
}

// loopLimit is how many reruns in a row, each caused by the same files
// written while the task ran, make vx treat those files as the task's own
// outputs; clockLag is how far a file's modification time may lag the
// real time (the kernel's coarse clock ticks every few milliseconds).
//
// loopPause is how long a rerun waits that only changes to such files,
// made while the task ran, cause: a task that writes its own input (a
// timestamp, its pid) reruns at most that often instead of without end,
// and a file the user saves while the task runs (an editor's autosave)
// still reruns it. vx never takes such a file for the task's output: it
// cannot tell the task's writes from the user's without tracing the task.
const (
	loopLimit = 3
	clockLag  = 20 * time.Millisecond
	loopPause = 10 * time.Second
)

// waveCache is a task cache shared by the tasks of one batch, closed
// once none of them will use it any more.
type waveCache struct {
	tc   *TaskCache
	refs int
}

// watchRun is vx watch: a loop of rounds driving a [scheduler]. It says
// which tasks run (again), with which cache and context, and hears of
// each end; the scheduler starts, restores, spawns, waits and records.
type watchRun struct {
	*scheduler
	o  WatchOptions
	wi *watchInputs

	state   []taskState // by Node.index
	replan  *Graph
	changes <-chan watch.Batch
	closing []*TaskCache        // caches no task uses any more, to close when the tasks are idle
	live    map[*waveCache]bool // caches tasks still use
	srv     *watchServing       // the persistent tasks others wait for (watchready.go)

	// inRound: tasks ran since they were last idle; the scheduler's
	// outcome holds what became of them (a task not in the round has the
	// Status ""), and its Start when the round started.
	inRound bool

	// held are the tasks whose rerun waits for heldC (loopPause), and
	// heldPaths the files whose changes caused it.
	held      map[*Node]bool
	heldPaths []string
	heldC     <-chan time.Time
}

// later marks nodes to run (again) once their dependencies have, with a
// new task cache; those still running are stopped first.
func (w *watchRun) later(nodes []*Node) {
	if !w.inRound {
		w.beginRound()
	}
	var wc *waveCache
	if w.o.Cache != nil {
		var cacheable []*Node
		for _, n := range nodes {
			if n.Cacheable {
				cacheable = append(cacheable, n)
			}
		}
		if len(cacheable) > 0 {
			if tc := w.o.Cache(cacheable); tc != nil {
				wc = &waveCache{tc: tc}
				w.live[wc] = true
			}
		}
	}
	for _, n := range nodes {
		st := &w.state[n.index]
		if wc != nil && n.Cacheable {
			if st.tc != st.runTC {
				w.releaseCache(st.tc)
			}
			st.tc = wc
			wc.refs++
		}
		if _, ok := w.running[n]; ok {
			if !st.again {
				st.again = true
				if st.cancel != nil {
					st.cancel(nil) // SIGTERM to the tree, killed after Grace
				}
			}
			continue
		}
		st.waiting = true
	}
	if wc != nil && wc.refs == 0 {
		delete(w.live, wc)
		w.closing = append(w.closing, wc.tc)
	}
}

// releaseCache drops one use of wc, closing its cache after the last.
func (w *watchRun) releaseCache(wc *waveCache) {
	if wc == nil {
		return
	}
	wc.refs--
	if wc.refs == 0 {
		delete(w.live, wc)
		w.closing = append(w.closing, wc.tc)
	}
}

// idle reports whether no task but the persistent ones runs or waits.
func (w *watchRun) idle() bool {
	for _, n := range w.g.Nodes {
		st := &w.state[n.index]
		if n.Config.Persistent {
			continue
		}
		if _, ok := w.running[n]; ok || st.waiting {
			return false
		}
	}
	return true
}

// runnable returns, in graph order, the waiting tasks whose dependencies
// have all ended, for the scheduler to start as slots allow; a task a
// dependency of which failed does not run (nor do the tasks that wait on
// it).
func (w *watchRun) runnable() []*Node {
	var ready []*Node
	for _, n := range w.g.Nodes {
		st := &w.state[n.index]
		if !st.waiting {
			continue
		}
		ok, blocked := true, false
		for _, d := range n.Deps {
			if !w.g.inGraph(d) {
				continue
			}
			ds := &w.state[d.index]
			if d.Config.Persistent { // a server: wait until it is ready
				r, b := w.serverState(d)
				ok, blocked = ok && r, blocked || b
				continue
			}
			if _, running := w.running[d]; running || ds.waiting {
				ok = false
			} else if !ds.ok {
				blocked = true
			}
		}
		switch {
		case !ok:
		case blocked:
			st.waiting, st.ok = false, false
			st.start = time.Time{}
			w.releaseCache(st.tc)
			st.tc = nil
			w.out.Tasks[n.index] = TaskRun{Node: n, Status: "skipped"}
		default:
			ready = append(ready, n)
		}
	}
	return ready
}

// starting notes that n starts now, with the cache of its latest batch.
func (w *watchRun) starting(n *Node) {
	st := &w.state[n.index]
	st.waiting = false
	st.start = time.Now()
	if n.Config.Persistent {
		st.deps = w.depOutputs(n)
	}
	st.runTC = st.tc
}

// runCache is the task cache of n's current run, or nil.
func (w *watchRun) runCache(n *Node) *TaskCache {
	if wc := w.state[n.index].runTC; wc != nil {
		return wc.tc
	}
	return nil
}

// taskCtx is the context n runs in, below ctx: cancelled to stop n alone.
func (w *watchRun) taskCtx(ctx context.Context, n *Node) context.Context {
	ctx, w.state[n.index].cancel = context.WithCancelCause(ctx)
	return ctx
}

// stoppedRun reports whether n's run that ended (failed) was stopped by
// vx watch: to run it again, or because vx watch is stopping or
// replanning. Such a run is never stored, and its failure not reported.
func (w *watchRun) stoppedRun(n *Node, failed bool) bool {
	return w.state[n.index].again || failed && (w.ctx.Err() != nil || w.replan != nil)
}

// ended follows the end of r's task, once the scheduler has recorded it:
// one stopped to run again waits for its dependencies as any task does;
// the outputs of one that succeeded are noted for the persistent tasks
// that depend on it, which start or restart.
func (w *watchRun) ended(r result, failed bool) {
	n := r.n
	st := &w.state[n.index]
	if st.cancel != nil {
		st.cancel(nil)
		st.cancel = nil
	}
	st.end = r.end
	if st.runTC != nil {
		if st.tc != st.runTC {
			w.releaseCache(st.runTC) // it runs next with a newer cache
		} else if !st.again {
			w.releaseCache(st.tc)
			st.tc = nil
		}
		st.runTC = nil
	}
	if st.again {
		st.again, st.waiting = false, true
		return
	}
	st.ok = !failed
	if !failed {
		w.recordOutputs(n, r.cached)
	}
	w.checkPersistent(n)
}

// recordOutputs notes what n's outputs are now, when a persistent task
// depends on it.
func (w *watchRun) recordOutputs(n *Node, cached bool) {
	served := false
	for _, d := range w.dependents[n.index] {
		served = served || d.Config.Persistent
	}
	if !served {
		return
	}
	st := &w.state[n.index]
	if len(n.Config.Outputs) == 0 {
		if !cached || st.outputs == "" {
			st.outputs = "ran at " + st.start.Format(time.RFC3339Nano)
		}
		return
	}
	d, err := cache.OutputsDigest(n.Config.Outputs, n.Project.Dir, w.o.StoreDir)
	if err != nil {
		d = "unreadable at " + time.Now().Format(time.RFC3339Nano)
	}
	st.outputs = d
}

// depOutputs are the outputs of n's dependencies, in n.Deps's order.
func (w *watchRun) depOutputs(n *Node) []string {
	out := make([]string, len(n.Deps))
	for i, d := range n.Deps {
		if w.g.inGraph(d) {
			out[i] = w.state[d.index].outputs
		}
	}
	return out
}

// checkPersistent starts or restarts the persistent tasks that depend on
// n once all of their dependencies have ended well: one that runs
// restarts when a dependency's outputs differ from those it started
// with; one that does not run (its dependencies had failed, or it ended)
// starts.
func (w *watchRun) checkPersistent(n *Node) {
	if w.stopping {
		return
	}
	for _, p := range w.dependents[n.index] {
		if !p.Config.Persistent {
			continue
		}
		ps := &w.state[p.index]
		settled := true
		for _, d := range p.Deps {
			if !w.g.inGraph(d) {
				continue
			}
			ds := &w.state[d.index]
			_, running := w.running[d]
			settled = settled && !running && !ds.waiting && ds.ok
		}
		if !settled || ps.waiting || ps.again {
			continue
		}
		_, running := w.running[p]
		switch {
		case !running:
			if !ps.ok || ps.start.IsZero() {
				ps.waiting = true
			}
		case !reflect.DeepEqual(ps.deps, w.depOutputs(p)):
			fmt.Fprintf(w.stderr, "vx: %s: restarting: %s\n", quote.Name(p.ID), changedDeps(p, ps.deps, w.depOutputs(p)))
			w.later(append([]*Node{p}, w.restartDependents(p)...)) // they run again once it is ready
		}
	}
}

// changedDeps says which of p's dependencies' outputs changed.
func changedDeps(p *Node, before, now []string) string {
	var ids []string
	for i, d := range p.Deps {
		if i < len(before) && before[i] != now[i] {
			ids = append(ids, quote.Name(d.ID))
		}
	}
	return "the outputs of " + listSome(ids, 8) + " changed"
}

// changed handles a batch of changes; !ok: the watch of files ended.
func (w *watchRun) changed(b watch.Batch, ok bool) {
	if !ok {
		w.changes = nil
		return
	}
	b.Changes = slices.DeleteFunc(b.Changes, func(c watch.Change) bool { return slices.Contains(w.o.Written, c.Path) })
	if len(b.Changes) == 0 && !b.Overflow {
		return
	}
	if w.o.Replan != nil {
		if files := planFiles(w.g, b.Changes); len(files) > 0 {
			g2, err := w.o.Replan()
			switch {
			case err != nil:
				fmt.Fprintf(w.stderr, "vx: %s changed, but the tasks cannot be planned again: %v; watching the tasks as they were\n", quote.Name(files[0]), err)
			case !sameGraph(w.g, g2):
				fmt.Fprintf(w.stderr, "vx: %s changed: the tasks changed; stopping them to start again\n", quote.Name(files[0]))
				w.replan, w.stopping = g2, true
				for n := range w.running {
					if c := w.state[n.index].cancel; c != nil {
						c(nil)
					}
				}
				return
			}
		}
	}
	r := planRerun(w.g, w.wi, b, w.skip)
	w.loopGuard(r)
	if len(r.Nodes) == 0 {
		return
	}
	if w.holdBack(r) {
		return
	}
	var stopping []*Node
	for _, n := range r.Nodes {
		if _, ok := w.running[n]; ok && !w.state[n.index].again {
			stopping = append(stopping, n)
		}
	}
	fmt.Fprintf(w.stderr, "vx: %s\n", changedLine(r.Paths, r.Nodes, stopping))
	w.later(r.Nodes)
}

// skip reports whether change c does not rerun n: n's current or next
// run sees it (it has not started yet, or started after c), or the file
// is one vx treats as n's own output (see loopGuard).
func (w *watchRun) skip(n *Node, c watch.Change) bool {
	st := &w.state[n.index]
	return st.waiting || st.again || st.start.After(c.Time)
}

// duringRun reports whether change c to an input of n was made while n
// ran: after its last run started and, unless it still runs, before that
// run ended (a file that is gone says nothing of who removed it).
func (w *watchRun) duringRun(n *Node, c watch.Change) bool {
	st := &w.state[n.index]
	_, running := w.running[n]
	return !st.start.IsZero() && !c.Mod.IsZero() && !c.Mod.Before(st.start.Add(-clockLag)) &&
		(running || !c.Mod.After(st.end))
}

// holdBack holds r back for loopPause when every change that causes it is
// one to a file the loop guard found changing at every run of its task,
// made while the task ran; it reports whether it did. Any other change
// (a file saved while the task is idle) reruns at once.
func (w *watchRun) holdBack(r rerun) bool {
	if len(r.Causes) == 0 {
		return false
	}
	var paths []string
	for n, cs := range r.Causes {
		st := &w.state[n.index]
		for _, c := range cs {
			if !st.looping[c.Path] || !w.duringRun(n, c) {
				return false
			}
			paths = append(paths, c.Path)
		}
	}
	if w.held == nil {
		w.held = map[*Node]bool{}
	}
	for _, n := range r.Nodes {
		w.held[n] = true
	}
	for _, p := range paths {
		if !slices.Contains(w.heldPaths, p) {
			w.heldPaths = append(w.heldPaths, p)
		}
	}
	if w.heldC == nil {
		w.heldC = time.After(loopPause)
	}
	return true
}

// rerunHeld reruns the tasks held back by holdBack, once loopPause is over.
func (w *watchRun) rerunHeld() {
	w.heldC = nil
	var nodes []*Node
	for _, n := range w.g.Nodes {
		if w.held[n] {
			nodes = append(nodes, n)
		}
	}
	paths := w.heldPaths
	w.held, w.heldPaths = nil, nil
	if !w.stopping && len(nodes) > 0 {
		ids := make([]string, len(nodes))
		for i, n := range nodes {
			ids[i] = quote.Name(n.ID)
		}
		fmt.Fprintf(w.stderr, "vx: rerunning %s: %s changed while it ran (held back %s, see above)\n",
			listSome(ids, 8), listSome(quoteAll(paths), 4), loopPause)
		w.later(nodes)
	}
}

func all(ss []string, f func(string) bool) bool {
	for _, s := range ss {
		if !f(s) {
			return false
		}
	}
	return true
}

func quoteAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = quote.Name(p)
	}
	return out
}

// loopGuard slows the loop of a task that changes its own inputs with
// different content at every run (a timestamp, a pid): when the same
// files, changed while the task ran, rerun it loopLimit times in a row,
// vx says so, and from then on a change to them made while the task runs
// reruns it only after loopPause (holdBack). It never takes those files
// for the task's outputs: the changes may be the user's (an editor saving
// a file at every build), and vx cannot tell without tracing the task.
// It reports whether it tripped for any task.
func (w *watchRun) loopGuard(r rerun) bool {
	tripped := false
	for _, n := range r.Nodes {
		cs, ok := r.Causes[n]
		if !ok {
			continue
		}
		st := &w.state[n.index]
		paths := make([]string, len(cs))
		during := true
		for i, c := range cs {
			paths[i] = c.Path
			during = during && w.duringRun(n, c)
		}
		key := strings.Join(paths, "\x00")
		switch {
		case !during:
			st.selfRuns, st.selfPaths = 0, ""
			continue
		case key == st.selfPaths:
			st.selfRuns++
		default:
			st.selfRuns, st.selfPaths = 1, key
		}
		if st.selfRuns < loopLimit {
			continue
		}
		st.selfRuns, st.selfPaths = 0, ""
		if all(paths, func(p string) bool { return st.looping[p] }) {
			continue // said already
		}
		if st.looping == nil {
			st.looping = map[string]bool{}
		}
		for _, p := range paths {
			st.looping[p] = true
		}
		fmt.Fprintf(w.stderr, "vx: %s: %s changed while it ran, %d times in a row: if the task writes %s, declare %s in \"outputs\" in %s "+
			"or ignore %s in .gitignore; vx cannot tell the task's writes from yours, so it still reruns the task, but waits %s when %s while it runs\n",
			quote.Name(n.ID), listSome(quoteAll(paths), 4), loopLimit, plural(len(paths), "it", "them"), plural(len(paths), "it", "them"),
			n.configFile(), plural(len(paths), "it", "them"), loopPause, plural(len(paths), "it changes", "they change"))
		st.selfRuns, st.selfPaths = 0, ""
		tripped = true
	}
	return tripped
}

// beginRound starts a round: no task is in it yet, and the stall warning
// may come again.
func (w *watchRun) beginRound() {
	w.inRound = true
	w.out.Start = time.Now()
	w.stall.warned = false
	for _, n := range w.g.Nodes {
		if !n.Config.Persistent {
			w.out.Tasks[n.index] = TaskRun{Node: n}
		}
	}
}

// roundOutcome counts the round's tasks as the summary line does;
// persistent tasks are not counted.
func (w *watchRun) roundOutcome() Outcome {
	return w.outcome(func(tr TaskRun) bool { return tr.Status != "" && !tr.Node.Config.Persistent })
}

// endRound closes the caches no task uses any more, which waits for the
// round's entries to be stored, and then prints the summary of the tasks
// run since the tasks were last idle: once vx says it is watching, a save
// can no longer be taken for a change made while a task ran.
func (w *watchRun) endRound() {
	w.closeCaches()
	o := w.roundOutcome()
	w.inRound = false
	if o.Total > 0 {
		w.observeRound(o)
		fmt.Fprintf(w.stderr, "%s; watching for changes\n", summary(o, w.opts.Color))
	}
}

// observeRound tells a [RoundObserver] that a round ended with o.
func (w *watchRun) observeRound(o Outcome) {
	if ro, ok := w.opts.Observer.(RoundObserver); ok {
		ro.RoundEnded(o)
	}
}

func (w *watchRun) closeCaches() {
	for _, tc := range w.closing {
		tc.Close()
	}
	w.closing = nil
}

// sameGraph reports whether two plans hold the same tasks with the same
// scripts, declarations and dependencies, made from the same
// configuration files (a config that reads a new file must be watched
// anew).
func sameGraph(a, b *Graph) bool {
	if len(a.Nodes) != len(b.Nodes) || !a.config.equal(b.config) {
		return false
	}
	for i, n := range a.Nodes {
		m := b.Nodes[i]
		if n.ID != m.ID || n.Script != m.Script || n.Pre != m.Pre || n.Post != m.Post || n.Target != m.Target ||
			n.Cacheable != m.Cacheable || n.Project.Dir != m.Project.Dir || !reflect.DeepEqual(n.Config, m.Config) || len(n.Deps) != len(m.Deps) {
			return false
		}
		for j, d := range n.Deps {
			if d.ID != m.Deps[j].ID {
				return false
			}
		}
	}
	return true
}
