package turbo

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"

	"github.com/vxrun/vx/internal/remote/wire"
	"github.com/vxrun/vx/internal/testdir"
)

// server is an in-memory turbo remote cache: artifacts and their tags by
// team and hash, as ducktors/turborepo-remote-cache keeps them.
type server struct {
	t     *testing.T
	token string
	mu    sync.Mutex
	art   map[string][]byte
	tags  map[string]string
	reqs  []string // "METHOD path?query auth"
	// hook, when set, answers instead of the store.
	hook func(w http.ResponseWriter, r *http.Request) bool
}

func newServer(t *testing.T) (*server, *httptest.Server) {
	s := &server{t: t, token: "tok-0123456789", art: map[string][]byte{}, tags: map[string]string{}}
	hs := httptest.NewUnstartedServer(s)
	// A response the client stops reading (a huge body it refuses) must not
	// keep the handler, and so Close, waiting: under Wine the client's close
	// never reaches the server's blocked write.
	hs.Config.WriteTimeout = 30 * time.Second
	hs.Start()
	t.Cleanup(hs.Close)
	return s, hs
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reqs = append(s.reqs, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
	hook := s.hook
	s.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+s.token {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	team := r.URL.Query().Get("teamId") + "|" + r.URL.Query().Get("slug")
	if r.URL.Path == "/api/v8/artifacts/status" {
		io.WriteString(w, `{"status":"enabled"}`)
		return
	}
	hash, ok := strings.CutPrefix(r.URL.Path, "/api/v8/artifacts/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	k := team + "/" + hash
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		s.art[k] = b
		s.tags[k] = r.Header.Get("x-artifact-tag")
		io.WriteString(w, `{"urls":[]}`)
	case http.MethodGet:
		b, ok := s.art[k]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if tag := s.tags[k]; tag != "" {
			w.Header().Set("x-artifact-tag", tag)
		}
		w.Write(b)
	default:
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}
}

func (s *server) only() (string, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.art {
		return k, v
	}
	return "", nil
}

func (s *server) set(k string, body []byte, tag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.art[k], s.tags[k] = body, tag
}

func dial(t *testing.T, h *wire.Hello) *Client {
	t.Helper()
	if h.Version == 0 {
		h.Version = wire.Version
	}
	c, err := Dial(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func digestOf(b []byte) wire.Digest {
	sum := sha256.Sum256(b)
	return wire.Digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(b))}
}

// entry is a result naming a log and two files, and its blobs on disk.
type entry struct {
	action wire.Digest
	result []byte
	blobs  []wire.BlobSource
	data   map[string][]byte
}

func newEntry(t testing.TB, name string, sizes ...int) *entry {
	dir := testdir.New(t)
	e := &entry{action: digestOf([]byte("action " + name)), data: map[string][]byte{}}
	add := func(b []byte) *repb.Digest {
		d := digestOf(b)
		p := filepath.Join(dir, d.Hash)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		e.blobs = append(e.blobs, wire.BlobSource{Digest: d, Path: p})
		e.data[d.Hash] = b
		return &repb.Digest{Hash: d.Hash, SizeBytes: d.Size}
	}
	r := &repb.ActionResult{StdoutDigest: add([]byte("log of " + name + "\n"))}
	for i, n := range sizes {
		b := make([]byte, n) // incompressible, so the artifact is as large
		rand.Read(b)
		r.OutputFiles = append(r.OutputFiles, &repb.OutputFile{Path: "dist/" + string(rune('a'+i)), Digest: add(b)})
	}
	var err error
	if e.result, err = proto.Marshal(r); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *entry) upload(t *testing.T, c *Client) error {
	t.Helper()
	ctx := context.Background()
	var ds []wire.Digest
	for _, b := range e.blobs {
		ds = append(ds, b.Digest)
	}
	missing, err := c.FindMissingBlobs(ctx, ds)
	if err != nil || len(missing) != len(ds) {
		t.Fatalf("FindMissingBlobs = %v, %v; want every blob", missing, err)
	}
	if err := c.UploadBlobs(ctx, e.blobs); err != nil {
		t.Fatal(err)
	}
	return c.UpdateActionResult(ctx, e.action, e.result)
}

// restore looks the entry up and reads every blob back.
func (e *entry) restore(t *testing.T, c *Client) error {
	t.Helper()
	ctx := context.Background()
	got, err := c.GetActionResult(ctx, e.action)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, e.result) {
		t.Fatal("the result came back changed")
	}
	for h, want := range e.data {
		var buf bytes.Buffer
		if err := c.ReadBlob(ctx, wire.Digest{Hash: h, Size: int64(len(want))}, &buf); err != nil {
			t.Fatalf("blob %s: %v", h[:12], err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Fatalf("blob %s came back changed", h[:12])
		}
	}
	return nil
}

func code(err error) string {
	var we *wire.Error
	if errors.As(err, &we) {
		return we.Code
	}
	if err == nil {
		return ""
	}
	return "not a wire error: " + err.Error()
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    wire.Hello
		q    string
	}{
		{"slug", wire.Hello{TeamSlug: "acme"}, "slug=acme"},
		{"team id and slug", wire.Hello{TeamID: "team_1", TeamSlug: "acme"}, "slug=acme&teamId=team_1"},
		{"signed", wire.Hello{TeamID: "team_1", SigningKey: "key-0123456789abcdef"}, "teamId=team_1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, hs := newServer(t)
			h := tc.h
			h.URL, h.Token = hs.URL+"/api/", s.token
			c := dial(t, &h)
			e := newEntry(t, "x", 10, 300<<10)
			if err := e.restore(t, c); code(err) != wire.CodeNotFound {
				t.Fatalf("before the upload: %v, want not_found", err)
			}
			if err := e.upload(t, c); err != nil {
				t.Fatal(err)
			}
			// Another client (another machine) reads it.
			other := dial(t, &h)
			if err := e.restore(t, other); err != nil {
				t.Fatal(err)
			}
			hash := ArtifactHash(e.action)
			want := []string{
				"GET /api/v8/artifacts/" + hash + "?" + tc.q + " Bearer " + s.token,
				"PUT /api/v8/artifacts/" + hash + "?" + tc.q + " Bearer " + s.token,
				"GET /api/v8/artifacts/" + hash + "?" + tc.q + " Bearer " + s.token,
			}
			if diff := cmp.Diff(want, s.reqs); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			_, body := s.only()
			if tag := s.tags[s.reqKey(hash)]; (tag != "") != (h.SigningKey != "") {
				t.Errorf("tag %q with signing key %q", tag, h.SigningKey)
			} else if tag != "" && tag != Tag([]byte(h.SigningKey), hash, h.TeamID, body) {
				t.Errorf("tag %q is not Tag(key, hash, team, body)", tag)
			}
		})
	}
}

func (s *server) reqKey(hash string) string {
	for k := range s.art {
		if strings.HasSuffix(k, "/"+hash) {
			return k
		}
	}
	return ""
}

// TestSignature: with a key, an unsigned entry, one signed with another
// key, one copied under another action's name and one of another team are
// misses (bad_signature), and their blobs are not handed out.
func TestSignature(t *testing.T) {
	s, hs := newServer(t)
	key := "key-0123456789abcdef"
	signed := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme", SigningKey: key})
	unsigned := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
	otherKey := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme", SigningKey: "another-key-0123456789"})

	e := newEntry(t, "unsigned", 5)
	if err := e.upload(t, unsigned); err != nil {
		t.Fatal(err)
	}
	if err := e.restore(t, signed); code(err) != wire.CodeBadSignature || !strings.Contains(err.Error(), "not signed") {
		t.Errorf("unsigned entry with a key: %v", err)
	}
	if err := e.restore(t, unsigned); err != nil {
		t.Errorf("unsigned entry without a key: %v", err)
	}

	f := newEntry(t, "signed", 5)
	if err := f.upload(t, signed); err != nil {
		t.Fatal(err)
	}
	if err := f.restore(t, signed); err != nil {
		t.Fatal(err)
	}
	fresh := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme", SigningKey: "another-key-0123456789"})
	if err := f.restore(t, fresh); code(err) != wire.CodeBadSignature {
		t.Errorf("entry signed with another key: %v", err)
	}
	if err := otherKey.ReadBlob(context.Background(), f.blobs[0].Digest, io.Discard); code(err) != wire.CodeNotFound {
		t.Errorf("a blob of a refused entry was handed out: %v", err)
	}

	// Copied, with its tag, under another action's name: the tag covers
	// the name, and the artifact names its action.
	g := newEntry(t, "target", 5)
	fk := s.reqKey(ArtifactHash(f.action))
	s.set(strings.Replace(fk, ArtifactHash(f.action), ArtifactHash(g.action), 1), s.art[fk], s.tags[fk])
	if _, err := signed.GetActionResult(context.Background(), g.action); code(err) != wire.CodeBadSignature {
		t.Errorf("entry copied under another name: %v", err)
	}
	// Under another slug: turbo's tag does not cover a slug, so neither
	// does vx's; the entry is still the same action's result.
	s.set("|other/"+ArtifactHash(f.action), s.art[fk], s.tags[fk])
	otherSlug := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "other", SigningKey: key})
	if _, err := otherSlug.GetActionResult(context.Background(), f.action); err != nil {
		t.Errorf("entry copied to another slug: %v, want a hit (turbo signs no slug)", err)
	}
	// Under another team id: the tag covers the team id.
	byID := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamID: "team_1", SigningKey: key})
	h := newEntry(t, "by id", 5)
	if err := h.upload(t, byID); err != nil {
		t.Fatal(err)
	}
	hk := s.reqKey(ArtifactHash(h.action))
	s.set("team_2|/"+ArtifactHash(h.action), s.art[hk], s.tags[hk])
	otherID := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamID: "team_2", SigningKey: key})
	if _, err := otherID.GetActionResult(context.Background(), h.action); code(err) != wire.CodeBadSignature {
		t.Errorf("entry copied to another team id: %v", err)
	}
	// A body of unknown length (chunked) is spooled, then verified.
	s.mu.Lock()
	s.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet {
			return false
		}
		w.Header().Set("x-artifact-tag", s.tags[hk])
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush() // no Content-Length
		w.Write(s.art[hk])
		return true
	}
	s.mu.Unlock()
	if _, err := byID.GetActionResult(context.Background(), h.action); err != nil {
		t.Errorf("a signed entry sent chunked: %v", err)
	}
	s.mu.Lock()
	s.hook = nil
	s.mu.Unlock()
	// A changed byte of a signed artifact.
	body := append([]byte(nil), s.art[fk]...)
	body[len(body)/2] ^= 1
	s.set(fk, body, s.tags[fk])
	if _, err := fresh.GetActionResult(context.Background(), f.action); code(err) != wire.CodeBadSignature {
		t.Errorf("a changed artifact: %v", err)
	}
}

// TestServerFaults: what the server does wrong becomes a fault (vx warns
// once and goes on without the remote) or a miss, within the deadline,
// never a restore.
func TestServerFaults(t *testing.T) {
	e := newEntry(t, "e", 100<<10)
	good := func(t *testing.T) []byte {
		s, hs := newServer(t)
		c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
		if err := e.upload(t, c); err != nil {
			t.Fatal(err)
		}
		_, b := s.only()
		return b
	}(t)
	defer func(m int64) { MaxArtifact = m }(MaxArtifact)
	for _, tc := range []struct {
		name string
		hook func(w http.ResponseWriter, r *http.Request)
		max  int64
		want string
	}{
		{"5xx", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "upstream down", http.StatusBadGateway) }, 0, wire.CodeUnavailable},
		{"bad token", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusUnauthorized) }, 0, wire.CodeUnauthenticated},
		{"forbidden", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", http.StatusForbidden) }, 0, wire.CodePermissionDenied},
		{"truncated body", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "999999")
			w.Write(good[:len(good)/2])
		}, 0, wire.CodeUnavailable},
		{"truncated artifact, whole body", func(w http.ResponseWriter, r *http.Request) { w.Write(good[:len(good)-20]) }, 0, wire.CodeNotFound},
		{"garbage", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("<html>a login page</html>")) }, 0, wire.CodeNotFound},
		{"bytes after the artifact", func(w http.ResponseWriter, r *http.Request) { w.Write(append(append([]byte(nil), good...), "x"...)) }, 0, wire.CodeNotFound},
		{"huge body, with its length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "10000000000")
			w.Write(make([]byte, 1<<20))
		}, 1 << 20, wire.CodeNotFound},
		{"huge body, without its length", func(w http.ResponseWriter, r *http.Request) {
			for i := 0; i < 64; i++ { // 64 MiB if nothing stopped reading
				if _, err := w.Write(make([]byte, 1<<20)); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}, 1 << 20, wire.CodeNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, hs := newServer(t)
			s.hook = func(w http.ResponseWriter, r *http.Request) bool { tc.hook(w, r); return true }
			if tc.max > 0 {
				MaxArtifact = tc.max
			} else {
				MaxArtifact = 4 << 30
			}
			c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
			start := time.Now()
			_, err := c.GetActionResult(context.Background(), e.action)
			if code(err) != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
			if strings.Contains(err.Error(), s.token) {
				t.Fatalf("the token is in the error: %v", err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
			for _, b := range e.blobs {
				if err := c.ReadBlob(context.Background(), b.Digest, io.Discard); code(err) != wire.CodeNotFound {
					t.Errorf("a blob of a refused entry was handed out: %v", err)
				}
			}
		})
	}
}

// TestDamagedContent: an artifact whose framing is right but whose
// content is not (a blob that does not match its digest, a blob the
// result does not name, a missing blob) is a miss.
func TestDamagedContent(t *testing.T) {
	e := newEntry(t, "e", 10)
	for _, tc := range []struct {
		name  string
		edit  func(map[string]string)
		match string
	}{
		{"blob does not match its digest", func(p map[string]string) {
			bad := filepath.Join(testdir.New(t), "bad")
			os.WriteFile(bad, bytes.Repeat([]byte{'z'}, 10), 0o644)
			for h, q := range p {
				if b, _ := os.ReadFile(q); len(b) == 10 {
					p[h] = bad
				}
			}
		}, "does not match its digest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, hs := newServer(t)
			c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
			paths := map[string]string{}
			for _, b := range e.blobs {
				paths[b.Digest.Hash] = b.Path
			}
			tc.edit(paths)
			var buf bytes.Buffer
			if _, err := pack(&buf, e.action, e.result, func(h string) (string, bool) { p, ok := paths[h]; return p, ok }); err != nil {
				t.Fatal(err)
			}
			s.set("|acme/"+ArtifactHash(e.action), buf.Bytes(), "")
			_, err := c.GetActionResult(context.Background(), e.action)
			if code(err) != wire.CodeNotFound || !strings.Contains(err.Error(), tc.match) {
				t.Fatalf("err = %v, want a miss saying %q", err, tc.match)
			}
		})
	}
	t.Run("another action's artifact", func(t *testing.T) {
		s, hs := newServer(t)
		c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
		other := newEntry(t, "other", 10)
		if err := other.upload(t, c); err != nil {
			t.Fatal(err)
		}
		k, b := s.only()
		s.set(strings.Replace(k, ArtifactHash(other.action), ArtifactHash(e.action), 1), b, "")
		if _, err := c.GetActionResult(context.Background(), e.action); code(err) != wire.CodeNotFound || !strings.Contains(err.Error(), "another action") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestSlowServer: a server that answers nothing is cut off by the call's
// deadline (a context), and one that streams slowly reports progress, so
// that vx's idle deadline does not cut a download whose bytes flow.
func TestSlowServer(t *testing.T) {
	e := newEntry(t, "e", 200<<10)
	s, hs := newServer(t)
	c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
	if err := e.upload(t, c); err != nil {
		t.Fatal(err)
	}
	_, good := s.only()

	t.Run("hangs", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		s.hook = func(w http.ResponseWriter, r *http.Request) bool { <-release; return true }
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.GetActionResult(ctx, e.action)
		if code(err) != wire.CodeDeadline {
			t.Fatalf("err = %v, want deadline_exceeded", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %s", d)
		}
	})

	t.Run("streams slowly", func(t *testing.T) {
		s.hook = func(w http.ResponseWriter, r *http.Request) bool {
			for i := 0; i < len(good); i += 4096 {
				w.Write(good[i:min(i+4096, len(good))])
				w.(http.Flusher).Flush()
				time.Sleep(20 * time.Millisecond)
			}
			return true
		}
		var progress atomic.Int32
		ctx := wire.WithProgress(context.Background(), func() { progress.Add(1) })
		if _, err := c.GetActionResult(ctx, e.action); err != nil {
			t.Fatal(err)
		}
		if progress.Load() < 2 {
			t.Errorf("progress reported %d times during a slow download", progress.Load())
		}
	})

	t.Run("slow upload", func(t *testing.T) {
		s.hook = func(w http.ResponseWriter, r *http.Request) bool {
			buf := make([]byte, 16<<10)
			for {
				if _, err := r.Body.Read(buf); err != nil {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			io.WriteString(w, "{}")
			return true
		}
		var progress atomic.Int32
		ctx := wire.WithProgress(context.Background(), func() { progress.Add(1) })
		if err := c.UpdateActionResult(ctx, e.action, e.result); err != nil {
			t.Fatal(err)
		}
		if progress.Load() < 2 {
			t.Errorf("progress reported %d times during a slow upload", progress.Load())
		}
	})

	t.Run("cancelled mid-download", func(t *testing.T) {
		s.hook = func(w http.ResponseWriter, r *http.Request) bool {
			w.Write(good[:len(good)/2])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return true
		}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err := c.GetActionResult(ctx, e.action)
		if code(err) != wire.CodeCanceled {
			t.Fatalf("err = %v, want canceled", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %s", d)
		}
	})
}

func TestUploadFaults(t *testing.T) {
	e := newEntry(t, "e", 10)
	for _, tc := range []struct {
		name   string
		status int
		want   string
	}{
		{"read-only server", http.StatusForbidden, wire.CodePermissionDenied},
		{"too large for the server", http.StatusRequestEntityTooLarge, wire.CodeResourceExhaust},
		{"5xx", http.StatusServiceUnavailable, wire.CodeUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, hs := newServer(t)
			s.hook = func(w http.ResponseWriter, r *http.Request) bool {
				io.Copy(io.Discard, r.Body)
				http.Error(w, "no", tc.status)
				return true
			}
			c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
			if err := e.upload(t, c); code(err) != tc.want {
				t.Fatalf("err = %v, want %s", err, tc.want)
			}
		})
	}
	t.Run("a blob not handed over", func(t *testing.T) {
		s, hs := newServer(t)
		c := dial(t, &wire.Hello{URL: hs.URL + "/api", Token: s.token, TeamSlug: "acme"})
		if err := c.UpdateActionResult(context.Background(), e.action, e.result); err == nil || !strings.Contains(err.Error(), "not handed over") {
			t.Fatalf("err = %v", err)
		}
		if len(s.reqs) != 0 {
			t.Errorf("requests: %q", s.reqs)
		}
	})
}

func TestDialRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    wire.Hello
		want string
	}{
		{"no team", wire.Hello{URL: "https://h", Token: "tok-supersecret"}, "needs a team"},
		{"credentials in the URL", wire.Hello{URL: "https://u:supersecret@h", TeamSlug: "a"}, "must not hold credentials"},
		{"gRPC URL", wire.Hello{URL: "grpc://h:1", TeamSlug: "a"}, "not an http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Dial(&tc.h)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "supersecret") {
				t.Fatalf("err = %v, want one containing %q and no secret", err, tc.want)
			}
		})
	}
}
