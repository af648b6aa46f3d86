package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// hangingRemote never finishes an upload until its context ends.
type hangingRemote struct{ *fakeRemote }

func (h hangingRemote) UploadBlobs(ctx context.Context, bs []BlobSource) error {
	<-ctx.Done()
	return ctx.Err()
}

// faultyRemote fails every call the way a dead server does; the Remote
// reports that itself, so the cache must not add a warning per task.
type faultyRemote struct{ *fakeRemote }

func (faultyRemote) GetActionResult(ctx context.Context, a Digest) ([]byte, error) {
	return nil, errors.New("remote: unavailable: connection refused")
}
func (faultyRemote) FindMissingBlobs(ctx context.Context, ds []Digest) ([]Digest, error) {
	return nil, errors.New("remote: unavailable: connection refused")
}

// corruptRemote serves blobs whose content does not match their digest.
type corruptRemote struct{ *fakeRemote }

func (corruptRemote) ReadBlob(ctx context.Context, d Digest, w io.Writer) error {
	_, err := w.Write([]byte("not what the digest says"))
	return err
}

type remoteScenario struct {
	root  string
	spec  *TaskSpec
	files map[string]string // what the task writes to dist/ beside out.js
}

func newRemoteScenario(t *testing.T) *remoteScenario {
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p/dist"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	return &remoteScenario{root: root, spec: &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}}
}

// build runs the "task" and stores its result through c.
func (s *remoteScenario) build(t *testing.T, c *Cache) *Key {
	k, err := c.Key(s.spec)
	if err != nil {
		t.Fatal(err)
	}
	c.Lookup(k)
	cp, _ := c.NewCapture(k)
	cp.Stdout.WriteString("built\n")
	os.WriteFile(filepath.Join(s.root, "p/dist/out.js"), []byte("out"), 0o644)
	for name, content := range s.files {
		os.WriteFile(filepath.Join(s.root, "p/dist", name), []byte(content), 0o644)
	}
	c.Save(k, cp, filepath.Join(s.root, "p"))
	return k
}

// elsewhere makes the project as it is on another machine, which has not
// built it: without its outputs.
func (s *remoteScenario) elsewhere() { testdir.RemoveTree(filepath.Join(s.root, "p/dist")) }

// TestUploadWaitIsBounded: at the end of a run, vx waits for uploads at
// most UploadWait, then says so once and cancels them.
func TestUploadWaitIsBounded(t *testing.T) {
	s := newRemoteScenario(t)
	var warn bytes.Buffer
	c, err := New(Options{Dir: testdir.New(t), Root: s.root, Read: true, Write: true, Warn: &warn,
		Remote: hangingRemote{newFakeRemote()}, RemoteWrite: true, UploadWait: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	s.build(t, c)
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close waited %v with an UploadWait of 200ms", d)
	}
	if got := strings.Count(warn.String(), "not waiting for them"); got != 1 {
		t.Errorf("warnings:\n%s", warn.String())
	}
}

// TestReadOnlyRemoteGetsNothing: without RemoteWrite nothing is uploaded.
func TestReadOnlyRemoteGetsNothing(t *testing.T) {
	s := newRemoteScenario(t)
	r := newFakeRemote()
	c, _ := New(Options{Dir: testdir.New(t), Root: s.root, Read: true, Write: true, Remote: r, EnvKey: PublicEnvKey()})
	s.build(t, c)
	c.Close()
	if r.updates != 0 || len(r.cas) != 0 {
		t.Errorf("a read-only remote received %d results and %d blobs", r.updates, len(r.cas))
	}
}

// TestRemoteFaultsAreNotRepeated: the Remote's own errors do not become a
// cache warning per task.
func TestRemoteFaultsAreNotRepeated(t *testing.T) {
	s := newRemoteScenario(t)
	var warn bytes.Buffer
	c, _ := New(Options{Dir: testdir.New(t), Root: s.root, Read: true, Write: true, Warn: &warn,
		Remote: faultyRemote{newFakeRemote()}, RemoteWrite: true})
	s.build(t, c)
	c.Close()
	if warn.Len() != 0 {
		t.Errorf("the cache repeated the Remote's fault:\n%s", warn.String())
	}
}

// TestCorruptRemoteBlob: a blob from the remote that does not match its
// digest is a miss with one warning, and is not kept.
func TestCorruptRemoteBlob(t *testing.T) {
	s := newRemoteScenario(t)
	good := newFakeRemote()
	c1, _ := New(Options{Dir: testdir.New(t), Root: s.root, Read: true, Write: true, Remote: good, RemoteWrite: true, EnvKey: PublicEnvKey()})
	s.build(t, c1)
	c1.Close()

	s.elsewhere()
	var warn bytes.Buffer
	store := testdir.New(t)
	c2, _ := New(Options{Dir: store, Root: s.root, Read: true, Write: true, Warn: &warn, Remote: corruptRemote{good}, EnvKey: PublicEnvKey()})
	k, _ := c2.Key(s.spec)
	if _, ok := c2.Lookup(k); ok {
		t.Fatal("a corrupt remote blob was a hit")
	}
	c2.Close()
	if !strings.Contains(warn.String(), "does not match its digest") || strings.Count(warn.String(), "\n") != 1 {
		t.Errorf("warnings:\n%s", warn.String())
	}
	entries, _ := filepath.Glob(filepath.Join(store, "ac", "*", "*"))
	if len(entries) != 0 {
		t.Errorf("the corrupt entry was stored locally: %v", entries)
	}
}

// slowRemote serves blobs after a pause and records how many it served at
// once.
type slowRemote struct {
	*fakeRemote
	mu        sync.Mutex
	now, peak int
}

func (s *slowRemote) ReadBlob(ctx context.Context, d Digest, w io.Writer) error {
	s.mu.Lock()
	s.now++
	s.peak = max(s.peak, s.now)
	s.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	s.mu.Lock()
	s.now--
	s.mu.Unlock()
	return s.fakeRemote.ReadBlob(ctx, d, w)
}

// TestRemoteBlobsComeDownInParallel: a remote hit's blobs are fetched
// several at a time, not one round trip after another.
func TestRemoteBlobsComeDownInParallel(t *testing.T) {
	s := newRemoteScenario(t)
	good := newFakeRemote()
	c1, _ := New(Options{Dir: testdir.New(t), Root: s.root, Read: true, Write: true, Remote: good, RemoteWrite: true, EnvKey: PublicEnvKey()})
	s.files = map[string]string{}
	for i := 0; i < 6; i++ {
		s.files[fmt.Sprintf("f%d.js", i)] = fmt.Sprint("file ", i)
	}
	s.build(t, c1)
	c1.Close()

	s.elsewhere()
	slow := &slowRemote{fakeRemote: good}
	c2, _ := New(Options{Dir: testdir.New(t), Root: s.root, Read: true, Write: true, Remote: slow, EnvKey: PublicEnvKey()})
	k, _ := c2.Key(s.spec)
	h, ok := c2.Lookup(k)
	if !ok || !h.Remote {
		t.Fatal("no remote hit")
	}
	c2.Close()
	if slow.peak < 2 {
		t.Errorf("at most %d blob(s) were fetched at once", slow.peak)
	}
}
