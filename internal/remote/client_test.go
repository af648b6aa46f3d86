package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/remote/helper"
	"github.com/vxrun/vx/internal/remote/wire"
)

// Client and Lazy are what vx's cache calls; the package itself does not
// import the cache, so that the vx-remote helper, which links it, does not
// link the cache either.
var (
	_ cache.Remote = (*Client)(nil)
	_ cache.Remote = (*Lazy)(nil)
)

// fake is a backend whose answers the test chooses.
type fake struct {
	calls   atomic.Int32
	get     func(ctx context.Context, d cache.Digest) ([]byte, error)
	read    func(ctx context.Context, d cache.Digest, w io.Writer) error
	update  func(ctx context.Context) error // nil: stored at once
	closed  atomic.Bool
	hello   *wire.Hello
	helloMu sync.Mutex
}

func (f *fake) Capabilities(ctx context.Context) (*wire.Capabilities, error) {
	f.calls.Add(1)
	return &wire.Capabilities{SHA256: true, DigestFunctions: []string{"SHA256"}}, nil
}
func (f *fake) GetActionResult(ctx context.Context, d cache.Digest) ([]byte, error) {
	f.calls.Add(1)
	return f.get(ctx, d)
}
func (f *fake) UpdateActionResult(ctx context.Context, d cache.Digest, r []byte) error {
	f.calls.Add(1)
	if f.update != nil {
		return f.update(ctx)
	}
	return nil
}
func (f *fake) FindMissingBlobs(ctx context.Context, b []cache.Digest) ([]cache.Digest, error) {
	f.calls.Add(1)
	return b[:1], nil
}
func (f *fake) UploadBlobs(ctx context.Context, b []cache.BlobSource) error {
	f.calls.Add(1)
	return nil
}
func (f *fake) ReadBlob(ctx context.Context, d cache.Digest, w io.Writer) error {
	f.calls.Add(1)
	return f.read(ctx, d, w)
}
func (f *fake) Close() error { f.closed.Store(true); return nil }

// pipeClient serves f in process over two pipes, as vx-remote would.
func pipeClient(t *testing.T, f *fake, cfg Config) (*Client, *[]string, func()) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan struct{})
	go func() {
		helper.Serve(inR, outW, func(h *wire.Hello) (wire.Backend, error) {
			f.helloMu.Lock()
			f.hello = h
			f.helloMu.Unlock()
			return f, nil
		})
		outW.Close()
		close(served)
	}()
	var mu sync.Mutex
	var warns []string
	if cfg.URL == "" {
		cfg.URL = "grpc://127.0.0.1:1"
	}
	c, err := NewPipeClient(cfg, inW, outR, func(s string) { mu.Lock(); warns = append(warns, s); mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	kill := func() { inR.CloseWithError(errors.New("killed")); outW.CloseWithError(io.EOF) }
	t.Cleanup(func() { c.Close(); <-served })
	return c, &warns, kill
}

func TestClientOverPipe(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), wire.DataChunk/8+3) // several data frames
	f := &fake{
		get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
			if d.Hash == "miss" {
				return nil, cache.ErrNotFound
			}
			return []byte("result of " + d.Hash), nil
		},
		read: func(ctx context.Context, d cache.Digest, w io.Writer) error {
			_, err := w.Write(big)
			return err
		},
	}
	c, warns, _ := pipeClient(t, f, Config{Write: true, Header: "Authorization=Bearer tok", SigningKey: "k", Instance: "main"})
	ctx := context.Background()
	f.helloMu.Lock()
	if f.hello.Header != "Authorization=Bearer tok" || f.hello.SigningKey != "k" || f.hello.Instance != "main" || f.hello.Version != wire.Version {
		t.Errorf("hello = %+v", f.hello)
	}
	f.helloMu.Unlock()
	got, err := c.GetActionResult(ctx, cache.Digest{Hash: "abc", Size: 3})
	if err != nil || string(got) != "result of abc" {
		t.Fatalf("GetActionResult = %q, %v", got, err)
	}
	if _, err := c.GetActionResult(ctx, cache.Digest{Hash: "miss", Size: 3}); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("miss = %v", err)
	}
	var buf bytes.Buffer
	if err := c.ReadBlob(ctx, cache.Digest{Hash: "big", Size: int64(len(big))}, &buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), big) {
		t.Fatalf("ReadBlob: %d bytes, want %d identical", buf.Len(), len(big))
	}
	m, err := c.FindMissingBlobs(ctx, []cache.Digest{{Hash: "a", Size: 1}, {Hash: "b", Size: 1}})
	if err != nil || len(m) != 1 || m[0].Hash != "a" {
		t.Fatalf("FindMissingBlobs = %v, %v", m, err)
	}
	if err := c.UpdateActionResult(ctx, cache.Digest{Hash: "abc", Size: 3}, []byte("r")); err != nil {
		t.Fatal(err)
	}
	if len(*warns) != 0 {
		t.Errorf("warnings: %q", *warns)
	}
	c.Close()
	if !f.closed.Load() {
		t.Error("closing the client did not close the backend")
	}
}

func TestClientReadOnly(t *testing.T) {
	f := &fake{}
	c, _, _ := pipeClient(t, f, Config{})
	ctx := context.Background()
	if err := c.UpdateActionResult(ctx, cache.Digest{Hash: "a", Size: 1}, nil); err == nil || !strings.Contains(err.Error(), "--remote-write") {
		t.Errorf("UpdateActionResult on a read-only client: %v", err)
	}
	if err := c.UploadBlobs(ctx, []cache.BlobSource{{Digest: cache.Digest{Hash: "a", Size: 1}}}); err == nil {
		t.Error("UploadBlobs on a read-only client succeeded")
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("the backend got %d calls", n)
	}
}

// TestClientFaultOnce: the first fault warns once and turns the remote off;
// later calls never reach the helper.
func TestClientFaultOnce(t *testing.T) {
	f := &fake{get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
		return nil, &wire.Error{Code: wire.CodeUnavailable, Message: "connection refused"}
	}}
	c, warns, _ := pipeClient(t, f, Config{})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); c.GetActionResult(ctx, cache.Digest{Hash: "x", Size: 1}) }()
	}
	wg.Wait()
	before := f.calls.Load()
	for i := 0; i < 10; i++ {
		if _, err := c.GetActionResult(ctx, cache.Digest{Hash: "x", Size: 1}); !errors.Is(err, ErrDisabled) {
			t.Fatalf("after the fault: %v", err)
		}
	}
	if f.calls.Load() != before {
		t.Errorf("calls after the fault reached the backend")
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "unavailable: connection refused") {
		t.Errorf("warnings = %q, want one naming the cause", *warns)
	}
	if c.Fault() == nil {
		t.Error("Fault() = nil after a fault")
	}
}

// TestClientDeadline: a server that never answers costs one per-call
// deadline, then nothing.
func TestClientDeadline(t *testing.T) {
	cancelled := make(chan struct{}, 1)
	f := &fake{get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
		<-ctx.Done()
		cancelled <- struct{}{}
		return nil, ctx.Err()
	}}
	c, warns, _ := pipeClient(t, f, Config{Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.GetActionResult(context.Background(), cache.Digest{Hash: "x", Size: 1})
	if err == nil || errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("err = %v, want a fault", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v with a 200ms deadline", d)
	}
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Error("the helper's call was not cancelled at its deadline")
	}
	if len(*warns) != 1 {
		t.Errorf("warnings = %q", *warns)
	}
}

// TestClientCallerCancels: a caller giving up is not the remote's fault.
func TestClientCallerCancels(t *testing.T) {
	f := &fake{get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	c, warns, _ := pipeClient(t, f, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := c.GetActionResult(ctx, cache.Digest{Hash: "x", Size: 1}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if len(*warns) != 0 || c.Fault() != nil {
		t.Errorf("a cancelled call turned the remote off: %q", *warns)
	}
}

// TestClientOverlap: a slow blob read does not hold up a lookup.
func TestClientOverlap(t *testing.T) {
	release := make(chan struct{})
	f := &fake{
		get: func(ctx context.Context, d cache.Digest) ([]byte, error) { return []byte("r"), nil },
		read: func(ctx context.Context, d cache.Digest, w io.Writer) error {
			w.Write([]byte("part"))
			<-release
			_, err := w.Write([]byte("rest"))
			return err
		},
	}
	c, _, _ := pipeClient(t, f, Config{})
	done := make(chan error, 1)
	var buf bytes.Buffer
	go func() { done <- c.ReadBlob(context.Background(), cache.Digest{Hash: "b", Size: 8}, &buf) }()
	if _, err := c.GetActionResult(context.Background(), cache.Digest{Hash: "a", Size: 1}); err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-done; err != nil || buf.String() != "partrest" {
		t.Fatalf("ReadBlob = %q, %v", buf.String(), err)
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

// TestClientLocalWriteError: failing to store a received blob is vx's
// problem, not the remote's.
func TestClientLocalWriteError(t *testing.T) {
	f := &fake{read: func(ctx context.Context, d cache.Digest, w io.Writer) error {
		w.Write([]byte("data"))
		return nil
	}}
	c, warns, _ := pipeClient(t, f, Config{})
	err := c.ReadBlob(context.Background(), cache.Digest{Hash: "b", Size: 4}, failWriter{})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if len(*warns) != 0 || c.Fault() != nil {
		t.Errorf("a local write error turned the remote off")
	}
}

// TestClientHelperDies: calls waiting on a helper that exits fail with a
// fault, once.
func TestClientHelperDies(t *testing.T) {
	started := make(chan struct{})
	f := &fake{get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	c, warns, kill := pipeClient(t, f, Config{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.GetActionResult(context.Background(), cache.Digest{Hash: "x", Size: 1})
		errc <- err
	}()
	<-started
	kill()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "vx-remote") {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call outlived the helper")
	}
	if len(*warns) != 1 {
		t.Errorf("warnings = %q", *warns)
	}
}

// TestClientVersionMismatch: a helper from another version is refused with
// a message that says how to fix it.
func TestClientVersionMismatch(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		f, _ := wire.ReadFrame(inR)
		b, _ := json.Marshal(&wire.Response{Version: 99, Error: &wire.Error{Code: wire.CodeProtocol, Message: "vx speaks protocol 1, this vx-remote speaks 99"}})
		wire.WriteFrame(outW, wire.Frame{Kind: wire.KindResponse, ID: f.ID, Payload: b})
		io.Copy(io.Discard, inR)
		outW.Close()
	}()
	_, err := NewPipeClient(Config{URL: "grpc://h:1"}, inW, outR, nil)
	if err == nil || !strings.Contains(err.Error(), "go install") {
		t.Fatalf("err = %v", err)
	}
}

func TestLazy(t *testing.T) {
	starts := 0
	l := NewLazy(func() (*Client, error) { starts++; return nil, errors.New("no helper") })
	if starts != 0 {
		t.Fatal("started before a call")
	}
	for i := 0; i < 3; i++ {
		if _, err := l.GetActionResult(context.Background(), cache.Digest{Hash: "a", Size: 1}); !errors.Is(err, ErrDisabled) {
			t.Fatalf("err = %v, want ErrDisabled", err)
		}
	}
	if starts != 1 {
		t.Errorf("start called %d times, want once", starts)
	}
	closed := NewLazy(func() (*Client, error) { t.Fatal("started after Close"); return nil, nil })
	closed.Close()
	if err := closed.UploadBlobs(context.Background(), nil); !errors.Is(err, ErrDisabled) {
		t.Errorf("after Close: %v", err)
	}
}

// TestClientHelperStopsReading: a helper that stops reading its input
// (hung) never holds a call past its context, nor the calls after it.
func TestClientHelperStopsReading(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		f, _ := wire.ReadFrame(inR) // the hello, answered; then nothing is read
		b, _ := json.Marshal(&wire.Response{Version: wire.Version})
		wire.WriteFrame(outW, wire.Frame{Kind: wire.KindResponse, ID: f.ID, Payload: b})
	}()
	c, err := NewPipeClient(Config{URL: "grpc://h:1", Timeout: 200 * time.Millisecond}, inW, outR, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); outW.Close() })
	for i := 0; i < 3; i++ {
		done := make(chan error, 1)
		go func() {
			_, err := c.GetActionResult(context.Background(), cache.Digest{Hash: "x", Size: 1})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("a call to a helper that reads nothing succeeded")
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("call %d to a helper that reads nothing outlived its 200ms deadline by 10s", i)
		}
	}
}

// TestClientReadBlobIdle: a blob has an idle deadline, not a total one:
// bytes that keep coming are read however long they take; bytes that stop
// fail the call after the per-call timeout.
func TestClientReadBlobIdle(t *testing.T) {
	const timeout = 300 * time.Millisecond
	steady := bytes.Repeat([]byte("x"), 20)
	f := &fake{read: func(ctx context.Context, d cache.Digest, w io.Writer) error {
		for i := range steady {
			if d.Hash == "stalls" && i == 2 {
				<-ctx.Done()
				return ctx.Err()
			}
			if _, err := w.Write(steady[i : i+1]); err != nil {
				return err
			}
			select {
			case <-time.After(timeout / 6):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}}
	c, warns, _ := pipeClient(t, f, Config{Timeout: timeout})
	var buf bytes.Buffer
	// 20 bytes, one every 50ms: 1s in all, more than three timeouts.
	if err := c.ReadBlob(context.Background(), cache.Digest{Hash: "steady", Size: int64(len(steady))}, &buf); err != nil || buf.Len() != len(steady) {
		t.Fatalf("steady blob: %d bytes, %v", buf.Len(), err)
	}
	start := time.Now()
	err := c.ReadBlob(context.Background(), cache.Digest{Hash: "stalls", Size: int64(len(steady))}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no data for 300ms") {
		t.Fatalf("stalled blob: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a stalled blob took %v to fail with a 300ms idle deadline", d)
	}
	if len(*warns) != 1 {
		t.Errorf("warnings = %q, want one", *warns)
	}
}

// TestClientTurboLookupIdle: a turbo lookup downloads the whole artifact
// (and an update sends it), so its deadline is an idle one: a lookup that keeps reporting progress
// outlives the per-call timeout, one that goes quiet is cut off after it.
// A REAPI lookup or update keeps its total deadline.
func TestClientTurboLookupIdle(t *testing.T) {
	timeout := 300 * time.Millisecond
	for _, tc := range []struct {
		name     string
		url      string
		update   bool
		progress bool
		wantErr  bool
	}{
		{"turbo, bytes flowing", "https://cache.example", false, true, false},
		{"turbo, quiet", "https://cache.example", false, false, true},
		{"REAPI, total deadline", "grpc://127.0.0.1:1", false, true, true},
		{"turbo upload, bytes flowing", "https://cache.example", true, true, false},
		{"turbo upload, quiet", "https://cache.example", true, false, true},
		{"REAPI update, total deadline", "grpc://127.0.0.1:1", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			slow := func(ctx context.Context) error {
				for end := time.Now().Add(3 * timeout); time.Now().Before(end); {
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(20 * time.Millisecond):
					}
					if tc.progress {
						wire.Progress(ctx)
					}
				}
				return nil
			}
			f := &fake{get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
				if err := slow(ctx); err != nil {
					return nil, err
				}
				return []byte("result"), nil
			}, update: slow}
			c, warns, _ := pipeClient(t, f, Config{URL: tc.url, TeamSlug: "acme", Timeout: timeout, Write: true})
			start := time.Now()
			var err error
			if tc.update {
				err = c.UpdateActionResult(context.Background(), cache.Digest{Hash: "a"}, []byte("result"))
			} else {
				_, err = c.GetActionResult(context.Background(), cache.Digest{Hash: "a"})
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			if tc.wantErr && time.Since(start) > 2*timeout {
				t.Errorf("cut off after %s, want about %s", time.Since(start), timeout)
			}
			if tc.wantErr && len(*warns) != 1 {
				t.Errorf("warnings: %q", *warns)
			}
		})
	}
}

// TestClientBadSignatureWarnsOnce: an entry refused for its signature is a
// miss, said once per run; the remote stays on.
func TestClientBadSignatureWarnsOnce(t *testing.T) {
	f := &fake{get: func(ctx context.Context, d cache.Digest) ([]byte, error) {
		if d.Hash == "good" {
			return []byte("result"), nil
		}
		return nil, &wire.Error{Code: wire.CodeBadSignature, Message: "the entry is not signed"}
	}}
	c, warns, _ := pipeClient(t, f, Config{URL: "https://cache.example", TeamSlug: "acme", Token: "tok-secret-123", SigningKey: "k"})
	for _, h := range []string{"a", "b", "good"} {
		_, err := c.GetActionResult(context.Background(), cache.Digest{Hash: h})
		if h == "good" {
			if err != nil {
				t.Fatalf("after two refused entries, a good one: %v", err)
			}
			continue
		}
		if !errors.Is(err, cache.ErrNotFound) || !BadSignature(err) {
			t.Fatalf("%s: err = %v, want a miss for its signature", h, err)
		}
	}
	if len(*warns) != 1 || !strings.Contains((*warns)[0], "not signed") {
		t.Fatalf("warnings: %q, want one naming the reason", *warns)
	}
	f.helloMu.Lock()
	defer f.helloMu.Unlock()
	if f.hello.Token != "tok-secret-123" || f.hello.TeamSlug != "acme" {
		t.Errorf("hello = %+v", f.hello)
	}
}
