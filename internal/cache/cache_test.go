package cache

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/nodeprog"
	"github.com/vxrun/vx/internal/testdir"
)

// fakeRemote is an in-memory Remote.
type fakeRemote struct {
	mu      sync.Mutex
	ac      map[string][]byte
	cas     map[string][]byte
	gets    int
	updates int
}

func newFakeRemote() *fakeRemote {
	return &fakeRemote{ac: map[string][]byte{}, cas: map[string][]byte{}}
}

func (f *fakeRemote) GetActionResult(ctx context.Context, a Digest) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gets++
	if r, ok := f.ac[a.Hash]; ok {
		return r, nil
	}
	return nil, ErrNotFound
}
func (f *fakeRemote) UpdateActionResult(ctx context.Context, a Digest, r []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates++
	f.ac[a.Hash] = r
	return nil
}
func (f *fakeRemote) FindMissingBlobs(ctx context.Context, ds []Digest) ([]Digest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Digest
	for _, d := range ds {
		if _, ok := f.cas[d.Hash]; !ok {
			out = append(out, d)
		}
	}
	return out, nil
}
func (f *fakeRemote) UploadBlobs(ctx context.Context, bs []BlobSource) error {
	for _, b := range bs {
		data, err := os.ReadFile(b.Path)
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.cas[b.Digest.Hash] = data
		f.mu.Unlock()
	}
	return nil
}
func (f *fakeRemote) ReadBlob(ctx context.Context, d Digest, w io.Writer) error {
	f.mu.Lock()
	data, ok := f.cas[d.Hash]
	f.mu.Unlock()
	if !ok {
		return ErrNotFound
	}
	_, err := w.Write(data)
	return err
}
func (f *fakeRemote) Close() error { return nil }

// TestRemoteOrder: local first, then the remote; a remote hit is written
// locally (the next run does not ask the remote); what a run stores is
// uploaded with every blob it names.
func TestRemoteOrder(t *testing.T) {
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p/dist"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	remote := newFakeRemote()
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}
	open := func(store string) *Cache {
		c, err := New(Options{Dir: store, Root: root, Read: true, Write: true, Remote: remote, RemoteWrite: true, EnvKey: PublicEnvKey()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}

	// Machine 1 builds and uploads.
	c1 := open(testdir.New(t))
	k, err := c1.Key(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c1.Lookup(k); ok {
		t.Fatal("hit in empty caches")
	}
	cp, _ := c1.NewCapture(k)
	cp.Stdout.WriteString("built\n")
	os.WriteFile(filepath.Join(root, "p/dist/out.js"), []byte("out"), 0o644)
	c1.Save(k, cp, filepath.Join(root, "p"))
	c1.Close()
	if remote.updates != 1 || len(remote.cas) < 5 {
		t.Fatalf("upload: %d results, %d blobs; want 1 and the outputs, logs, Action, Command and input list", remote.updates, len(remote.cas))
	}

	// Machine 2, empty local store: a remote hit, restored and kept.
	testdir.RemoveTree(filepath.Join(root, "p/dist"))
	store2 := testdir.New(t)
	c2 := open(store2)
	k2, _ := c2.Key(spec)
	h, ok := c2.Lookup(k2)
	if !ok || !h.Remote {
		t.Fatalf("Lookup on machine 2: hit=%v", ok)
	}
	var out bytes.Buffer
	if err := c2.Restore(h, filepath.Join(root, "p"), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	c2.Close()
	if got, _ := os.ReadFile(filepath.Join(root, "p/dist/out.js")); string(got) != "out" || out.String() != "built\n" {
		t.Errorf("restored %q and logs %q", got, out.String())
	}
	gets := remote.gets
	c3 := open(store2)
	k3, _ := c3.Key(spec)
	if h, ok := c3.Lookup(k3); !ok || h.Remote || remote.gets != gets {
		t.Errorf("second lookup on machine 2: hit=%v remote=%v, remote asked %d more times; want a local hit", ok, h != nil && h.Remote, remote.gets-gets)
	}
	c3.Close()
}

// TestNodeVersionRemembered checks that the version of the node a task
// finds is asked once, not at every run: the store's memo keeps it by the
// program's identity (nodeprog), and it is asked again when the program
// changes.
func TestNodeVersionRemembered(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake node is a shell script")
	}
	bin := testdir.New(t)
	calls := filepath.Join(bin, "calls")
	node := filepath.Join(bin, "node")
	write := func(version string) {
		script := "#!/bin/sh\necho x >> '" + calls + "'\necho " + version + "\n"
		if err := os.WriteFile(node, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		past := time.Now().Add(-10 * time.Second) // not "racily" new
		os.Chtimes(node, past, past)
	}
	write("v20.1.0")
	store := testdir.New(t)
	root := testdir.New(t) // one checkout: in a store outside it, the memo is the checkout's (CheckoutFile)
	env := []string{"PATH=" + bin}
	ask := func() string {
		c, err := New(Options{Dir: store, Root: root, Environ: env, Read: true, Write: true})
		if err != nil {
			t.Fatal(err)
		}
		v := (&nodeprog.Finder{Memo: c.NodeMemo()}).Version(env, bin)
		c.CloseReadOnly()
		return v
	}
	count := func() int {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), "x")
	}
	for run := 1; run <= 3; run++ {
		if v := ask(); v != "v20.1.0" {
			t.Fatalf("run %d: version %q, want v20.1.0", run, v)
		}
	}
	if n := count(); n != 1 {
		t.Errorf("node --version ran %d times in 3 runs, want 1", n)
	}
	write("v22.0.0") // another node at the same path
	if v := ask(); v != "v22.0.0" {
		t.Errorf("after the program changed: version %q, want v22.0.0", v)
	}
	if n := count(); n != 2 {
		t.Errorf("node --version ran %d times, want 2", n)
	}

	// Tasks keyed at once, with nothing in the memo: still asked once.
	c, err := New(Options{Dir: testdir.New(t), Root: testdir.New(t), Environ: env, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	f := &nodeprog.Finder{Memo: c.NodeMemo()}
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v := f.Version(env, bin); v != "v22.0.0" {
				t.Errorf("concurrent ask: %q", v)
			}
		}()
	}
	wg.Wait()
	c.CloseReadOnly()
	if n := count(); n != 3 {
		t.Errorf("50 tasks asking at once ran node --version %d times, want 1", n-2)
	}
}

// TestLockTaskWithoutLocks: a workspace where no lock can be made (its
// node_modules is a file) warns once in the run, whatever the number of
// tasks, and the tasks go on.
func TestLockTaskWithoutLocks(t *testing.T) {
	root := testdir.New(t)
	os.WriteFile(filepath.Join(root, "node_modules"), []byte("not a directory"), 0o644)
	var warn bytes.Buffer
	c, err := New(Options{Dir: testdir.New(t), Root: root, Read: true, Write: true, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a#build", "b#build", "c#build"} {
		k := key.Compute(&TaskSpec{ID: id}, nil, nil, nil)
		unlock, ok := c.LockTask(k)
		if !ok {
			t.Fatalf("%s: LockTask refused", id)
		}
		unlock()
	}
	if n := strings.Count(warn.String(), "cannot lock"); n != 1 {
		t.Errorf("%d warnings, want one:\n%s", n, warn.String())
	}
}

// TestLookupSeesEntryStoredAfterPrefetch: two vx runs of one task; the
// second looked its key up in the background (Prefetch) before it waited
// for the task's lock, and the first stored the entry meanwhile. The
// second's Lookup after the wait is a hit, not the stale miss.
func TestLookupSeesEntryStoredAfterPrefetch(t *testing.T) {
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	store := testdir.New(t)
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}
	open := func() (*Cache, *Key) {
		c, err := New(Options{Dir: store, Root: root, Read: true, Write: true})
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.Key(spec)
		if err != nil {
			t.Fatal(err)
		}
		return c, k
	}
	first, k1 := open()
	second, k2 := open()
	second.Prefetch(k2)
	v, ok := second.prefetched.Load(k2.Action.Hash)
	if !ok {
		t.Fatal("Prefetch started no look")
	}
	<-v.(*prefetch).done // the store has no entry yet

	cp, err := first.NewCapture(k1)
	if err != nil {
		t.Fatal(err)
	}
	cp.Stdout.WriteString("built\n")
	first.Save(k1, cp, filepath.Join(root, "p"))
	first.Close()

	if _, ok := second.Lookup(k2); !ok {
		t.Error("Lookup after another run stored the entry: a miss (the answer of the look made before)")
	}
	second.Close()
}

// TestLockWaitMessage: a task waiting for another vx's lock names its pid;
// when that vx is stopped (Ctrl-Z), it says so, and what to do.
func TestLockWaitMessage(t *testing.T) {
	tests := []struct {
		pid     int
		stopped bool
		want    string
	}{
		{0, false, "web#build: waiting for another vx running it in this workspace"},
		{4242, false, "web#build: waiting for another vx (pid 4242) running it in this workspace"},
		{4242, true, `web#build: waiting for another vx (pid 4242), which holds its lock and is stopped (Ctrl-Z?): resume it with "kill -CONT 4242" (or fg in its terminal), end it, or run this one with --no-lock (it then stores no result)`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, lockWaitMessage("web#build", tt.pid, tt.stopped)); diff != "" {
			t.Errorf("pid %d, stopped %v (-want +got):\n%s", tt.pid, tt.stopped, diff)
		}
	}
	for stat, want := range map[string]ProcState{
		"4242 (vx) T 1 2 3":         ProcStopped,
		"4242 (vx) t 1 2 3":         ProcStopped,
		"4242 (vx) S 1 2 3":         ProcRunning,
		"4242 (a ) T (b) R 1 2 3":   ProcRunning,
		"4242 (odd) name) T 1 2 3 ": ProcStopped,
		"garbage":                   ProcUnknown,
	} {
		if got := parseProcStat([]byte(stat)); got != want {
			t.Errorf("parseProcStat(%q) = %v, want %v", stat, got, want)
		}
	}
}

// TestLockTaskNoLock: with NoLock, a task held by another vx is neither
// waited for nor locked.
func TestLockTaskNoLock(t *testing.T) {
	root := testdir.New(t)
	store := testdir.New(t)
	held, err := New(Options{Dir: store, Root: root, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	k := key.Compute(&TaskSpec{ID: "p#build"}, nil, nil, nil)
	unlock, ok := held.LockTask(k)
	if !ok {
		t.Fatal("LockTask refused")
	}
	defer unlock()
	c, err := New(Options{Dir: store, Root: root, Read: true, NoLock: true})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bool, 1)
	go func() { u, ok := c.LockTask(k); u(); done <- ok }()
	select {
	case ok := <-done:
		if !ok {
			t.Error("LockTask with NoLock refused")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LockTask with NoLock waited for the lock")
	}
}
