package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/outputs"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/nodeprog"
)

// Options configure [New].
type Options struct {
	Dir     string   // the store's directory
	Root    string   // the workspace root, absolute
	Environ []string // vx's environment: git is looked up in its PATH and run with it
	// Read and Write say whether entries are looked up and stored:
	// --force is Write only, --no-cache neither (then New is not called).
	Read, Write bool
	// Warn receives the cache's warnings, one line each ("vx: ..."): an
	// unusable entry, a result not stored. nil discards them.
	Warn io.Writer
	// Remote, when set, is asked after a local miss, and receives what a
	// run stores when RemoteWrite is set (in the background; [Cache.Close]
	// waits for it, at most UploadWait). The Remote reports its own faults
	// (once per run); the cache stays silent about errors of its calls.
	Remote      Remote
	RemoteWrite bool
	// UploadWait bounds how long Close waits for uploads still running;
	// 0 = DefaultUploadWait. Uploads still running then are cancelled.
	UploadWait time.Duration
	// Context ends every remote call and wait of the cache when it is done
	// (Ctrl-C): lookups and downloads stop, Close stops waiting for
	// uploads. nil = never.
	Context context.Context
	// DryRun: the run only shows keys and whether the caches hold them
	// (--dry-run); a remote entry is looked up but never downloaded.
	DryRun bool
	// MaxSize is the store's size cap applied by Close after a run that
	// stored something: least recently used entries go first. 0 = 5 GiB,
	// negative = no cap.
	MaxSize int64
	GOOS    string // "" = runtime.GOOS
	GOARCH  string // "" = runtime.GOARCH
	// Version is vx's version, recorded with each task's last entry
	// ([LastUse]) for `vx why`.
	Version string
	// EnvKey hashes the values of the keys' variables; nil: the store's
	// own ([store.Store.Secret]). The caller chooses ([SigningEnvKey] with a
	// remote cache's signing key, [PublicEnvKey] with a remote cache
	// without one), so that keys match where entries are shared.
	EnvKey *EnvKey
	// NoLock: take no task lock and wait for none (--no-lock); such a run
	// must not store results (the caller leaves Write unset).
	NoLock bool
	// ProcState says whether a process is stopped, for the message of a
	// task waiting for another vx's lock; nil = the host's ([procStopped]).
	ProcState func(pid int) ProcState
	// Projects are the workspace's projects' directories (slash-separated,
	// relative to Root; "." the root). Yarn classic's yarn.lock lists no
	// projects: it is read with their package.json files. nil: such a
	// lockfile is keyed by its bytes.
	Projects []string
}

// DefaultMaxSize is the store's default size cap.
const DefaultMaxSize = 5 << 30

// DefaultUploadWait is how long a run waits at its end for uploads to the
// remote cache that are still running.
const DefaultUploadWait = 30 * time.Second

// Cache is the task cache of one run.
type Cache struct {
	opts  Options
	store *store.Store
	keys  *key.Computer
	// needles are the forms of the checkout's absolute path that make a
	// result root-bound (see rootbound.go).
	needles []string

	mu         sync.Mutex
	prefetched sync.Map // action hash → *prefetch
	hits       int
	misses     int
	stored     int
	warned     map[string]bool

	bg           sync.WaitGroup  // records of last use being written
	ctx          context.Context // Options.Context
	remoteSem    chan struct{}   // bounds the remote lookups (with their downloads) at once
	uploads      sync.WaitGroup
	uploadCtx    context.Context // cancelled when Close stops waiting
	cancelUpload context.CancelFunc
	remoteHits   int
}

// remoteLookups bounds the tasks looked up in the remote cache at once
// (each with its blobs, remoteFetches at a time).
const remoteLookups = 8

// remoteCallError marks an error that a Remote call returned: the Remote
// has reported it already (or it is a miss), so the cache does not warn.
type remoteCallError struct{ err error }

func (e *remoteCallError) Error() string { return e.err.Error() }
func (e *remoteCallError) Unwrap() error { return e.err }

func fromRemote(err error) error {
	if err == nil {
		return nil
	}
	return &remoteCallError{err}
}

// New opens the store and prepares a cache for one run.
func New(o Options) (*Cache, error) {
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.GOARCH == "" {
		o.GOARCH = runtime.GOARCH
	}
	if o.MaxSize == 0 {
		o.MaxSize = DefaultMaxSize
	}
	st, err := store.OpenStore(o.Dir)
	if err != nil {
		return nil, err
	}
	ek := o.EnvKey
	if ek == nil {
		secret, err := st.Secret()
		if err != nil {
			return nil, err
		}
		ek = key.StoreEnvKey(secret)
	}
	if o.UploadWait == 0 {
		o.UploadWait = DefaultUploadWait
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	c := &Cache{opts: o, store: st, warned: map[string]bool{}, ctx: o.Context,
		remoteSem: make(chan struct{}, remoteLookups)}
	c.uploadCtx, c.cancelUpload = context.WithCancel(o.Context)
	ko := key.Options{Root: o.Root, Environ: o.Environ, Blobs: st, Write: o.Write, DryRun: o.DryRun, EnvKey: ek,
		GOOS: o.GOOS, GOARCH: o.GOARCH, Projects: o.Projects, Warn: c.warn,
		Memo: store.CheckoutFile(o.Dir, o.Root, "memo"), LockMemo: filepath.Join(o.Dir, "lockfile-memo")}
	if rel, err := filepath.Rel(o.Root, o.Dir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		ko.Skip = filepath.ToSlash(rel)
	}
	c.keys = key.New(ko)
	top := o.Root
	if co := store.FindCheckout(o.Root); co.Top != "" {
		top = co.Top
	}
	resolved, _ := filepath.EvalSymlinks(top)
	c.needles = rootNeedles(top, resolved, o.GOOS)
	return c, nil
}

// Store returns the local store.
func (c *Cache) Store() *store.Store { return c.store }

// Prepare starts reading, in the background, the files the keys of tasks
// can cover ([key.Computer.Prepare]).
func (c *Cache) Prepare(tasks []*TaskSpec) { c.keys.Prepare(tasks) }

// Key returns the key of t from the workspace's files as they were when
// the run started.
func (c *Cache) Key(t *TaskSpec) (*Key, error) { return c.keys.Key(t) }

// Inputs returns t's input files as they were when the run started: most
// of the work of its key, which does not need t.Deps.
func (c *Cache) Inputs(t *TaskSpec) (Inputs, error) { return c.keys.Inputs(t) }

// KeyOf returns the key of t, whose input files are in.
func (c *Cache) KeyOf(t *TaskSpec, in Inputs) *Key { return c.keys.KeyOf(t, in) }

// NodeMemo returns the memo in which a [nodeprog.Finder] keeps the
// versions of the node programs it found, across runs.
func (c *Cache) NodeMemo() nodeprog.Memo { return c.keys.NodeMemo() }

// HideArg returns an argument after -- as the key holds it and as vx
// shows it ([key.Computer.HideArg]).
func (c *Cache) HideArg(a string) string { return c.keys.HideArg(a) }

// Warnf writes one warning line, once per run for the same text.
func (c *Cache) Warnf(format string, args ...any) { c.warn(format, args...) }

func (c *Cache) warn(format string, args ...any) {
	if c.opts.Warn == nil {
		return
	}
	msg := fmt.Sprintf(format, args...)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warned[msg] {
		return
	}
	c.warned[msg] = true
	fmt.Fprintf(c.opts.Warn, "vx: %s\n", msg)
}

// Hit is a usable cache entry.
type Hit struct {
	key    *Key
	result *reapi.ActionResult
	Remote bool // found in the remote cache (and now stored locally too)
}

// Elapsed returns how long the task took when its result was stored, or 0.
func (h *Hit) Elapsed() time.Duration {
	if h.result.Start.IsZero() || h.result.End.IsZero() {
		return 0
	}
	return h.result.End.Sub(h.result.Start)
}

// Lookup returns the entry for k, from the local store, else from the
// remote (what [Cache.Prefetch] found, or a look of its own). A damaged,
// incomplete or unsafe entry is a miss with a warning. It returns a miss
// at once when the cache's Context ends.
func (c *Cache) Lookup(k *Key) (*Hit, bool) {
	if !c.opts.Read {
		return nil, false
	}
	p := c.prefetchOf(k, true)
	select {
	case <-p.done:
	case <-c.ctx.Done():
		return nil, false
	}
	if p.err == nil {
		return p.hit, true
	}
	if !errors.Is(p.err, ErrNotFound) {
		c.warn("%s: cache entry %s unusable (%v); running the task", k.Spec().ID, short(k.Action), p.err)
	}
	if c.opts.Remote != nil {
		select {
		case <-p.remoteDone:
		case <-c.ctx.Done():
			return nil, false
		}
		if p.remoteErr == nil {
			return p.remoteHit, true
		}
		var rce *remoteCallError
		if !errors.Is(p.remoteErr, ErrNotFound) && !errors.As(p.remoteErr, &rce) && c.ctx.Err() == nil {
			c.warn("%s: remote cache: %v; running the task", k.Spec().ID, p.remoteErr)
		}
	}
	if errors.Is(p.err, ErrNotFound) {
		// The look was made when the key was computed, before the task's
		// lock: another vx run that held the lock may have stored the
		// entry since. One more read of the store costs less than the run.
		hit, err := c.readLocal(k)
		if err == nil {
			return hit, true
		}
		var be *BoundElsewhereError
		if errors.As(err, &be) {
			c.warn("%s: cache miss: %v", k.Spec().ID, be) // as --explain-misses says it: one line
		}
	}
	return nil, false
}

// RemoteHas reports whether the remote cache holds a usable entry for k
// (its blobs present on the server, its signature valid when signing is
// on), without downloading it: what --dry-run shows. It asks only when
// the local store has none.
func (c *Cache) RemoteHas(k *Key) bool {
	if c.opts.Remote == nil || !c.opts.Read {
		return false
	}
	p := c.prefetchOf(k, true)
	select {
	case <-p.remoteDone:
	case <-c.ctx.Done():
		return false
	}
	return p.remoteErr == nil
}

// HasRemote reports whether the cache has a remote.
func (c *Cache) HasRemote() bool { return c.opts.Remote != nil }

// Has reports whether the local store holds a usable entry for k, without
// restoring it: what [Cache.Prefetch] found, else a fresh look. A
// prefetch that found none is left for RemoteHas.
func (c *Cache) Has(k *Key) bool {
	v, ok := c.prefetched.Load(k.Action.Hash)
	if !ok {
		_, err := c.readLocal(k)
		return err == nil
	}
	p := v.(*prefetch)
	select {
	case <-p.done:
	case <-c.ctx.Done():
		return false
	}
	if p.err == nil || c.opts.Remote == nil {
		c.prefetched.Delete(k.Action.Hash)
	}
	return p.err == nil
}

// Hit counts a restored entry, Miss a task that ran, for the summary of
// the run that `vx cache status` shows.
func (c *Cache) countHit()  { c.mu.Lock(); c.hits++; c.mu.Unlock() }
func (c *Cache) CountMiss() { c.mu.Lock(); c.misses++; c.mu.Unlock() }

// Prefetch looks k up in the background, for the Lookup (or Has and
// RemoteHas) that will come: the keys of a run are computed at once, on
// all CPUs, while its tasks are looked up one after another. It looks in
// the local store and, when that has no entry, in the remote cache:
// remoteLookups tasks at a time, so that the latency of the server is paid
// about once per run rather than once per task. A remote hit's blobs come
// down into the local store then, unless the run is a dry run.
func (c *Cache) Prefetch(k *Key) {
	if c.opts.Read {
		c.prefetchOf(k, false)
	}
}

// prefetch is a look for one key; done is closed when the local store's
// answer is in, remoteDone when the remote's is (at once without a
// remote, or after a local hit).
type prefetch struct {
	done       chan struct{}
	hit        *Hit
	err        error
	remoteDone chan struct{}
	remoteHit  *Hit
	remoteErr  error
}

// prefetchOf returns k's look, started now when there is none. take
// removes it (its answer is used once: the store may change after it)
// and never leaves a new one behind; otherwise a new one stays for the
// Lookup to come.
func (c *Cache) prefetchOf(k *Key, take bool) *prefetch {
	p := &prefetch{done: make(chan struct{}), remoteDone: make(chan struct{})}
	var v any
	var loaded bool
	if take {
		v, loaded = c.prefetched.LoadAndDelete(k.Action.Hash)
	} else {
		v, loaded = c.prefetched.LoadOrStore(k.Action.Hash, p)
	}
	if loaded {
		return v.(*prefetch)
	}
	go c.look(k, p)
	return p
}

func (c *Cache) look(k *Key, p *prefetch) {
	defer close(p.remoteDone)
	p.hit, p.err = c.readLocal(k)
	close(p.done)
	p.remoteErr = ErrNotFound
	if p.err == nil || c.opts.Remote == nil {
		return
	}
	select {
	case c.remoteSem <- struct{}{}:
		defer func() { <-c.remoteSem }()
	case <-c.ctx.Done():
		p.remoteErr = c.ctx.Err()
		return
	}
	p.remoteHit, p.remoteErr = c.lookupRemote(k)
}

// readLocal returns the local store's entry for k: the one under k, else
// the one bound to this workspace's root (see rootbound.go). A marker
// under k of another root is a miss, a *BoundElsewhereError.
func (c *Cache) readLocal(k *Key) (*Hit, error) {
	data, err := c.store.GetActionResult(k.Action)
	var elsewhere error
	if err == nil {
		if r, derr := reapi.UnmarshalActionResult(data); derr == nil {
			if root, ok := markerRoot(c.store, r); ok {
				err = ErrNotFound
				if root != c.opts.Root {
					elsewhere = &BoundElsewhereError{Root: root}
				}
			}
		}
	}
	if errors.Is(err, ErrNotFound) {
		data, err = c.store.GetActionResult(boundKey(k.Action, c.opts.Root))
		if errors.Is(err, ErrNotFound) && elsewhere != nil {
			err = elsewhere
		}
	}
	if err != nil {
		return nil, err
	}
	r, err := c.checkResult(k, data)
	if err != nil {
		return nil, err
	}
	for _, d := range r.Blobs() {
		if !c.store.HasBlob(d) {
			return nil, fmt.Errorf("blob %s is missing", short(d))
		}
	}
	return &Hit{key: k, result: r}, nil
}

// checkResult decodes an ActionResult and refuses one vx must not restore.
func (c *Cache) checkResult(k *Key, data []byte) (*reapi.ActionResult, error) {
	r, err := reapi.UnmarshalActionResult(data)
	if err != nil {
		return nil, err
	}
	if r.ExitCode != 0 {
		return nil, fmt.Errorf("the entry is of a run that failed (exit code %d)", r.ExitCode)
	}
	if err := outputs.CheckPaths(k.Spec().Outputs, r); err != nil {
		return nil, fmt.Errorf("refused: %w", err)
	}
	return r, nil
}

// lookupRemote asks the remote for k's entry and, unless the run is a dry
// run, downloads its blobs into the local store and stores the entry
// there. The Remote bounds each call (a lookup by its per-call deadline, a
// download by an idle one); the cache's Context ends it all.
func (c *Cache) lookupRemote(k *Key) (*Hit, error) {
	ctx := c.ctx
	data, err := c.opts.Remote.GetActionResult(ctx, k.Action)
	if err != nil {
		return nil, fromRemote(err)
	}
	r, err := c.checkResult(k, data)
	if err != nil {
		return nil, err
	}
	if c.opts.DryRun {
		return &Hit{key: k, result: r, Remote: true}, nil
	}
	// The blobs come down in parallel (a few at a time): each is a round
	// trip to the server, and a task's outputs are often many small files.
	var need []Digest
	seen := map[string]bool{}
	for _, d := range r.Blobs() {
		if !seen[d.Hash] && !c.store.HasBlob(d) {
			seen[d.Hash] = true
			need = append(need, d)
		}
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make([]error, len(need))
	sem := make(chan struct{}, remoteFetches)
	var wg sync.WaitGroup
	for i, d := range need {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if errs[i] = c.fetchBlob(ctx, d); errs[i] != nil {
				stop()
			}
		}()
	}
	wg.Wait()
	// The first error in the result's order that is not a cancellation
	// caused by another one.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	if err := c.store.UpdateActionResult(k.Action, data); err != nil {
		return nil, err
	}
	return &Hit{key: k, result: r, Remote: true}, nil
}

// remoteFetches bounds the blobs of one remote hit downloaded at once.
const remoteFetches = 8

// fetchBlob downloads blob d from the remote into the store, checking its
// digest.
func (c *Cache) fetchBlob(ctx context.Context, d Digest) error {
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// A failure of the Remote reaches WriteBlob marked as the
		// Remote's (it reported it; a NotFound is a miss).
		pw.CloseWithError(fromRemote(c.opts.Remote.ReadBlob(ctx, d, pw)))
	}()
	_, err := c.store.WriteBlob(d, pr)
	pr.CloseWithError(err)
	<-done
	var rce *remoteCallError
	if errors.As(err, &rce) {
		return err
	}
	if err != nil {
		// What arrived does not match the digest.
		return fmt.Errorf("blob %s from the remote: %w", short(d), err)
	}
	return nil
}

func short(d Digest) string {
	if len(d.Hash) < 12 {
		return d.Hash
	}
	return d.Hash[:12]
}

// Restore puts the hit's outputs in place under the project directory dir
// (files under the output globs that the entry does not hold are removed)
// and then writes its logs to stdout and stderr. On an error nothing of the
// project has been changed unless the error says so, the damaged blob is
// dropped from the store, and the task must run.
func (c *Cache) Restore(h *Hit, dir string, stdout, stderr io.Writer) error {
	logs := make([][]byte, 2)
	for i, d := range []Digest{h.result.StdoutDigest, h.result.StderrDigest} {
		if d.Hash == "" {
			continue
		}
		b, err := c.store.ReadBlob(d)
		if err != nil {
			c.dropBlob(d, err)
			c.warn("%s: cache entry %s unusable (%v); running the task", h.key.Spec().ID, short(h.key.Action), err)
			return err
		}
		logs[i] = b
	}
	if err := outputs.Restore(c.store, h.key.Spec().Outputs, h.result, dir, c.owner(h.key, dir)); err != nil {
		var be *outputs.BlobError
		if errors.As(err, &be) {
			c.dropBlob(be.Digest, be.Err)
		}
		var ce *outputs.ConflictError
		if errors.As(err, &ce) {
			c.warn("%s: not restored from the cache: %v; running the task", h.key.Spec().ID, err)
			return err
		}
		c.warn("%s: cache entry %s unusable (%v); running the task", h.key.Spec().ID, short(h.key.Action), err)
		return err
	}
	c.countHit()
	if c.opts.Write {
		c.bg.Add(1)
		go func() {
			defer c.bg.Done()
			c.store.WriteLast(c.lastUse(h.key))
		}()
	}
	if h.Remote {
		c.mu.Lock()
		c.remoteHits++
		c.mu.Unlock()
	}
	if len(logs[0]) > 0 && stdout != nil {
		stdout.Write(logs[0])
	}
	if len(logs[1]) > 0 && stderr != nil {
		stderr.Write(logs[1])
	}
	return nil
}

// RemoveLeftovers removes, under the project directory dir, the temporary
// files a restore of k's task left when it was killed, before the task
// runs: they are never outputs. The caller holds the task's lock.
func (c *Cache) RemoveLeftovers(k *Key, dir string) {
	if err := outputs.RemoveLeftovers(k.Spec().Outputs, dir, filepath.Clean(c.store.Dir)); err != nil {
		c.warn("%s: %v", k.Spec().ID, err)
	}
}

func (c *Cache) dropBlob(d Digest, err error) {
	if errors.Is(err, store.ErrCorrupt) {
		os.Remove(c.store.BlobPath(d))
	}
}

// Capture is where a running task's output is kept for the entry: two
// files in the store, which [Cache.Save] takes over.
type Capture struct {
	Stdout, Stderr *os.File
	Start          time.Time

	mu     sync.Mutex
	broken error // a write to the files failed: the logs are incomplete

	// inputs[i] is the metadata of the key's input file i as the task
	// started (the zero key.FileStat: not there).
	inputs []key.FileStat

	attempts *attempts // a task that may be retried (attempt.go)
}

// Tee returns a writer that writes to w (nil: nowhere) and keeps a copy
// in f, one of the capture's files. A failure to keep the copy never
// reaches the task; the result is then not stored.
func (cp *Capture) Tee(w io.Writer, f *os.File) io.Writer {
	return &teeWriter{w: w, f: f, cp: cp}
}

type teeWriter struct {
	w  io.Writer
	f  *os.File
	cp *Capture
}

func (t *teeWriter) Write(p []byte) (int, error) {
	t.cp.mu.Lock()
	if t.cp.broken == nil {
		if _, err := t.f.Write(p); err != nil {
			t.cp.broken = err
		}
	}
	t.cp.mu.Unlock()
	if t.w == nil {
		return len(p), nil
	}
	return t.w.Write(p)
}

// NewCapture returns files to copy into the stdout and stderr of the task
// of k, which is about to start, and notes the metadata of k's input files
// as they are now, so that Save can tell a file written while the task ran
// from one that was not, even when its content was put back.
func (c *Cache) NewCapture(k *Key) (*Capture, error) {
	o, err := c.store.TempFile()
	if err != nil {
		return nil, err
	}
	e, err := c.store.TempFile()
	if err != nil {
		o.Close()
		os.Remove(o.Name())
		return nil, err
	}
	return &Capture{Stdout: o, Stderr: e, Start: time.Now(), inputs: key.NoteInputs(c.opts.Root, k.Inputs)}, nil
}

// outputPaths returns the paths of r's files and symbolic links.
func outputPaths(r *reapi.ActionResult) []string {
	var ps []string
	for _, f := range r.OutputFiles {
		ps = append(ps, f.Path)
	}
	for _, s := range r.OutputSymlinks {
		ps = append(ps, s.Path)
	}
	return ps
}

// Discard removes a capture that will not be stored.
func (cp *Capture) Discard() {
	for _, f := range []*os.File{cp.Stdout, cp.Stderr} {
		f.Close()
		os.Remove(f.Name())
	}
}

// Save stores the result of a task that exited 0: its outputs under the
// project directory dir and the captured logs, under k. It does not store
// when the task's inputs changed while it ran (a file was written since
// NewCapture with other content, or a file's content, or the list of
// files, is not what k was computed from), nor
// when an output cannot be kept safely (a symbolic link leaving the
// project); it warns instead. With a remote, the upload continues in the
// background.
func (c *Cache) Save(k *Key, cp *Capture, dir string) {
	defer cp.Discard()
	if !c.opts.Write {
		return
	}
	if err := c.save(k, cp, dir, time.Now()); err != nil {
		c.warn("%s: not cached: %v", k.Spec().ID, err)
	}
}

// save is Save's work, one step after another; an error says why nothing
// was stored. The task ended at end.
func (c *Cache) save(k *Key, cp *Capture, dir string, end time.Time) error {
	if err := c.runWasWhole(cp); err != nil {
		return err
	}
	found, err := c.outputsToStore(k, cp, dir)
	if err != nil {
		return err
	}
	// The user's files under the outputs (key.YoursOf) are inputs that the task
	// may write again with the same content: they count by content.
	yours := key.YoursOf(k)
	snap, err := c.keys.Recheck(k, cp.inputs, cp.Start, yours)
	if err != nil {
		return err
	}
	r, err := c.storeBlobs(k, cp, found, dir, yours)
	if err != nil {
		return err
	}
	r.Start, r.End = cp.Start, end
	data := r.Marshal()
	bound, err := c.storeEntry(k, r, data)
	if err != nil {
		return err
	}
	c.noteStored(k, r, snap, dir)
	if !bound {
		c.startUpload(k, r, data)
	}
	return nil
}

// runWasWhole refuses a run that vx was stopped during, or whose logs were
// not all kept.
func (c *Cache) runWasWhole(cp *Capture) error {
	if c.ctx.Err() != nil {
		// vx was stopped (Ctrl-C, SIGTERM) while the task ran, and passed
		// the signal on: a task that exits 0 on it may not have finished.
		return errors.New("the run was stopped while it ran")
	}
	if cp.broken != nil {
		return fmt.Errorf("keeping its output failed: %w", cp.broken)
	}
	return nil
}

// outputsToStore returns the files and symbolic links k's outputs match
// under dir, but those a failed attempt left ([Capture.dropLeftovers]),
// and warns of each output glob that matched none: said before the inputs
// are checked, it may be why an output is taken for an input that changed
// ("dist" names no file of dist/).
func (c *Cache) outputsToStore(k *Key, cp *Capture, dir string) ([]outputs.Entry, error) {
	found, err := outputs.Find(k.Spec().Outputs, dir, filepath.Clean(c.store.Dir))
	if err != nil {
		return nil, err
	}
	if found, err = cp.dropLeftovers(c, k, dir, found); err != nil {
		return nil, err
	}
	for _, g := range outputs.Unmatched(k.Spec().Outputs, found) {
		c.warn("%s: outputs glob %q matched no file after the task ran%s", k.Spec().ID, g, outputs.UnmatchedHint(dir, g, k.Spec().ConfigFile))
	}
	return found, nil
}

// storeBlobs puts in the store the blobs of k's entry: the outputs found
// under dir but the user's files (yours), both logs, and the key's Action,
// Command and input list. It returns the result that names them.
func (c *Cache) storeBlobs(k *Key, cp *Capture, found []outputs.Entry, dir string, yours map[string]bool) (*reapi.ActionResult, error) {
	r, err := outputs.Store(c.store, found, dir, yours)
	if err != nil {
		return nil, err
	}
	if r.StdoutDigest, err = c.storeLog(cp.Stdout); err != nil {
		return nil, err
	}
	if r.StderrDigest, err = c.storeLog(cp.Stderr); err != nil {
		return nil, err
	}
	action, command, list := k.Parts()
	for _, b := range [][]byte{action, command, list} {
		if _, err := c.store.PutBytes(b); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// storeLog puts one of a capture's files in the store.
func (c *Cache) storeLog(f *os.File) (Digest, error) {
	if err := f.Sync(); err != nil {
		return Digest{}, err
	}
	return c.store.PutFile(f.Name())
}

// storeEntry stores data, the encoding of r, as k's entry: under k, or
// bound to this workspace's root when r holds the root's path
// (rootbound.go).
func (c *Cache) storeEntry(k *Key, r *reapi.ActionResult, data []byte) (bound bool, err error) {
	if bound, err = rootBound(c.store, r, c.needles); err != nil {
		return false, err
	}
	if bound {
		return true, c.saveBound(k, data)
	}
	return false, c.store.UpdateActionResult(k.Action, data)
}

// noteStored records k's entry, just stored, as its task's last, counts
// it, and notes in the memo which of its outputs the task owns now.
func (c *Cache) noteStored(k *Key, r *reapi.ActionResult, snap *key.Snapshot, dir string) {
	c.store.WriteLast(c.lastUse(k))
	c.mu.Lock()
	c.stored++
	c.mu.Unlock()
	c.keys.NoteStored(k, snap, dir, outputPaths(r))
}

// startUpload sends k's entry to the remote cache in the background, when
// the run writes there; Close waits for it.
func (c *Cache) startUpload(k *Key, r *reapi.ActionResult, data []byte) {
	if c.opts.Remote == nil || !c.opts.RemoteWrite {
		return
	}
	c.uploads.Add(1)
	go func() {
		defer c.uploads.Done()
		var rce *remoteCallError
		if err := c.upload(k, r, data); err != nil && !errors.As(err, &rce) {
			c.warn("%s: remote cache: upload failed: %v", k.Spec().ID, err)
		}
	}()
}

// upload sends an entry and its blobs to the remote.
func (c *Cache) upload(k *Key, r *reapi.ActionResult, data []byte) error {
	ctx, cancel := context.WithTimeout(c.uploadCtx, 5*time.Minute)
	defer cancel()
	blobs := append(r.Blobs(), k.Action, k.Command, k.InputRoot)
	missing, err := c.opts.Remote.FindMissingBlobs(ctx, blobs)
	if err != nil {
		return fromRemote(err)
	}
	if len(missing) > 0 {
		src := make([]BlobSource, 0, len(missing))
		for _, d := range missing {
			src = append(src, BlobSource{Digest: d, Path: c.store.BlobPath(d)})
		}
		if err := c.opts.Remote.UploadBlobs(ctx, src); err != nil {
			return fromRemote(err)
		}
	}
	return fromRemote(c.opts.Remote.UpdateActionResult(ctx, k.Action, data))
}

// lastUse is the record of k as its task's last entry.
func (c *Cache) lastUse(k *Key) store.LastUse {
	return store.LastUse{ID: k.Spec().ID, Root: c.opts.Root, Action: k.Action, VX: c.opts.Version, Inputs: k.Spec().Inputs}
}

// CloseReadOnly ends a cache that only computed keys (--dry-run): the
// memo is written and the remote closed, nothing else.
func (c *Cache) CloseReadOnly() {
	c.keys.SaveMemo(filepath.Join(c.store.Dir, "tmp"))
	if c.opts.Remote != nil {
		c.opts.Remote.Close()
	}
}

// Stats are the counts of a run.
type Stats struct {
	Hits, Misses, Stored int
	RemoteHits           int // of Hits, those found in the remote cache
}

// Close waits for uploads, writes the memo and the run's counts, and
// applies the size cap when the run stored something.
func (c *Cache) Close() Stats {
	waited := make(chan struct{})
	go func() { c.uploads.Wait(); close(waited) }()
	notice := time.NewTimer(2 * time.Second) // say why the run has not ended
	defer notice.Stop()
	deadline := time.NewTimer(c.opts.UploadWait)
	defer deadline.Stop()
	for waiting := true; waiting; {
		select {
		case <-waited:
			waiting = false
		case <-c.ctx.Done():
			// Stopped (Ctrl-C): the uploads' calls end with it.
			c.cancelUpload()
			select {
			case <-waited:
			case <-time.After(time.Second):
			}
			waiting = false
		case <-notice.C:
			c.warn("remote cache: waiting for uploads to finish (at most %s)", c.opts.UploadWait)
		case <-deadline.C:
			c.warn("remote cache: uploads still running after %s; not waiting for them", c.opts.UploadWait)
			c.cancelUpload()
			select {
			case <-waited:
			case <-time.After(2 * time.Second):
			}
			waiting = false
		}
	}
	c.cancelUpload()
	c.bg.Wait()
	c.mu.Lock()
	st := Stats{Hits: c.hits, Misses: c.misses, Stored: c.stored, RemoteHits: c.remoteHits}
	c.mu.Unlock()
	c.keys.RecordPending()
	if err := c.keys.SaveMemo(filepath.Join(c.store.Dir, "tmp")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.warn("cache: cannot write the memo: %v", err)
	}
	if err := c.keys.SaveLockMemo(filepath.Join(c.store.Dir, "tmp")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.warn("cache: cannot write the lockfile memo: %v", err)
	}
	c.store.WriteLastRun(store.LastRun{Hits: st.Hits, Misses: st.Misses, Stored: st.Stored, RemoteHits: st.RemoteHits})
	if st.Stored > 0 && c.opts.MaxSize > 0 {
		if _, err := c.store.Prune(store.PruneOptions{MaxSize: c.opts.MaxSize}); err != nil {
			c.warn("cache: pruning the store: %v", err)
		}
	}
	if c.opts.Remote != nil {
		c.opts.Remote.Close()
	}
	return st
}
