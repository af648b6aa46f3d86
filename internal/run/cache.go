package run

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

// TaskCache connects [Execute] to the task cache: before a cacheable task
// starts it looks its key up (local store, then the remote) and on a hit
// restores the outputs and replays the logs instead of running it; after
// the task exits 0 it stores the result in the background, so dependents
// do not wait for the store.
type TaskCache struct {
	C      *cache.Cache
	WS     *workspace.Workspace // the workspace of the run's tasks
	Parent []string             // vx's environment, which the tasks' environments are made from
	Args   []string             // the arguments after --, for target tasks
	GOOS   string               // "" = the host's
	// Explain: each miss gets its reason ([TaskCache.MissReason]), what
	// changed since the task's last entry; LogMisses also says it on the
	// cache's warning line, one line per missed task.
	Explain, LogMisses bool
	// TraceStrict (vx run --trace=strict): a hit on an entry whose traced
	// run read files outside its key that changed since is a miss; without
	// it, such a hit is restored with a warning.
	TraceStrict bool

	mu      sync.Mutex
	status  map[*Node]string // "hit", "remote-hit" or "miss", for the run's record
	reasons map[*Node]*cache.Why
	keys    map[*Node]*keyFuture
	caps    map[*Node]*cache.Capture
	locks   map[*Node]func() // releases the task's lock (cache.LockTask), held until its result is stored
	envs    map[*Node]*nodeEnv
	saves   sync.WaitGroup
}

// nodeEnv is a task's environment, what of it its key holds and the
// version of its node ([taskEnviron]), made once per run: the key needs
// them, and so does the dry run's plan ([Steps]).
type nodeEnv struct {
	once sync.Once
	env  []string
	key  []cache.Property
	node string
}

// environ returns n's [taskEnviron], made on the first call (the node
// version through the cache's memo).
func (tc *TaskCache) environ(n *Node) *nodeEnv {
	tc.mu.Lock()
	e, ok := tc.envs[n]
	if !ok {
		if tc.envs == nil {
			tc.envs = map[*Node]*nodeEnv{}
		}
		e = &nodeEnv{}
		tc.envs[n] = e
	}
	tc.mu.Unlock()
	e.once.Do(func() {
		if tc.C != nil {
			nodeFinder(tc.WS, tc.GOOS).SetMemo(tc.C.NodeMemo())
		}
		e.env, e.key, e.node = taskEnviron(tc.WS, n, tc.Parent, tc.GOOS)
	})
	return e
}

// taskEnv returns n's environment as [TaskEnv] makes it for ws, parent and
// goos: the one the cache made for its key when tc's run is that run.
func (tc *TaskCache) taskEnv(ws *workspace.Workspace, n *Node, parent []string, goos string) []string {
	if tc == nil || tc.WS != ws || tc.GOOS != goos || !slices.Equal(tc.Parent, parent) {
		return TaskEnv(ws, n, parent, goos)
	}
	return tc.environ(n).env
}

// Key returns n's cache key (computed once per run). The keys of n's
// dependencies are part of it.
func (tc *TaskCache) Key(n *Node) (*cache.Key, error) {
	f, first := tc.future(n)
	if first {
		tc.computeKey(n, f, tc.spec(n))
	}
	<-f.done
	return f.key, f.err
}

// Start reads the files the keys of nodes (the run's tasks and their
// dependencies) can cover, and computes the keys of the cacheable ones in
// the background, each in its own goroutine: the bulk of a key, its input
// files, does not wait for the keys of its dependencies, so a chain of
// tasks is keyed on all CPUs, and its specs while the workspace's files
// are still being read.
func (tc *TaskCache) Start(nodes []*Node) {
	scope := make([]*cache.TaskSpec, 0, len(nodes))
	for _, n := range nodes {
		scope = append(scope, &cache.TaskSpec{RelDir: n.Project.RelDir, Inputs: n.Config.Inputs, SourceDeps: sourceDirs(n)})
	}
	tc.C.Prepare(scope)
	// A new run (vx watch's next batch too): node's pins are read anew.
	nodeFinder(tc.WS, tc.GOOS).Reset(tc.C.NodeMemo())
	var todo []*Node
	var futs []*keyFuture
	for _, n := range nodes {
		if !n.Cacheable {
			continue // its key is computed if a dependent's needs it
		}
		if f, first := tc.future(n); first {
			todo, futs = append(todo, n), append(futs, f)
		}
	}
	// A worker per CPU takes the nodes in the graph's order, dependencies
	// first, so that a key's wait for its dependencies' keys is short.
	// The specs come first: they need no files, which are still being
	// read.
	specs := make([]*cache.TaskSpec, len(todo))
	each := func(fn func(i int)) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.NumCPU() {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1)) - 1; i < len(todo); i = int(next.Add(1)) - 1 {
					fn(i)
				}
			}()
		}
		wg.Wait()
	}
	go func() {
		each(func(i int) { specs[i] = tc.spec(todo[i]) })
		each(func(i int) { tc.computeKey(todo[i], futs[i], specs[i]) })
	}()
}

// keyFuture is a key being computed; done is closed when it is.
type keyFuture struct {
	done chan struct{}
	key  *cache.Key
	err  error
}

// future returns n's future, and whether the caller created it (and must
// compute it).
func (tc *TaskCache) future(n *Node) (*keyFuture, bool) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if f, ok := tc.keys[n]; ok {
		return f, false
	}
	if tc.keys == nil {
		tc.keys = map[*Node]*keyFuture{}
	}
	f := &keyFuture{done: make(chan struct{})}
	tc.keys[n] = f
	return f, true
}

func (tc *TaskCache) computeKey(n *Node, f *keyFuture, spec *cache.TaskSpec) {
	f.key, f.err = tc.makeKey(n, spec)
	if f.err == nil && n.Cacheable {
		tc.C.Prefetch(f.key)
	}
	close(f.done)
}

func (tc *TaskCache) makeKey(n *Node, spec *cache.TaskSpec) (*cache.Key, error) {
	in, err := tc.C.Inputs(spec)
	if err != nil {
		return nil, err
	}
	for _, d := range n.Deps {
		dk, err := tc.Key(d)
		if err != nil {
			return nil, err
		}
		spec.Deps = append(spec.Deps, cache.DepKey{ID: d.ID, Action: dk.Action})
	}
	return tc.C.KeyOf(spec, in), nil
}

// spec gathers what n's key is made of, but for the keys of its
// dependencies.
func (tc *TaskCache) spec(n *Node) *cache.TaskSpec {
	var args []string
	if n.Target {
		args = tc.Args
	}
	// The script, without the shell's path (a machine path); the shell is
	// the platform's (sh, or cmd.exe on Windows), and the platform is in
	// the key. Its arguments follow, hashed (cache.TaskSpec.Args).
	argv := []string{n.Script}
	if n.Pre != "" || n.Post != "" {
		// The pre and post scripts run in the task: part of its key.
		argv = append([]string{"pre:" + n.Pre, "post:" + n.Post}, argv...)
	}
	// What the task sees of its environment, as the key holds it (the
	// node version in its user agent from the memo), and the version of
	// the node it runs: the one its environment (npm_config_user_agent)
	// was made with, remembered in the cache's memo across runs.
	e := tc.environ(n)
	return &cache.TaskSpec{
		ID:      n.ID,
		RelDir:  n.Project.RelDir,
		Argv:    argv,
		Args:    args,
		Env:     e.key,
		Inputs:  n.Config.Inputs,
		Outputs: n.Config.Outputs,
		// The files of the workspace dependencies without the task.
		SourceDeps: sourceDirs(n),
		Node:       e.node,
		ConfigFile: n.configFile(),
	}
}

// sourceDirs returns the directories of n's SourceDeps, from the root.
func sourceDirs(n *Node) []string {
	if len(n.SourceDeps) == 0 {
		return nil
	}
	dirs := make([]string, len(n.SourceDeps))
	for i, p := range n.SourceDeps {
		dirs[i] = p.RelDir
	}
	return dirs
}

// before is called when n is about to start, with the writers its output
// goes to. It returns true when n need not run: its outputs were restored
// and its logs written to stdout and stderr. Otherwise it returns the
// writers to give the task, which also keep its output for the entry.
//
// It first takes n's lock (cache.LockTask), waiting while another vx in
// the workspace looks up, restores, runs or stores the same task; a miss
// keeps it until [TaskCache.after] has stored the result or given it up.
//
// announce, when set, is told what the cache said before anything is
// replayed ("hit", "remote-hit" or "miss", and the key's first 16 hex
// digits); on a hit it returns where to replay the logs.
func (tc *TaskCache) before(n *Node, stdout, stderr io.Writer, announce func(status, key string) (io.Writer, io.Writer)) (bool, io.Writer, io.Writer) {
	if !n.Cacheable {
		return false, stdout, stderr
	}
	k, err := tc.Key(n)
	if err != nil {
		tc.C.Warnf("%s: no cache key: %v; running the task", n.ID, err)
		return false, stdout, stderr
	}
	unlock, ok := tc.C.LockTask(k)
	if !ok {
		return false, stdout, stderr // stopped while waiting: the task does not start
	}
	short := k.Action.Hash[:min(16, len(k.Action.Hash))]
	if h, ok := tc.C.Lookup(k); ok && tc.tracedStillTrue(n, k) {
		st := "hit"
		if h.Remote {
			st = "remote-hit"
		}
		replayOut, replayErr := stdout, stderr
		if announce != nil {
			if o, e := announce(st, short); o != nil {
				replayOut, replayErr = o, e
			}
		}
		if tc.C.Restore(h, n.Project.Dir, replayOut, replayErr) == nil {
			unlock()
			tc.setStatus(n, st)
			return true, stdout, stderr
		}
	}
	tc.mu.Lock()
	if tc.locks == nil {
		tc.locks = map[*Node]func(){}
	}
	tc.locks[n] = unlock
	tc.mu.Unlock()
	tc.C.CountMiss()
	tc.setStatus(n, "miss")
	if announce != nil {
		announce("miss", short)
	}
	tc.C.RemoveLeftovers(k, n.Project.Dir)
	if tc.Explain {
		w := tc.C.ExplainMiss(k)
		tc.mu.Lock()
		if tc.reasons == nil {
			tc.reasons = map[*Node]*cache.Why{}
		}
		tc.reasons[n] = w
		tc.mu.Unlock()
		if tc.LogMisses {
			tc.C.Warnf("%s: cache miss: %s", quote.Name(n.ID), w.Reason)
		}
	}
	cp, err := tc.C.NewCapture(k)
	if err != nil {
		tc.C.Warnf("%s: not cached: %v", n.ID, err)
		return false, stdout, stderr
	}
	tc.mu.Lock()
	if tc.caps == nil {
		tc.caps = map[*Node]*cache.Capture{}
	}
	tc.caps[n] = cp
	tc.mu.Unlock()
	return false, cp.Tee(stdout, cp.Stdout), cp.Tee(stderr, cp.Stderr)
}

func (tc *TaskCache) setStatus(n *Node, st string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.status == nil {
		tc.status = map[*Node]string{}
	}
	tc.status[n] = st
}

// Status says how the cache served n: "hit" (the local store), "remote-hit"
// (the remote cache; now in the local store too), "miss", or "" when n was
// not looked up.
func (tc *TaskCache) Status(n *Node) string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.status[n]
}

// MissReason says why n missed the cache, when the run explains its
// misses (Explain) and n missed; else nil.
func (tc *TaskCache) MissReason(n *Node) *cache.Why {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return tc.reasons[n]
}

// Why says, for each of nodes, whether it would hit the cache now and,
// when not, what changed since its last entry, following the dependencies
// whose keys changed; each comparison is made once in the answers, the
// first time (`vx why`).
func (tc *TaskCache) Why(nodes []*Node) []*cache.Why {
	byID := map[string]*Node{}
	var walk func(*Node)
	walk = func(m *Node) {
		for _, d := range m.Deps {
			if byID[d.ID] == nil {
				byID[d.ID] = d
				walk(d)
			}
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	x := tc.C.NewExplainer(func(id string) *cache.Key {
		d := byID[id]
		if d == nil {
			return nil
		}
		dk, err := tc.Key(d)
		if err != nil {
			return nil
		}
		return dk
	})
	out := make([]*cache.Why, 0, len(nodes))
	for _, n := range nodes {
		if !n.Cacheable {
			out = append(out, &cache.Why{ID: n.ID, Cache: "off", Reason: NotCachedReason(n), Changes: []cache.Change{}})
			continue
		}
		k, err := tc.Key(n)
		if err != nil {
			out = append(out, &cache.Why{ID: n.ID, Cache: "miss", Reason: fmt.Sprintf("no cache key: %v", err), Changes: []cache.Change{}})
			continue
		}
		out = append(out, x.Why(k))
	}
	return out
}

// NotCachedReason says why n is not cached.
func NotCachedReason(n *Node) string {
	switch {
	case n.Config.Persistent:
		return `not cached: the task is persistent ("persistent": true in its configuration)`
	case n.Config.NoCache:
		return `not cached: "cache": false in its configuration`
	}
	return "not cached: the configuration (" + n.configFile() + ") has no entry for " + quote.Q(n.Task) + " (a script without one never is)"
}

// after is called when n ended; ok is true when it exited 0. It is
// called from the goroutine that saw n end, not from [Execute]'s loop,
// which may be waiting for another task's lock: n's lock must be released
// whatever the loop does, or two vx runs that each wait for a task the
// other holds would wait for ever.
func (tc *TaskCache) after(n *Node, ok bool) {
	tc.mu.Lock()
	cp := tc.caps[n]
	delete(tc.caps, n)
	unlock := tc.locks[n]
	delete(tc.locks, n)
	f := tc.keys[n]
	tc.mu.Unlock()
	if unlock == nil {
		unlock = func() {}
	}
	if cp == nil {
		unlock()
		return // not captured: not cacheable, a hit, or the capture failed
	}
	k := f.key // a captured task has its key
	if !ok {
		cp.Discard()
		unlock()
		return
	}
	tc.saves.Add(1)
	go func() {
		defer tc.saves.Done()
		defer unlock()
		tc.C.Save(k, cp, n.Project.Dir)
	}()
}

// tracedStillTrue checks a hit on k against what a traced run of its
// entry read outside its key (vx run --trace): when one of those files
// changed since, the hit may be wrong. It says so, and the hit is kept
// (false only with TraceStrict).
func (tc *TaskCache) tracedStillTrue(n *Node, k *cache.Key) bool {
	changed := tc.C.TracedChanged(k)
	if len(changed) == 0 {
		return true
	}
	what := quote.Q(changed[0])
	if len(changed) > 1 {
		what += fmt.Sprintf(" and %d more", len(changed)-1)
	}
	if tc.TraceStrict || n.Config.Trace == "strict" {
		tc.C.Warnf("%s: not restored from the cache: its traced run read %s outside its key, which changed since (--trace=strict); add it to its inputs", quote.Name(n.ID), what)
		return false
	}
	tc.C.Warnf("%s: restored from the cache, but its traced run read %s outside its key, which changed since: add it to its inputs (%s), or run with --force", quote.Name(n.ID), what, quote.Q(inputLine(n, changed[0])))
	return true
}

// Close waits for the results being stored and closes the cache. The
// captures and locks of tasks that never ended (the run was stopped as
// they were about to start) are dropped.
func (tc *TaskCache) Close() cache.Stats {
	tc.saves.Wait()
	tc.mu.Lock()
	for n, cp := range tc.caps {
		cp.Discard()
		delete(tc.caps, n)
	}
	for n, unlock := range tc.locks {
		unlock()
		delete(tc.locks, n)
	}
	tc.mu.Unlock()
	return tc.C.Close()
}
