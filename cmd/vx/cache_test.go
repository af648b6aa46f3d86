package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/vxrun/vx/internal/cache"
)

// cacheWS is a workspace of two projects, b depending on a, whose builds
// are cached. Each build appends a line to .runs/<project> at the root (git
// ignores it), so a test can tell a task that ran from one that was
// restored.
type cacheWS struct {
	t     *testing.T
	root  string
	store string
	env   []string
}

const cacheVXJSON = `{
  "tasks": {
    "build": {
      "dependsOn": ["^build"],
      "outputs": ["dist/**"],
      "inputs": ["**", "//scripts/**"],
      "env": { "passThrough": ["DECLARED"], "define": { "MODE": "release" } }
    }
  }
}
`

func newCacheWS(t *testing.T, git bool) *cacheWS {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the cache scenarios use sh scripts; the Windows paths of the cache are covered by internal/cache's tests")
	}
	if _, err := osexec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	root := t.TempDir()
	w := &cacheWS{t: t, root: root, store: filepath.Join(t.TempDir(), "store")}
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "VX_CACHE_DIR=" + w.store}
	w.write(".gitignore", "node_modules\ndist\n.runs\n*.log\n")
	w.write("package.json", `{"name": "root", "private": true, "workspaces": ["packages/*"]}`)
	w.write("vx.json", cacheVXJSON)
	w.write("scripts/tool.sh", "echo tool v1\n")
	w.write("packages/a/package.json", `{"name": "a", "scripts": {"build": "sh build.sh"}}`)
	w.write("packages/a/build.sh", `set -e
mkdir -p dist/bin ../../.runs
echo "building a with MODE=$MODE DECLARED=$DECLARED"
echo "a warns" >&2
cat src/in.txt ../../scripts/tool.sh > dist/out.txt
printf '#!/bin/sh\necho hi\n' > dist/bin/tool
chmod 755 dist/bin/tool
ln -sf out.txt dist/latest
echo ran >> ../../.runs/a
`)
	w.write("packages/a/src/in.txt", "a v1\n")
	w.write("packages/b/package.json", `{"name": "b", "dependencies": {"a": "*"}, "scripts": {"build": "sh build.sh"}}`)
	w.write("packages/b/build.sh", `set -e
mkdir -p dist ../../.runs
echo "building b"
cat ../a/dist/out.txt src/in.txt > dist/out.txt
echo ran >> ../../.runs/b
`)
	w.write("packages/b/src/in.txt", "b v1\n")
	w.write("packages/b/README.md", "# b\n")
	if git {
		if _, err := osexec.LookPath("git"); err != nil {
			t.Skip("git not found")
		}
		w.git("init", "-q")
		w.git("add", "-A")
		w.git("commit", "-qm", "init")
	}
	return w
}

func (w *cacheWS) write(rel, content string) {
	w.t.Helper()
	p := filepath.Join(w.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *cacheWS) read(rel string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(rel)))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

func (w *cacheWS) git(args ...string) {
	w.t.Helper()
	cmd := osexec.Command("git", append([]string{"-c", "user.email=t@t", "-c", "user.name=t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = w.root
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

type vxResult struct {
	stdout, stderr string
	code           int
}

// vx runs vx in the root with the workspace's environment plus extra.
func (w *cacheWS) vx(extra []string, args ...string) vxResult {
	w.t.Helper()
	cmd := osexec.Command("vx", args...)
	cmd.Dir = w.root
	cmd.Env = append(append([]string{}, w.env...), extra...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*osexec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return vxResult{o.String(), e.String(), code}
}

// runs returns how many times each project's build ran so far.
func (w *cacheWS) runs() (a, b int) {
	count := func(p string) int {
		data, _ := os.ReadFile(filepath.Join(w.root, ".runs", p))
		return strings.Count(string(data), "ran")
	}
	return count("a"), count("b")
}

// build runs vx run build and returns which builds ran ("a", "b", "ab" or "").
func (w *cacheWS) build(extra ...string) (string, vxResult) {
	w.t.Helper()
	a0, b0 := w.runs()
	r := w.vx(extra, "run", "build", "--concurrency", "1")
	if r.code != 0 {
		w.t.Fatalf("vx run build: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	a1, b1 := w.runs()
	ran := ""
	if a1 > a0 {
		ran += "a"
	}
	if b1 > b0 {
		ran += "b"
	}
	return ran, r
}

// TestCacheHitMiss runs each scenario as a user would: build, change
// something, build again, and checks which tasks ran the second time.
func TestCacheHitMiss(t *testing.T) {
	tests := []struct {
		name   string
		git    bool
		change func(w *cacheWS)
		env    []string // of the second run
		want   string   // the builds that run the second time
	}{
		{name: "nothing changed", git: true, change: func(w *cacheWS) {}, want: ""},
		{name: "source of a dependency changed", git: true, change: func(w *cacheWS) { w.write("packages/a/src/in.txt", "a v2\n") }, want: "ab"},
		{name: "source of the dependent changed", git: true, change: func(w *cacheWS) { w.write("packages/b/src/in.txt", "b v2\n") }, want: "b"},
		{name: "source changed and committed", git: true, change: func(w *cacheWS) {
			w.write("packages/b/src/in.txt", "b v2\n")
			w.git("commit", "-qam", "b v2")
		}, want: "b"},
		{name: "new untracked file", git: true, change: func(w *cacheWS) { w.write("packages/b/src/new.txt", "x") }, want: "b"},
		{name: "tracked file deleted", git: true, change: func(w *cacheWS) { os.Remove(filepath.Join(w.root, "packages/b/README.md")) }, want: "b"},
		{name: "ignored file changed", git: true, change: func(w *cacheWS) { w.write("packages/a/debug.log", "noise") }, want: ""},
		{name: "file in node_modules changed", git: true, change: func(w *cacheWS) { w.write("packages/a/node_modules/x/index.js", "x") }, want: ""},
		{name: "declared passThrough value changed", git: true, change: func(w *cacheWS) {}, env: []string{"DECLARED=2"}, want: "ab"},
		{name: "undeclared variable changed", git: true, change: func(w *cacheWS) {}, env: []string{"UNDECLARED=2", "TMPDIR=/elsewhere"}, want: ""},
		{name: "define changed", git: true, change: func(w *cacheWS) {
			w.write("vx.json", strings.Replace(cacheVXJSON, `"release"`, `"debug"`, 1))
		}, want: "ab"},
		{name: "script changed", git: true, change: func(w *cacheWS) {
			w.write("packages/b/package.json", `{"name": "b", "dependencies": {"a": "*"}, "scripts": {"build": "sh ./build.sh"}}`)
		}, want: "b"},
		{name: "root-relative input changed", git: true, change: func(w *cacheWS) { w.write("scripts/tool.sh", "echo tool v2\n") }, want: "ab"},
		{name: "lockfile changed", git: true, change: func(w *cacheWS) { w.write("package-lock.json", `{"lockfileVersion": 3}`) }, want: "ab"},
		{name: "executable bit of an input changed", git: true, change: func(w *cacheWS) {
			os.Chmod(filepath.Join(w.root, "packages/b/build.sh"), 0o755)
		}, want: "b"},
		{name: "outputs deleted", git: true, change: func(w *cacheWS) { os.RemoveAll(filepath.Join(w.root, "packages/a/dist")) }, want: ""},
		{name: "dependency's output edited by hand", git: true, change: func(w *cacheWS) { w.write("packages/a/dist/out.txt", "tampered") }, want: ""},
		{name: "without git: nothing changed", change: func(w *cacheWS) {}, want: ""},
		{name: "without git: source changed", change: func(w *cacheWS) { w.write("packages/a/src/in.txt", "a v2\n") }, want: "ab"},
		{name: "without git: file in node_modules changed", change: func(w *cacheWS) { w.write("packages/a/node_modules/x.js", "x") }, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newCacheWS(t, tt.git)
			if ran, r := w.build(); ran != "ab" {
				t.Fatalf("first run: ran %q, want \"ab\"\n%s", ran, r.stderr)
			}
			want := map[string]string{
				"packages/a/dist/out.txt": w.read("packages/a/dist/out.txt"),
				"packages/b/dist/out.txt": w.read("packages/b/dist/out.txt"),
			}
			tt.change(w)
			ran, r := w.build(tt.env...)
			if ran != tt.want {
				t.Errorf("second run: ran %q, want %q\nstderr:\n%s", ran, tt.want, r.stderr)
			}
			if strings.Contains(r.stderr, "vx: a") || strings.Contains(r.stderr, "vx: b") {
				t.Errorf("unexpected warning:\n%s", r.stderr)
			}
			if tt.want == "" {
				if !strings.Contains(r.stderr, "vx: 2 tasks: 2 cached, 0 ran, 0 failed in ") {
					t.Errorf("summary of an all-hit run:\n%s", r.stderr)
				}
				// Restored outputs are what the task produced.
				for p, content := range want {
					if got := w.read(p); got != content {
						t.Errorf("%s after the hit = %q, want %q", p, got, content)
					}
				}
			}
		})
	}
}

// TestCacheRestoresExactly checks modes, symbolic links, removal of files
// the entry does not hold, and the logs replayed byte for byte.
func TestCacheRestoresExactly(t *testing.T) {
	w := newCacheWS(t, true)
	first := w.vx(nil, "run", "build", "--filter", "a")
	if first.code != 0 {
		t.Fatalf("first run: %d\n%s", first.code, first.stderr)
	}
	w.write("packages/a/dist/stale.txt", "not produced by the build")
	os.Remove(filepath.Join(w.root, "packages/a/dist/out.txt"))
	os.Chmod(filepath.Join(w.root, "packages/a/dist/bin/tool"), 0o600)
	second := w.vx(nil, "run", "build", "--filter", "a")
	if a, _ := w.runs(); a != 1 {
		t.Fatalf("a ran %d times, want 1 (the second run must hit)\n%s", a, second.stderr)
	}
	// The hit says so, one line before the replayed logs.
	hitLine := regexp.MustCompile(`\Avx: a#build: cache hit, replaying logs [0-9a-f]{16}\n`)
	if !hitLine.MatchString(second.stderr) {
		t.Errorf("the hit does not say so first: %q", second.stderr)
	}
	if replayed := hitLine.ReplaceAllString(second.stderr, ""); second.stdout != first.stdout || replayed != first.stderr {
		t.Errorf("logs not replayed exactly:\nfirst:  %q %q\nsecond: %q %q", first.stdout, first.stderr, second.stdout, replayed)
	}
	if _, err := os.Lstat(filepath.Join(w.root, "packages/a/dist/stale.txt")); err == nil {
		t.Error("dist/stale.txt, which the entry does not hold, is still there")
	}
	if got := w.read("packages/a/dist/out.txt"); got != "a v1\necho tool v1\n" {
		t.Errorf("dist/out.txt = %q", got)
	}
	fi, err := os.Stat(filepath.Join(w.root, "packages/a/dist/bin/tool"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("dist/bin/tool mode = %v, %v; want 0755", fi.Mode(), err)
	}
	if target, err := os.Readlink(filepath.Join(w.root, "packages/a/dist/latest")); err != nil || target != "out.txt" {
		t.Errorf("dist/latest = %q, %v; want a link to out.txt", target, err)
	}
}

// TestCacheClone: a second clone of the repository in another directory
// shares the entries of the first through VX_CACHE_DIR.
func TestCacheClone(t *testing.T) {
	w := newCacheWS(t, true)
	if ran, r := w.build(); ran != "ab" {
		t.Fatalf("first run: %q\n%s", ran, r.stderr)
	}
	clone := filepath.Join(t.TempDir(), "elsewhere", "clone")
	cmd := osexec.Command("git", "clone", "-q", w.root, clone)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	w2 := &cacheWS{t: t, root: clone, store: w.store, env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "VX_CACHE_DIR=" + w.store}}
	if ran, r := w2.build(); ran != "" {
		t.Errorf("the clone ran %q, want every build restored\n%s", ran, r.stderr)
	}
	if got := w2.read("packages/b/dist/out.txt"); got != "a v1\necho tool v1\nb v1\n" {
		t.Errorf("the clone's b/dist/out.txt = %q", got)
	}
}

// entryOf returns the key of a's build as --dry-run=json shows it.
func (w *cacheWS) keyOf(id string) cache.Digest {
	w.t.Helper()
	r := w.vx(nil, "run", "build", "--dry-run=json")
	var plan struct {
		Tasks []struct {
			ID    string
			Cache struct {
				Key string
				Hit bool
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
		w.t.Fatalf("--dry-run=json: %v\n%s", err, r.stdout)
	}
	for _, task := range plan.Tasks {
		if task.ID == id {
			return cache.Digest{Hash: task.Cache.Key}
		}
	}
	w.t.Fatalf("no task %s in the plan", id)
	return cache.Digest{}
}

// TestCacheDamagedStore: whatever happened to the store, the result is
// right: a damaged entry is a miss with one warning, the task runs, and
// its outputs are correct.
func TestCacheDamagedStore(t *testing.T) {
	damage := []struct {
		name string
		do   func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest)
		warn string
	}{
		{"corrupt blob", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			for _, f := range w.outputBlobs(st, key) {
				data, _ := os.ReadFile(f)
				data[0] ^= 0xff
				os.WriteFile(f, data, 0o644)
			}
		}, "does not match its digest"},
		{"missing blob", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			for _, f := range w.outputBlobs(st, key) {
				os.Remove(f)
			}
		}, "is missing"},
		{"corrupt log blob", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			f := w.logBlobs(st, key)[0] // stdout: "building a with ..."
			data, _ := os.ReadFile(f)
			data[0] ^= 0xff
			os.WriteFile(f, data, 0o644)
		}, "does not match its digest"},
		{"missing log blob", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			os.Remove(w.logBlobs(st, key)[1]) // stderr: "a warns"
		}, "is missing"},
		{"truncated entry", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			p := filepath.Join(st.Dir, "ac", key.Hash[:2], key.Hash)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)-5], 0o644)
		}, "unusable (action entry"},
		{"entry naming ../", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			d, _ := st.PutBytes([]byte("evil"))
			r := &cache.ActionResult{OutputFiles: []cache.OutputFile{{Path: "../../evil", Digest: d}}}
			st.UpdateActionResult(key, r.Marshal())
		}, `refused: the entry names the path "../../evil", outside the project`},
		{"entry with a symlink out of the project", func(t *testing.T, w *cacheWS, st *cache.Store, key cache.Digest) {
			r := &cache.ActionResult{OutputSymlinks: []cache.OutputSymlink{{Path: "dist/passwd", Target: "../../../../etc/passwd"}}}
			st.UpdateActionResult(key, r.Marshal())
		}, "points outside the project"},
	}
	for _, tt := range damage {
		t.Run(tt.name, func(t *testing.T) {
			w := newCacheWS(t, true)
			if ran, r := w.build(); ran != "ab" {
				t.Fatalf("first run: %q\n%s", ran, r.stderr)
			}
			key := w.keyOf("a#build")
			st := &cache.Store{Dir: w.store}
			tt.do(t, w, st, key)
			os.RemoveAll(filepath.Join(w.root, "packages/a/dist"))
			ran, r := w.build()
			if ran != "a" {
				t.Errorf("after the damage: ran %q, want \"a\" (a reruns, b still hits)\n%s", ran, r.stderr)
			}
			if n := strings.Count(r.stderr, "vx: a#build: cache entry"); n != 1 || !strings.Contains(r.stderr, tt.warn) {
				t.Errorf("want one warning saying %q, got:\n%s", tt.warn, r.stderr)
			}
			// a's output is its run's, once: nothing of the damaged entry's logs.
			if n := strings.Count(r.stdout, "a#build | building a with"); n != 1 {
				t.Errorf("a's stdout line shows %d times, want once:\n%s", n, r.stdout)
			}
			if n := strings.Count(r.stderr, "a#build | a warns"); n != 1 {
				t.Errorf("a's stderr line shows %d times, want once:\n%s", n, r.stderr)
			}
			if got := w.read("packages/a/dist/out.txt"); got != "a v1\necho tool v1\n" {
				t.Errorf("a/dist/out.txt = %q after the rerun", got)
			}
			if _, err := os.Lstat(filepath.Join(w.root, "evil")); err == nil {
				t.Error("the crafted entry wrote outside the project")
			}
			// The rerun stored a good entry again.
			if ran, r := w.build(); ran != "" {
				t.Errorf("third run ran %q, want all hits\n%s", ran, r.stderr)
			}
		})
	}
}

// actionResult reads the entry for key from st.
func (w *cacheWS) actionResult(st *cache.Store, key cache.Digest) *cache.ActionResult {
	w.t.Helper()
	data, err := st.GetActionResult(key)
	if err != nil {
		w.t.Fatal(err)
	}
	r, err := cache.UnmarshalActionResult(data)
	if err != nil {
		w.t.Fatal(err)
	}
	return r
}

// logBlobs returns the files of the store holding the stdout and the
// stderr of the entry for key.
func (w *cacheWS) logBlobs(st *cache.Store, key cache.Digest) []string {
	w.t.Helper()
	r := w.actionResult(st, key)
	if r.StdoutDigest.Size == 0 || r.StderrDigest.Size == 0 {
		w.t.Fatalf("the entry keeps no stdout or no stderr: %+v", r)
	}
	return []string{st.BlobPath(r.StdoutDigest), st.BlobPath(r.StderrDigest)}
}

// outputBlobs returns the files of the store holding the outputs of the
// entry for key.
func (w *cacheWS) outputBlobs(st *cache.Store, key cache.Digest) []string {
	w.t.Helper()
	r := w.actionResult(st, key)
	var files []string
	for _, f := range r.OutputFiles {
		files = append(files, st.BlobPath(f.Digest))
	}
	return files
}

// TestCacheFlags: --force runs and stores, --no-cache neither reads nor
// writes; a failed task is not stored; a task whose inputs change while it
// runs is not stored.
func TestCacheFlags(t *testing.T) {
	w := newCacheWS(t, true)
	w.build()
	if ran, _ := w.build("VX_UNUSED=1"); ran != "" {
		t.Fatalf("second run ran %q", ran)
	}
	r := w.vx(nil, "run", "build", "--force")
	if a, b := w.runs(); a != 2 || b != 2 || r.code != 0 {
		t.Errorf("--force: runs a=%d b=%d (want 2 2), exit %d\n%s", a, b, r.code, r.stderr)
	}
	r = w.vx(nil, "run", "build", "--no-cache")
	if a, b := w.runs(); a != 3 || b != 3 {
		t.Errorf("--no-cache: runs a=%d b=%d, want 3 3", a, b)
	}

	// --no-cache writes nothing: a change then a --no-cache run leaves no
	// entry for the new state.
	w.write("packages/b/src/in.txt", "b v3\n")
	w.vx(nil, "run", "build", "--no-cache")
	if ran, _ := w.build(); ran != "b" {
		t.Errorf("after a --no-cache run, ran %q, want b (nothing was stored)", ran)
	}

	// A failing build is not stored.
	w.write("packages/b/build.sh", "echo failing; exit 3\n")
	for i := 0; i < 2; i++ {
		r = w.vx(nil, "run", "build")
		if r.code == 0 || strings.Contains(r.stderr, "cached, 1 ran") && i == 1 && !strings.Contains(r.stderr, "1 failed") {
			t.Errorf("failing build, run %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	// A build that changes its own inputs is not stored.
	w.write("packages/b/build.sh", "mkdir -p dist; date +%s%N > src/stamp.txt; echo ran >> ../../.runs/b\n")
	_, r1 := w.build()
	if !strings.Contains(r1.stderr, "vx: b#build: not cached: its inputs changed while it ran (packages/b/src/stamp.txt ") {
		t.Errorf("want a warning that b's inputs changed, got:\n%s", r1.stderr)
	}
}

// TestCacheConcurrentRuns: two runs in two clones sharing one store at
// the same time both succeed, with correct outputs, and leave a store the
// next run hits in.
func TestCacheConcurrentRuns(t *testing.T) {
	w := newCacheWS(t, true)
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := osexec.Command("git", "clone", "-q", w.root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	w2 := &cacheWS{t: t, root: clone, store: w.store, env: w.env}
	var wg sync.WaitGroup
	results := make([]vxResult, 2)
	for i, ws := range []*cacheWS{w, w2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := osexec.Command("vx", "run", "build", "--force")
			cmd.Dir = ws.root
			cmd.Env = ws.env
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			results[i] = vxResult{o.String(), e.String(), 0}
			if err != nil {
				results[i].code = 1
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r.code != 0 || strings.Contains(r.stderr, "cache") {
			t.Errorf("run %d: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	for _, ws := range []*cacheWS{w, w2} {
		if ran, r := ws.build(); ran != "" {
			t.Errorf("after the concurrent runs, %s ran %q\n%s", ws.root, ran, r.stderr)
		}
		if got := ws.read("packages/b/dist/out.txt"); got != "a v1\necho tool v1\nb v1\n" {
			t.Errorf("b/dist/out.txt = %q", got)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(w.store, "tmp"))
	if len(entries) != 0 {
		t.Errorf("%d temporary files left in the store", len(entries))
	}
}
