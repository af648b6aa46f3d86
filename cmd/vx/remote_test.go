package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testdir"
)

// The remote cache end to end: a real bazel-remote (bin/bazel-remote, built
// by `make bazel-remote`; the tests skip without it), the vx-remote helper
// built from this module, and vx itself, on two clones of one workspace in
// different directories, each with its own local store.

var vxRemote struct {
	sync.Once
	dir, path string
	err       error
}

// remoteHelper builds cmd/vx-remote once for the package's tests.
func remoteHelper(t *testing.T) string {
	t.Helper()
	vxRemote.Do(func() {
		vxRemote.dir, vxRemote.err = os.MkdirTemp("", "vx-remote-bin")
		if vxRemote.err == nil {
			vxRemote.path, vxRemote.err = remotetest.BuildHelper(vxRemote.dir)
		}
	})
	if vxRemote.err != nil {
		t.Fatal(vxRemote.err)
	}
	return vxRemote.path
}

// remoteClone is one checkout of the test workspace. Every script appends
// "<task> ran" to runs, a file outside every clone, so a test can tell
// a task that ran from one restored from a cache.
type remoteClone struct {
	t     *testing.T
	root  string
	store string
	runs  string
}

func newRemoteClone(t *testing.T, runs string) *remoteClone {
	t.Helper()
	c := &remoteClone{t: t, root: testdir.New(t), store: filepath.Join(testdir.New(t), "store"), runs: runs}
	c.write("package.json", `{"name": "root", "private": true, "workspaces": ["packages/*"]}`)
	c.write("vx.json", `{
  "tasks": {
    "build": {
      "dependsOn": ["^build"],
      "outputs": ["dist/**"],
      "env": { "passThrough": ["DECLARED"], "define": { "RUNS": "`+runs+`" } }
    }
  }
}`)
	for _, p := range []string{"a", "b"} {
		dep := ""
		if p == "b" {
			dep = `, "dependencies": {"a": "*"}`
		}
		c.write("packages/"+p+"/package.json", `{"name": "`+p+`", "version": "1.0.0", "scripts": {"build": "sh build.sh"}`+dep+`}`)
		c.write("packages/"+p+"/src/in.txt", "source of "+p+"\n")
		c.write("packages/"+p+"/build.sh", `set -e
echo "$VX_RUN_TASK ran" >> "$RUNS"
mkdir -p dist/bin
echo "building `+p+` DECLARED=$DECLARED"
echo "`+p+` warns" >&2
cat src/in.txt > dist/out.txt
head -c 300000 /dev/zero | tr '\0' '`+p+`' > dist/big.bin
printf '#!/bin/sh\necho tool\n' > dist/bin/tool
chmod +x dist/bin/tool
`)
	}
	return c
}

func (c *remoteClone) write(rel, content string) {
	c.t.Helper()
	p := filepath.Join(c.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
}

type remoteRun struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

// vx runs vx in the clone's root with a clean environment plus env.
func (c *remoteClone) vx(env []string, args ...string) remoteRun {
	c.t.Helper()
	cmd := osexec.Command(vxBinary(c.t), args...)
	cmd.Dir = c.root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.root, "VX_CACHE_DIR=" + c.store,
		"VX_REMOTE_HELPER=" + remoteHelper(c.t)}, env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	start := time.Now()
	err := cmd.Run()
	r := remoteRun{stdout: o.String(), stderr: e.String(), took: time.Since(start)}
	if ee, ok := err.(*osexec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatal(err)
	}
	return r
}

// runs returns the lines of the shared runs file and empties it.
func takeRuns(t *testing.T, runs string) []string {
	t.Helper()
	b, err := os.ReadFile(runs)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	os.Remove(runs)
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// tree maps every file under dir/packages/*/dist to its content and mode.
func distTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(filepath.Join(root, "packages"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/dist/") {
			return nil
		}
		b, _ := os.ReadFile(p)
		fi, _ := d.Info()
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(b)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:8]) + " " + fi.Mode().Perm().String()
		return nil
	})
	return out
}

func mustOK(t *testing.T, r remoteRun) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("vx exited %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func remoteWarnings(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "vx: remote cache") {
			out = append(out, l)
		}
	}
	return out
}

func skipRemoteE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the remote cache scenarios use sh scripts and a Linux bazel-remote")
	}
	if _, err := osexec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
}

// TestRemoteCacheTwoClones is the scenario list against a real
// bazel-remote: clone A fills the cache; clone B, elsewhere, with an empty
// store, restores everything byte-identical and replays the logs without
// running a script; undeclared variables do not matter, declared ones do;
// with signing on an unsigned entry is a miss; a blob deleted on the server
// is a miss and a correct rerun.
func TestRemoteCacheTwoClones(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	srv := remotetest.Start(t, remotetest.Options{})
	runs := filepath.Join(testdir.New(t), "runs.log")
	a, b := newRemoteClone(t, runs), newRemoteClone(t, runs)
	remoteEnv := []string{"VX_REMOTE_CACHE=" + srv.URL, "VX_REMOTE_TIMEOUT=20s"}

	r := a.vx(remoteEnv, "run", "build", "--remote-write")
	mustOK(t, r)
	if got := takeRuns(t, runs); len(got) != 2 {
		t.Fatalf("clone A ran %q, want both builds", got)
	}
	want := distTree(t, a.root)

	t.Run("read only by default", func(t *testing.T) {
		// A run without --remote-write uploads nothing: a fresh clone of
		// a changed source misses, runs, and the server learns nothing.
		c := newRemoteClone(t, runs)
		c.write("packages/a/src/in.txt", "changed\n")
		mustOK(t, c.vx(remoteEnv, "run", "build"))
		takeRuns(t, runs)
		d := newRemoteClone(t, runs)
		d.write("packages/a/src/in.txt", "changed\n")
		mustOK(t, d.vx(remoteEnv, "run", "build"))
		if got := takeRuns(t, runs); len(got) != 2 {
			t.Fatalf("a read-only run wrote to the remote cache: the next clone ran only %q", got)
		}
	})

	t.Run("clone B restores without running", func(t *testing.T) {
		r := b.vx(remoteEnv, "run", "build")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Fatalf("clone B ran scripts: %q", got)
		}
		if got := distTree(t, b.root); !equalMaps(got, want) {
			t.Fatalf("outputs differ:\nA: %v\nB: %v", want, got)
		}
		for _, line := range []string{"a#build | building a DECLARED=", "b#build | building b DECLARED=", "a#build | a warns"} {
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
		// Now in B's local store: no remote needed, and the helper is not
		// even started (a missing one would warn).
		os.RemoveAll(filepath.Join(b.root, "packages", "a", "dist"))
		r = b.vx(append(remoteEnv, "VX_REMOTE_HELPER="+filepath.Join(testdir.New(t), "missing")), "run", "build")
		mustOK(t, r)
		if !strings.Contains(r.stderr, "2 cached, 0 ran") || takeRuns(t, runs) != nil {
			t.Errorf("a remote hit was not written to the local store: %s", r.stderr)
		}
		if w := remoteWarnings(r.stderr); len(w) != 0 {
			t.Errorf("a run of local hits started the helper: %q", w)
		}
	})

	t.Run("dry run shows remote hits", func(t *testing.T) {
		c := newRemoteClone(t, runs)
		r := c.vx(remoteEnv, "run", "build", "--dry-run=json")
		mustOK(t, r)
		var plan struct {
			Tasks []struct {
				ID    string
				Cache struct {
					Hit       bool
					RemoteHit *bool
				}
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		for _, tk := range plan.Tasks {
			if tk.Cache.Hit || tk.Cache.RemoteHit == nil || !*tk.Cache.RemoteHit {
				t.Errorf("%s: cache %+v, want a remote hit and no local one", tk.ID, tk.Cache)
			}
		}
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Fatalf("--dry-run ran %q", got)
		}
	})

	t.Run("undeclared variable changed: hit", func(t *testing.T) {
		c := newRemoteClone(t, runs)
		mustOK(t, c.vx(append(remoteEnv, "UNDECLARED=something else", "HOSTNAME=another-machine"), "run", "build"))
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Fatalf("an undeclared variable made tasks run: %q", got)
		}
	})

	t.Run("declared variable changed: miss", func(t *testing.T) {
		c := newRemoteClone(t, runs)
		r := c.vx(append(remoteEnv, "DECLARED=prod"), "run", "build")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 2 {
			t.Fatalf("a declared variable's change ran %q, want both", got)
		}
		if !strings.Contains(r.stdout, "DECLARED=prod") {
			t.Errorf("the task did not see its variable:\n%s", r.stdout)
		}
	})

	t.Run("signing on, unsigned entry: miss", func(t *testing.T) {
		// The signing key also keys the variables' values (docs/cache.md,
		// "Declared values"): the unsigned entries are under other keys,
		// and would not verify either (internal/remote/reapi's tests).
		signed := append(remoteEnv, "VX_REMOTE_SIGNING_KEY=team-key-0123456789")
		c := newRemoteClone(t, runs)
		r := c.vx(signed, "run", "build", "--remote-write")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 2 {
			t.Fatalf("unsigned entries were restored with signing on; ran only %q", got)
		}
		if strings.Contains(r.stderr+r.stdout, "team-key-0123456789") {
			t.Fatal("the signing key was printed")
		}
		// C wrote signed entries: a signing reader now hits.
		d := newRemoteClone(t, runs)
		mustOK(t, d.vx(signed, "run", "build"))
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Fatalf("signed entries missed: ran %q", got)
		}
		// And a reader with another key misses.
		e := newRemoteClone(t, runs)
		mustOK(t, e.vx(append(remoteEnv, "VX_REMOTE_SIGNING_KEY=other-key"), "run", "build"))
		if got := takeRuns(t, runs); len(got) != 2 {
			t.Fatalf("entries signed with another key were restored; ran only %q", got)
		}
	})

	t.Run("blob deleted on the server: miss and a correct rerun", func(t *testing.T) {
		sum := sha256.Sum256([]byte("source of a\n"))
		files := srv.CASFiles(hex.EncodeToString(sum[:]))
		if len(files) == 0 {
			t.Fatalf("a's output blob is not in %s", srv.Dir)
		}
		for _, f := range files {
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
		}
		c := newRemoteClone(t, runs)
		r := c.vx(remoteEnv, "run", "build")
		mustOK(t, r)
		got := takeRuns(t, runs)
		if len(got) != 1 || got[0] != "a#build ran" {
			t.Fatalf("ran %q, want a#build only (its blob is gone; b's entry is whole)", got)
		}
		if tree := distTree(t, c.root); !equalMaps(tree, want) {
			t.Fatalf("outputs after the rerun differ:\nwant %v\ngot  %v", want, tree)
		}
	})
}

// TestRemoteNeverHoldsValues: what vx uploads (Actions, Commands, results)
// holds no declared value, in clear or as its plain SHA-256, with a
// signing key or without one. The server stores blobs uncompressed, so
// that a value would show.
func TestRemoteNeverHoldsValues(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	srv := remotetest.Start(t, remotetest.Options{Args: []string{"--storage_mode", "uncompressed"}})
	runs := filepath.Join(testdir.New(t), "runs.log")
	values := []string{"vx-remote-unsigned-4821", "vx-remote-signed-7730"}
	for i, env := range [][]string{nil, {"VX_REMOTE_SIGNING_KEY=team-key-0123456789"}} {
		c := newRemoteClone(t, runs)
		for _, p := range []string{"a", "b"} { // they use the value, and print nothing of it (their logs are theirs)
			c.write("packages/"+p+"/build.sh", "mkdir -p dist && test -n \"$DECLARED\" && echo ok > dist/out.txt\n")
		}
		r := c.vx(append(env, "VX_REMOTE_CACHE="+srv.URL, "DECLARED="+values[i]), "run", "build", "--remote-write")
		mustOK(t, r)
		if i == 0 && !strings.Contains(r.stderr, "without VX_REMOTE_SIGNING_KEY") {
			t.Errorf("an unsigned upload of declared values does not warn:\n%s", r.stderr)
		}
	}
	n := 0
	filepath.WalkDir(srv.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		data, _ := os.ReadFile(p)
		n++
		for _, v := range values {
			sum := sha256.Sum256([]byte(v))
			if bytes.Contains(data, []byte(v)) || bytes.Contains(data, []byte(hex.EncodeToString(sum[:]))) {
				t.Errorf("the server's %s holds %q or its SHA-256", p, v)
			}
		}
		return nil
	})
	if n < 8 {
		t.Fatalf("the server holds %d files: nothing was uploaded", n)
	}
}

// TestRemoteCacheServerDies: the server is killed in the middle of a run
// (by the first task's script); the run succeeds, with one warning.
func TestRemoteCacheServerDies(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	srv := remotetest.Start(t, remotetest.Options{})
	runs := filepath.Join(testdir.New(t), "runs.log")
	c := newRemoteClone(t, runs)
	pid := srv.PID()
	c.write("packages/a/build.sh", "kill -9 "+strconv.Itoa(pid)+"\nsleep 0.2\n"+readFile(t, filepath.Join(c.root, "packages/a/build.sh")))
	r := c.vx([]string{"VX_REMOTE_CACHE=" + srv.URL, "VX_REMOTE_TIMEOUT=2s"}, "run", "build", "--remote-write")
	mustOK(t, r)
	if got := takeRuns(t, runs); len(got) != 2 {
		t.Fatalf("ran %q, want both builds", got)
	}
	if w := remoteWarnings(r.stderr); len(w) != 1 {
		t.Fatalf("remote warnings = %q, want exactly one\nstderr:\n%s", w, r.stderr)
	}
	// Against the same run without a remote (a fixed bound failed under load):
	// a dead server costs at most a few of its 2 s timeouts.
	if base := c.vx(nil, "run", "build", "--force"); r.took-base.took > 10*time.Second {
		t.Errorf("the run took %v with a dead server, %v without a remote", r.took, base.took)
	}
	t.Logf("stderr of the run:\n%s", r.stderr)
}

// TestRemoteCacheUnreachable: nothing listens at the URL; the run costs
// next to nothing more and warns once.
func TestRemoteCacheUnreachable(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	runs := filepath.Join(testdir.New(t), "runs.log")
	c := newRemoteClone(t, runs)
	r := c.vx([]string{"VX_REMOTE_CACHE=grpc://127.0.0.1:1"}, "run", "build")
	mustOK(t, r)
	if w := remoteWarnings(r.stderr); len(w) != 1 || !strings.Contains(w[0], "continuing without it") {
		t.Fatalf("warnings = %q, want one\n%s", w, r.stderr)
	}
	// Against the same run without a remote (a fixed 10 s bound failed at
	// load 30): a refused connection costs no timeout.
	if base := c.vx(nil, "run", "build", "--force"); r.took-base.took > 3*time.Second {
		t.Errorf("the run took %v against a closed port, %v without a remote", r.took, base.took)
	}
	r = c.vx([]string{"VX_REMOTE_CACHE=grpc://127.0.0.1:1"}, "cache", "status")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "unreachable") {
		t.Errorf("cache status:\n%s", r.stdout)
	}
}

// TestRemoteSettingsNeverReachTasks: VX_REMOTE_* are vx's settings; a task
// never sees them, even through a passThrough pattern that matches.
func TestRemoteSettingsNeverReachTasks(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	c := newRemoteClone(t, filepath.Join(testdir.New(t), "runs.log"))
	c.write("vx.json", `{"tasks": {"build": {"env": {"passThrough": ["VX_*", "VX_REMOTE_HEADER"]}}}}`)
	r := c.vx([]string{"VX_REMOTE_HEADER=Authorization=Bearer secret-token-123", "VX_REMOTE_SIGNING_KEY=k", "VX_OTHER=1"}, "env", "a#build")
	mustOK(t, r)
	if strings.Contains(r.stdout, "VX_REMOTE") || strings.Contains(r.stdout, "secret-token") {
		t.Fatalf("a task sees vx's remote settings:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "VX_OTHER=1") {
		t.Fatalf("the passThrough pattern stopped working for other names:\n%s", r.stdout)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
