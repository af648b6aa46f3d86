package watch

import (
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// fixture is a watched directory and what the watcher sent so far.
type fixture struct {
	t    *testing.T
	root string
	w    *Watcher
	seen []Change
}

func newFixture(t *testing.T, files map[string]string, git bool, o Options) *fixture {
	t.Helper()
	root := testdir.New(t)
	for name, content := range files {
		write(t, root, name, content)
	}
	if git {
		prog := testtool.Need(t, "apt-get install git", "git")
		if out, err := osexec.Command(prog, "-C", root, "init", "-q").CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
		o.Ignored = GitIgnored(prog, root, os.Environ())
	}
	o.Root = root
	if o.Paths == nil {
		o.Paths = []string{"."}
	}
	if o.Skip == nil {
		o.Skip = func(rel string) bool { b := path.Base(rel); return b == "node_modules" || b == ".git" }
	}
	o.Warn = func(s string) { t.Log("warn: " + s) }
	w, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return &fixture{t: t, root: root, w: w}
}

func write(t *testing.T, root, name, content string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// until waits for a batch that holds the path sentinel, at most 10s, and
// returns the paths of every batch received up to it.
func (f *fixture) until(sentinel string) []string {
	f.t.Helper()
	deadline := time.After(10 * time.Second)
	var paths []string
	for {
		select {
		case b, ok := <-f.w.C:
			if !ok {
				f.t.Fatalf("the watcher stopped before %s changed", sentinel)
			}
			done := false
			for _, c := range b.Changes {
				f.seen = append(f.seen, c)
				paths = append(paths, c.Path)
				done = done || c.Path == sentinel
			}
			if done {
				return paths
			}
		case <-deadline:
			f.t.Fatalf("no change of %s within 10s; got %q", sentinel, paths)
		}
	}
}

func TestWatcherSees(t *testing.T) {
	f := newFixture(t, map[string]string{"p/src/a.ts": "a", "p/package.json": "{}", "other/x.ts": "x"}, false,
		Options{Paths: []string{"p", "pnpm-lock.yaml"}})
	write(t, f.root, "p/src/a.ts", "a2")
	if got := f.until("p/src/a.ts"); !slices.Equal(got, []string{"p/src/a.ts"}) {
		t.Errorf("an edit: got %q", got)
	}

	// A directory created later is watched, and a file written in it at
	// once is seen even if it came before the watch did.
	write(t, f.root, "p/src/sub/deep/b.ts", "b")
	f.until("p/src/sub/deep/b.ts")
	write(t, f.root, "p/src/sub/deep/c.ts", "c")
	f.until("p/src/sub/deep/c.ts")

	// Outside the watched paths, under node_modules, and a file written
	// again as it was: not reported. A lockfile at the root is.
	write(t, f.root, "other/x.ts", "x2")
	write(t, f.root, "p/node_modules/dep/index.js", "x")
	write(t, f.root, "p/src/a.ts", "a2")
	write(t, f.root, "pnpm-lock.yaml", "lock")
	if got := f.until("pnpm-lock.yaml"); !slices.Equal(got, []string{"pnpm-lock.yaml"}) {
		t.Errorf("got %q, want only pnpm-lock.yaml", got)
	}

	// An editor's atomic save: a temporary file renamed over the file.
	tmp := filepath.Join(f.root, "p", "src", ".a.ts.tmp")
	if err := os.WriteFile(tmp, []byte("a3"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.root, "p", "src", "a.ts")); err != nil {
		t.Fatal(err)
	}
	if got := f.until("p/src/a.ts"); !slices.Contains(got, "p/src/a.ts") {
		t.Errorf("an atomic save: got %q", got)
	}

	// The executable bit is part of what a file holds (Windows has none).
	if runtime.GOOS != "windows" {
		if err := os.Chmod(filepath.Join(f.root, "p", "src", "a.ts"), 0o755); err != nil {
			t.Fatal(err)
		}
		f.until("p/src/a.ts")
	}

	// A directory removed: the files known in it changed. Under Wine a
	// watched directory cannot be removed while it is watched ("directory
	// is not empty"): there, its files are removed, not the directory.
	sub := filepath.Join(f.root, "p", "src", "sub")
	if runtime.GOOS == "windows" {
		sub = filepath.Join(sub, "deep", "c.ts")
	}
	if err := testdir.RemoveTree(sub); err != nil { // Wine lacks what os.RemoveAll uses on Windows
		t.Fatal(err)
	}
	f.until("p/src/sub/deep/c.ts")
}

// TestWatcherBurst: a thousand files written at once are one batch.
func TestWatcherBurst(t *testing.T) {
	f := newFixture(t, map[string]string{"p/package.json": "{}"}, false, Options{Quiet: time.Second, Max: time.Minute})
	for i := range 1000 {
		write(t, f.root, "p/src/"+fmtPath(i), "x")
	}
	select {
	case b := <-f.w.C:
		if len(b.Changes) != 1000 {
			t.Errorf("the first batch holds %d changes, want 1000", len(b.Changes))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no batch within 30s")
	}
}

// TestWatcherGitIgnored: a directory git ignores is not watched, one
// created later stops being watched once git is asked, and a file git
// ignores is reported as such.
func TestWatcherGitIgnored(t *testing.T) {
	f := newFixture(t, map[string]string{".gitignore": "dist/\n.next/\n*.log\n", "src/a.ts": "a", "dist/a.js": "a"}, true, Options{})
	if f.w.watched["dist"] {
		t.Error("dist, which git ignores, is watched")
	}
	write(t, f.root, "dist/a.js", "b")
	write(t, f.root, "src/a.ts", "b")
	if got := f.until("src/a.ts"); slices.Contains(got, "dist/a.js") {
		t.Errorf("a file in an ignored directory was reported: %q", got)
	}

	write(t, f.root, ".next/cache/x", "1")
	write(t, f.root, "src/a.ts", "c")
	f.until("src/a.ts")
	write(t, f.root, ".next/cache/x", "2")
	write(t, f.root, "src/a.ts", "d")
	if got := f.until("src/a.ts"); slices.Contains(got, ".next/cache/x") {
		t.Errorf("a file in a new ignored directory was still reported once git said so: %q", got)
	}

	write(t, f.root, "src/debug.log", "x")
	write(t, f.root, "src/a.ts", "e")
	f.until("src/a.ts")
	for _, c := range f.seen {
		if c.Path == "src/debug.log" && !c.Ignored || c.Path == "src/a.ts" && c.Ignored {
			t.Errorf("%s: Ignored = %v", c.Path, c.Ignored)
		}
	}
}

func TestLimitMessage(t *testing.T) {
	tests := []struct {
		goos    string
		watches bool
		limit   string
		want    []string
	}{
		{"linux", true, "8192", []string{"fs.inotify.max_user_watches = 8192", "after 42 directories", "sudo sysctl fs.inotify.max_user_watches=524288"}},
		{"linux", false, "", []string{"fs.inotify.max_user_instances"}},
		{"darwin", false, "256", []string{"kqueue", "one open file for every watched file", "open files = 256", "ulimit -n", "kern.maxfilesperproc"}},
		{"windows", false, "", []string{"more than 42 directories"}},
	}
	for _, tt := range tests {
		got := limitMessage(tt.goos, tt.watches, 42, tt.limit)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tt.goos, got, w)
			}
		}
	}
}

// TestWatcherNewDirTemporary: a directory that arrives with its files (a
// rename, a checkout) is scanned; a temporary file the scan found and
// that is gone by the batch is not a change (the rename of an editor's
// save into a new directory reported "b.ts and b.ts.vxtmp changed").
func TestWatcherNewDirTemporary(t *testing.T) {
	// The staging directory is outside the watched paths: only the
	// arrival of the new directory is seen.
	f := newFixture(t, map[string]string{"p/package.json": "{}", "p/src/a.ts": "a"}, false,
		Options{Quiet: 500 * time.Millisecond, Paths: []string{"p"}})
	staging := filepath.Join(f.root, "staging")
	write(t, f.root, "staging/b.ts", "b")
	write(t, f.root, "staging/b.ts.tmp", "partial")
	if err := os.Rename(staging, filepath.Join(f.root, "p", "src", "new")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the scan of the new directory runs meanwhile, within the quiet time
	if err := os.Remove(filepath.Join(f.root, "p", "src", "new", "b.ts.tmp")); err != nil {
		t.Fatal(err)
	}
	if got := f.until("p/src/new/b.ts"); !slices.Equal(got, []string{"p/src/new/b.ts"}) {
		t.Errorf("got %q, want only p/src/new/b.ts", got)
	}
}
