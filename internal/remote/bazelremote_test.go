package remote_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testdir"
)

var (
	helperOnce sync.Once
	helperPath string
	helperErr  error
	helperDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if helperDir != "" {
		os.RemoveAll(helperDir)
	}
	os.Exit(code)
}

// helperBinary builds cmd/vx-remote once for the package's tests.
func helperBinary(t *testing.T) string {
	t.Helper()
	helperOnce.Do(func() {
		helperDir, helperErr = os.MkdirTemp("", "vx-remote-test")
		if helperErr == nil {
			helperPath, helperErr = remotetest.BuildHelper(helperDir)
		}
	})
	if helperErr != nil {
		t.Fatal(helperErr)
	}
	return helperPath
}

type warnings struct {
	mu  sync.Mutex
	msg []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.msg = append(w.msg, s); w.mu.Unlock() }
func (w *warnings) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.msg...)
}

func startClient(t *testing.T, cfg remote.Config) (*remote.Client, *warnings) {
	t.Helper()
	w := &warnings{}
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second // a loaded test machine, not a dead server
	}
	c, err := remote.Start(context.Background(), cfg, helperBinary(t), os.Environ(), w.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, w
}

// blob writes data to a file and returns its source.
func blob(t *testing.T, data []byte) cache.BlobSource {
	t.Helper()
	sum := sha256.Sum256(data)
	d := cache.Digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	p := filepath.Join(testdir.New(t), d.Hash)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return cache.BlobSource{Digest: d, Path: p}
}

func digestOf(data []byte) cache.Digest {
	sum := sha256.Sum256(data)
	return cache.Digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}
}

func pb(d cache.Digest) *repb.Digest { return &repb.Digest{Hash: d.Hash, SizeBytes: d.Size} }

// result is an ActionResult naming files and a stdout log.
func result(stdout cache.Digest, files map[string]cache.Digest) []byte {
	r := &repb.ActionResult{StdoutDigest: pb(stdout)}
	for p, d := range files {
		r.OutputFiles = append(r.OutputFiles, &repb.OutputFile{Path: p, Digest: pb(d), IsExecutable: strings.HasSuffix(p, ".sh")})
	}
	b, err := proto.Marshal(r)
	if err != nil {
		panic(err)
	}
	return b
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestBazelRemoteRoundTrip writes blobs (small ones batched, one above the
// 4 MiB batch limit streamed) and a result to a real bazel-remote, then
// reads them back through a second helper, as another machine would.
func TestBazelRemoteRoundTrip(t *testing.T) {
	srv := remotetest.Start(t, remotetest.Options{})
	ctx := ctxT(t)
	w, wWarn := startClient(t, remote.Config{URL: srv.URL, Write: true})

	caps, err := w.Capabilities(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !caps.SHA256 || !caps.UpdateEnabled {
		t.Fatalf("capabilities: %+v, want SHA-256 and updates", caps)
	}

	small := blob(t, []byte("console.log('hi')\n"))
	logb := blob(t, []byte("built in 3ms\n"))
	big := make([]byte, 5<<20+17)
	for i := range big {
		big[i] = byte(i*7 + i>>13)
	}
	large := blob(t, big)
	action := digestOf([]byte("an action"))

	if _, err := w.GetActionResult(ctx, action); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("GetActionResult before any write: %v, want a miss", err)
	}
	srcs := []cache.BlobSource{small, logb, large}
	missing, err := w.FindMissingBlobs(ctx, []cache.Digest{small.Digest, logb.Digest, large.Digest})
	if err != nil || len(missing) != 3 {
		t.Fatalf("FindMissingBlobs on an empty server = %v, %v; want all 3", missing, err)
	}
	if err := w.UploadBlobs(ctx, srcs); err != nil {
		t.Fatal(err)
	}
	if len(srv.WaitLogLines("BYTESTREAM WRITE", 1)) == 0 {
		t.Errorf("the blob above the batch limit did not go through ByteStream; server log:\n%s", srv.Log())
	}
	if len(srv.WaitLogLines("GRPC CAS PUT", 2)) < 2 {
		t.Errorf("the small blobs were not batched; server log:\n%s", srv.Log())
	}
	missing, err = w.FindMissingBlobs(ctx, []cache.Digest{small.Digest, logb.Digest, large.Digest})
	if err != nil || len(missing) != 0 {
		t.Fatalf("FindMissingBlobs after upload = %v, %v; want none", missing, err)
	}
	files := map[string]cache.Digest{"dist/index.js": small.Digest, "dist/run.sh": large.Digest}
	if err := w.UpdateActionResult(ctx, action, result(logb.Digest, files)); err != nil {
		t.Fatal(err)
	}

	r, rWarn := startClient(t, remote.Config{URL: srv.URL})
	got, err := r.GetActionResult(ctx, action)
	if err != nil {
		t.Fatal(err)
	}
	var ar repb.ActionResult
	if err := proto.Unmarshal(got, &ar); err != nil {
		t.Fatal(err)
	}
	if len(ar.OutputFiles) != 2 || ar.StdoutDigest.GetHash() != logb.Digest.Hash {
		t.Fatalf("result read back: %v", &ar)
	}
	for _, f := range ar.OutputFiles {
		if f.IsExecutable != (f.Path == "dist/run.sh") {
			t.Errorf("%s: executable bit %v lost", f.Path, f.IsExecutable)
		}
	}
	var buf bytes.Buffer
	if err := r.ReadBlob(ctx, large.Digest, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), big) {
		t.Fatalf("large blob read back: %d bytes, differs", buf.Len())
	}
	buf.Reset()
	if err := r.ReadBlob(ctx, digestOf([]byte("never stored")), &buf); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("ReadBlob of an unknown blob: %v, want a miss", err)
	}
	if err := r.UpdateActionResult(ctx, action, got); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a read-only client wrote: %v", err)
	}
	if ws := append(wWarn.list(), rWarn.list()...); len(ws) != 0 {
		t.Errorf("warnings on a healthy server: %q", ws)
	}
}

// TestBazelRemoteMissingBlobs: a result whose blobs the server does not
// hold is a miss, never a restore of nothing; so is one whose blob file was
// deleted from the server's directory behind its back (found by the read).
func TestBazelRemoteMissingBlobs(t *testing.T) {
	srv := remotetest.Start(t, remotetest.Options{})
	ctx := ctxT(t)
	c, warn := startClient(t, remote.Config{URL: srv.URL, Write: true})

	out := blob(t, []byte("output"))
	never := digestOf([]byte("a blob nobody uploaded"))
	a1 := digestOf([]byte("action 1"))
	if err := c.UploadBlobs(ctx, []cache.BlobSource{out}); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateActionResult(ctx, a1, result(out.Digest, map[string]cache.Digest{"a": out.Digest, "b": never})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetActionResult(ctx, a1); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("result naming a blob never uploaded: %v, want a miss", err)
	}

	a2 := digestOf([]byte("action 2"))
	if err := c.UpdateActionResult(ctx, a2, result(out.Digest, map[string]cache.Digest{"a": out.Digest})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetActionResult(ctx, a2); err != nil {
		t.Fatal(err)
	}
	files := srv.CASFiles(out.Digest.Hash)
	if len(files) == 0 {
		t.Fatalf("no CAS file for %s under %s", out.Digest.Hash, srv.Dir)
	}
	for _, f := range files {
		os.Remove(f)
	}
	err := c.ReadBlob(ctx, out.Digest, &bytes.Buffer{})
	if !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("reading a blob deleted on the server: %v, want a miss", err)
	}
	if ws := warn.list(); len(ws) != 0 {
		t.Errorf("a miss warned: %q", ws)
	}
}

// TestBazelRemoteSigning: with a signing key, entries are signed over
// their content (bazel-remote rewrites what it stores, adding a worker
// name), and an unsigned entry or one signed with another key is a miss.
func TestBazelRemoteSigning(t *testing.T) {
	srv := remotetest.Start(t, remotetest.Options{})
	ctx := ctxT(t)
	out := blob(t, []byte("signed output"))
	signed := digestOf([]byte("signed action"))
	unsigned := digestOf([]byte("unsigned action"))

	s, _ := startClient(t, remote.Config{URL: srv.URL, Write: true, SigningKey: "team secret 1"})
	u, _ := startClient(t, remote.Config{URL: srv.URL, Write: true})
	if err := s.UploadBlobs(ctx, []cache.BlobSource{out}); err != nil {
		t.Fatal(err)
	}
	res := result(out.Digest, map[string]cache.Digest{"dist/a.js": out.Digest})
	if err := s.UpdateActionResult(ctx, signed, res); err != nil {
		t.Fatal(err)
	}
	if err := u.UpdateActionResult(ctx, unsigned, res); err != nil {
		t.Fatal(err)
	}

	reader, warn := startClient(t, remote.Config{URL: srv.URL, SigningKey: "team secret 1"})
	got, err := reader.GetActionResult(ctx, signed)
	if err != nil {
		t.Fatalf("signed entry: %v", err)
	}
	var ar repb.ActionResult
	proto.Unmarshal(got, &ar)
	if ar.GetExecutionMetadata().GetWorker() == "" {
		t.Logf("note: the server did not add a worker name")
	}
	_, err = reader.GetActionResult(ctx, unsigned)
	if !errors.Is(err, cache.ErrNotFound) || !remote.BadSignature(err) {
		t.Fatalf("unsigned entry with a key set: %v, want a bad-signature miss", err)
	}
	other, _ := startClient(t, remote.Config{URL: srv.URL, SigningKey: "another key"})
	if _, err := other.GetActionResult(ctx, signed); !remote.BadSignature(err) {
		t.Fatalf("entry signed with another key: %v, want a bad-signature miss", err)
	}
	// A signed entry copied under another action's key does not verify:
	// the signature binds the action digest.
	copied := digestOf([]byte("copied action"))
	if err := u.UpdateActionResult(ctx, copied, got); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.GetActionResult(ctx, copied); !remote.BadSignature(err) {
		t.Fatalf("signed entry replayed under another action: %v, want a bad-signature miss", err)
	}
	if strings.Contains(fmt.Sprint(err), "team secret 1") {
		t.Fatal("the signing key appears in an error")
	}
	// A client without the key rewrites the signed entry in place, its
	// signature kept, with a file's mode made 0777: a miss.
	var tampered repb.ActionResult
	if err := proto.Unmarshal(got, &tampered); err != nil {
		t.Fatal(err)
	}
	tampered.OutputFiles[0].NodeProperties = &repb.NodeProperties{UnixMode: wrapperspb.UInt32(0o777)}
	tb, _ := proto.Marshal(&tampered)
	if err := u.UpdateActionResult(ctx, signed, tb); err != nil {
		t.Fatal(err)
	}
	if _, err := reader.GetActionResult(ctx, signed); !remote.BadSignature(err) {
		t.Fatalf("signed entry with a file's mode changed: %v, want a bad-signature miss", err)
	}
	// Three refused entries, one line: the first refusal of the run is
	// said, the rest are misses like any other.
	if ws := warn.list(); len(ws) != 1 || !strings.Contains(ws[0], "the entry is not signed") || !strings.Contains(ws[0], "said once per run") {
		t.Errorf("signature misses warned %q, want one line naming the first", ws)
	}
}

// TestBazelRemoteKilled: the server dies in the middle; the call that finds
// out warns once, and every later call fails at once.
func TestBazelRemoteKilled(t *testing.T) {
	srv := remotetest.Start(t, remotetest.Options{})
	ctx := ctxT(t)
	c, warn := startClient(t, remote.Config{URL: srv.URL, Write: true, Timeout: 2 * time.Second})
	a := digestOf([]byte("action"))
	if _, err := c.GetActionResult(ctx, a); !errors.Is(err, cache.ErrNotFound) {
		t.Fatal(err)
	}
	srv.Stop()
	start := time.Now()
	_, err := c.GetActionResult(ctx, a)
	if err == nil || errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("after the server died: %v, want a fault", err)
	}
	first := time.Since(start)
	start = time.Now()
	for i := 0; i < 20; i++ {
		if _, err := c.GetActionResult(ctx, a); !errors.Is(err, remote.ErrDisabled) {
			t.Fatalf("call %d after the fault: %v, want ErrDisabled", i, err)
		}
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("20 calls after the fault took %v; they must not touch the network", d)
	}
	if first > 3*time.Second {
		t.Errorf("the first call to a dead server took %v, more than its deadline", first)
	}
	if ws := warn.list(); len(ws) != 1 || !strings.Contains(ws[0], "continuing without it") {
		t.Errorf("warnings = %q, want exactly one", ws)
	}
}

// TestBazelRemoteAuthHeader: the header from VX_REMOTE_HEADER is sent on
// every call; a wrong one is a fault whose warning never shows the token.
func TestBazelRemoteAuthHeader(t *testing.T) {
	dir := testdir.New(t)
	sum := sha1Base64("s3cret-password-123")
	pw := filepath.Join(dir, "htpasswd")
	os.WriteFile(pw, []byte("ci:{SHA}"+sum+"\n"), 0o600)
	srv := remotetest.Start(t, remotetest.Options{Args: []string{"--htpasswd_file", pw}})
	ctx := ctxT(t)

	good := "Authorization=Basic " + base64.StdEncoding.EncodeToString([]byte("ci:s3cret-password-123"))
	c, warn := startClient(t, remote.Config{URL: srv.URL, Write: true, Header: good})
	out := blob(t, []byte("authed"))
	if err := c.UploadBlobs(ctx, []cache.BlobSource{out}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetActionResult(ctx, digestOf([]byte("x"))); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("with the right header: %v, want a miss", err)
	}
	if ws := warn.list(); len(ws) != 0 {
		t.Fatalf("warnings with the right header: %q", ws)
	}

	token := base64.StdEncoding.EncodeToString([]byte("ci:wrong-password-456"))
	bad, badWarn := startClient(t, remote.Config{URL: srv.URL, Header: "Authorization=Basic " + token})
	_, err := bad.GetActionResult(ctx, digestOf([]byte("x")))
	if err == nil || errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("with a wrong header: %v, want a fault", err)
	}
	ws := badWarn.list()
	if len(ws) != 1 {
		t.Fatalf("warnings = %q, want one", ws)
	}
	for _, s := range append(ws, err.Error()) {
		if strings.Contains(s, token) || strings.Contains(s, "wrong-password") {
			t.Fatalf("the header's value leaked: %q", s)
		}
	}
	if !strings.Contains(ws[0], "unauthenticated") {
		t.Errorf("warning %q does not say the credentials were refused", ws[0])
	}
}

func sha1Base64(s string) string {
	return base64.StdEncoding.EncodeToString(sha1Sum([]byte(s)))
}

// TestBazelRemoteInstance: results written under one instance name are not
// seen under another (bazel-remote keeps instances apart when asked to).
func TestBazelRemoteInstance(t *testing.T) {
	srv := remotetest.Start(t, remotetest.Options{Args: []string{"--enable_ac_key_instance_mangling"}})
	ctx := ctxT(t)
	out := blob(t, []byte("instance output"))
	a := digestOf([]byte("instance action"))
	c, _ := startClient(t, remote.Config{URL: srv.URL, Instance: "team-a", Write: true})
	if err := c.UploadBlobs(ctx, []cache.BlobSource{out}); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateActionResult(ctx, a, result(out.Digest, map[string]cache.Digest{"o": out.Digest})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetActionResult(ctx, a); err != nil {
		t.Fatalf("same instance: %v", err)
	}
	o, _ := startClient(t, remote.Config{URL: srv.URL, Instance: "team-b"})
	if _, err := o.GetActionResult(ctx, a); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("other instance: %v, want a miss", err)
	}
}
