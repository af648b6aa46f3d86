package main

import (
	"encoding/base64"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testdir"
)

// The remote cache over turbo's HTTP API, end to end: the real
// turborepo-remote-cache from the npm registry (`make turbo-remote-cache`;
// the tests skip without it, and fail under CI=true), the vx-remote helper
// built from this module, and vx, on clones of one workspace in different
// directories. vx is configured with turbo's own variables, as a team's CI
// already sets them.

func turboEnv(srv *remotetest.TurboServer, extra ...string) []string {
	return append([]string{"TURBO_API=" + srv.URL, "TURBO_TOKEN=" + srv.Token, "TURBO_TEAM=acme", "VX_REMOTE_TIMEOUT=20s"}, extra...)
}

// noSecret fails the test when a run printed the token or a key.
func noSecret(t *testing.T, r remoteRun, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(r.stdout+r.stderr, s) {
			t.Fatalf("a secret was printed:\n%s%s", r.stdout, r.stderr)
		}
	}
}

// TestTurboRemoteCache: clone A fills a turbo server; clone B, elsewhere,
// restores without running a script; a run without --remote-write (or with
// TURBO_REMOTE_CACHE_READ_ONLY) uploads nothing; a bad token is one warning
// and a run that goes on; the token is never printed.
func TestTurboRemoteCache(t *testing.T) {
	skipRemoteE2E(t)
	srv := remotetest.StartTurbo(t, remotetest.TurboOptions{})
	runs := filepath.Join(testdir.New(t), "runs.log")
	a, b := newRemoteClone(t, runs), newRemoteClone(t, runs)
	env := turboEnv(srv)

	r := a.vx(env, "run", "build", "--remote-write")
	mustOK(t, r)
	noSecret(t, r, srv.Token)
	if got := takeRuns(t, runs); len(got) != 2 {
		t.Fatalf("clone A ran %q, want both builds", got)
	}
	if w := remoteWarnings(r.stderr); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}
	if n := len(srv.Artifacts("acme")); n != 2 {
		t.Fatalf("the server holds %d artifacts of team acme, want 2: %v", n, srv.Artifacts("acme"))
	}
	want := distTree(t, a.root)

	t.Run("clone B restores without running", func(t *testing.T) {
		r := b.vx(env, "run", "build")
		mustOK(t, r)
		noSecret(t, r, srv.Token)
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Fatalf("clone B ran scripts: %q\n%s", got, r.stderr)
		}
		if got := distTree(t, b.root); !equalMaps(got, want) {
			t.Fatalf("outputs differ:\nA: %v\nB: %v", want, got)
		}
		for _, line := range []string{"a#build | building a DECLARED=", "b#build | b warns"} {
			if !strings.Contains(r.stdout+r.stderr, line) {
				t.Errorf("log line %q not replayed:\n%s%s", line, r.stdout, r.stderr)
			}
		}
		if !strings.Contains(r.stderr, "2 cached (2 remote), 0 ran") {
			t.Errorf("summary does not count the remote hits: %s", r.stderr)
		}
		if w := remoteWarnings(r.stderr); len(w) != 0 {
			t.Errorf("warnings: %q", w)
		}
	})

	t.Run("read only", func(t *testing.T) {
		for _, extra := range [][]string{nil, {"VX_REMOTE_WRITE=1", "TURBO_REMOTE_CACHE_READ_ONLY=true"}} {
			c := newRemoteClone(t, runs)
			c.write("packages/a/src/in.txt", "changed\n")
			mustOK(t, c.vx(append(turboEnv(srv), extra...), "run", "build"))
			if got := takeRuns(t, runs); len(got) != 2 {
				t.Fatalf("%q: ran %q, want both", extra, got)
			}
			if n := len(srv.Artifacts("acme")); n != 2 {
				t.Fatalf("%q: a read-only run uploaded: %d artifacts", extra, n)
			}
		}
	})

	t.Run("dry run and status print no token", func(t *testing.T) {
		c := newRemoteClone(t, runs)
		r := c.vx(env, "run", "build", "--dry-run=json")
		mustOK(t, r)
		noSecret(t, r, srv.Token)
		if !strings.Contains(r.stdout, `"remoteHit": true`) {
			t.Errorf("--dry-run=json does not show the remote hits:\n%s", r.stdout)
		}
		r = c.vx(env, "cache", "status")
		mustOK(t, r)
		noSecret(t, r, srv.Token)
		if !strings.Contains(r.stdout, srv.URL+` (turbo remote cache API, team "acme"), read only`) || !strings.Contains(r.stdout, `status "enabled"`) {
			t.Errorf("vx cache status:\n%s", r.stdout)
		}
	})

	t.Run("bad token", func(t *testing.T) {
		c := newRemoteClone(t, runs)
		r := c.vx(turboEnv(srv, "TURBO_TOKEN=wrong-token-0123456789"), "run", "build", "--remote-write")
		mustOK(t, r)
		noSecret(t, r, "wrong-token-0123456789")
		if got := takeRuns(t, runs); len(got) != 2 {
			t.Fatalf("ran %q, want both", got)
		}
		w := remoteWarnings(r.stderr)
		if len(w) != 1 || !strings.Contains(w[0], "401") || !strings.Contains(w[0], "continuing without it") {
			t.Fatalf("warnings: %q, want one about the token", w)
		}
	})
}

// TestTurboRemoteCacheSignature: with TURBO_REMOTE_CACHE_SIGNATURE_KEY,
// entries are signed and verified; an entry whose tag the server holds
// changed is a miss with one warning, and the task runs.
func TestTurboRemoteCacheSignature(t *testing.T) {
	skipRemoteE2E(t)
	srv := remotetest.StartTurbo(t, remotetest.TurboOptions{Tags: true})
	runs := filepath.Join(testdir.New(t), "runs.log")
	key := "TURBO_REMOTE_CACHE_SIGNATURE_KEY=team-signing-key-0123456789abcdef"
	env := turboEnv(srv, key)

	r := newRemoteClone(t, runs).vx(env, "run", "build", "--remote-write")
	mustOK(t, r)
	noSecret(t, r, srv.Token, "team-signing-key-0123456789abcdef")
	takeRuns(t, runs)
	tags, _ := filepath.Glob(filepath.Join(srv.Dir, "acme", "*.tag"))
	if len(tags) != 2 {
		t.Fatalf("the server holds %d tags, want 2 (signed uploads)", len(tags))
	}

	b := newRemoteClone(t, runs)
	mustOK(t, b.vx(env, "run", "build"))
	if got := takeRuns(t, runs); len(got) != 0 {
		t.Fatalf("signed entries missed: ran %q", got)
	}

	// Every tag replaced by one made with another key.
	for _, p := range tags {
		os.WriteFile(p, []byte(base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))), 0o644)
	}
	c := newRemoteClone(t, runs)
	r = c.vx(env, "run", "build")
	mustOK(t, r)
	if got := takeRuns(t, runs); len(got) != 2 {
		t.Fatalf("entries with wrong signatures: ran %q, want both", got)
	}
	w := remoteWarnings(r.stderr)
	if len(w) != 1 || !strings.Contains(w[0], "signature does not match") {
		t.Fatalf("warnings: %q, want one about the signature", w)
	}
	if tree := distTree(t, c.root); !equalMaps(tree, distTree(t, b.root)) {
		t.Fatalf("outputs differ after the rerun")
	}
}

// killProxy forwards TCP connections to target; once more than limit
// bytes went from clients to the server, it calls trip (once) and cuts
// every connection.
type killProxy struct {
	l     net.Listener
	limit int64
	sent  atomic.Int64
	once  sync.Once
	trip  func()
	mu    sync.Mutex
	conns []net.Conn
}

func startKillProxy(t *testing.T, target string, limit int64, trip func()) *killProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &killProxy{l: l, limit: limit, trip: trip}
	t.Cleanup(func() { l.Close(); p.cut() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go io.Copy(c, u)
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 {
						if p.sent.Add(int64(n)) > p.limit {
							p.once.Do(func() { p.trip(); p.cut() })
							return
						}
						u.Write(buf[:n])
					}
					if err != nil {
						u.Close()
						return
					}
				}
			}()
		}
	}()
	return p
}

func (p *killProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// TestTurboRemoteCacheServerKilledMidUpload: the server dies while an
// artifact is being sent. The run still succeeds, says so once and ends
// promptly; whatever the restarted server kept is never restored as an
// entry: the next clone runs what is not whole, and gets A's outputs.
func TestTurboRemoteCacheServerKilledMidUpload(t *testing.T) {
	skipRemoteE2E(t)
	srv := remotetest.StartTurbo(t, remotetest.TurboOptions{})
	runs := filepath.Join(testdir.New(t), "runs.log")
	// The first artifact's body (300 KB of incompressible-enough output
	// is most of it) crosses 100 KB: the server is killed in the middle.
	proxy := startKillProxy(t, strings.TrimPrefix(srv.URL, "http://"), 100<<10, srv.Stop)
	a := newRemoteClone(t, runs)
	for _, p := range []string{"a", "b"} {
		a.write("packages/"+p+"/build.sh", `set -e
echo "$VX_RUN_TASK ran" >> "$RUNS"
mkdir -p dist
echo "building `+p+`"
od -An -tx1 -v -N 200000 /dev/urandom > dist/big.txt
`)
	}
	start := time.Now()
	r := a.vx(turboEnv(srv, "TURBO_API=http://"+proxy.l.Addr().String()), "run", "build", "--remote-write")
	took := time.Since(start)
	mustOK(t, r)
	if got := takeRuns(t, runs); len(got) != 2 {
		t.Fatalf("clone A ran %q", got)
	}
	if w := remoteWarnings(r.stderr); len(w) != 1 {
		t.Fatalf("warnings: %q, want one about the upload\n%s", w, r.stderr)
	}
	if took > 20*time.Second {
		t.Errorf("the run took %s with the server killed under it", took)
	}
	srv.Restart(t)
	b := newRemoteClone(t, runs)
	for _, p := range []string{"a", "b"} {
		b.write("packages/"+p+"/build.sh", readFile(t, filepath.Join(a.root, "packages", p, "build.sh")))
	}
	r = b.vx(turboEnv(srv), "run", "build")
	mustOK(t, r)
	ran := takeRuns(t, runs)
	restored := 2 - len(ran)
	if restored > 1 {
		t.Fatalf("both entries restored, though the upload was cut: %s", r.stderr)
	}
	t.Logf("after the kill: server holds %v; clone B ran %q", srv.Artifacts("acme"), ran)
	for _, p := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(b.root, "packages", p, "dist", "big.txt")); err != nil {
			t.Errorf("%s's output is missing after the run: %v", p, err)
		}
	}
}
