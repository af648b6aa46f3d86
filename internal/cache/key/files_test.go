package key

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"github.com/vxrun/vx/internal/testtool"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
)

// TestMemoSeesSameSizeRewrite: a file rewritten with content of the same
// size, its old modification time put back (as cp -p, tar or touch -r
// do), is read again, not taken from the memo: its change time moved.
func TestMemoSeesSameSizeRewrite(t *testing.T) {
	dir := testdir.New(t)
	sc := &scanner{root: dir, memo: &memo{}}
	p := filepath.Join(dir, "a.txt")
	old := time.Now().Add(-time.Hour)
	if err := os.WriteFile(p, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, old, old)
	later := time.Now().Add(time.Hour) // past the racy window: memoised
	first, ok, err := sc.hashOne("a.txt", false, later)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, ok := sc.memo.get(p); !ok {
		t.Fatal("the file was not memoised")
	}
	before, _ := os.Lstat(p)
	st0, _ := lstat(p)
	// Rewrite until the change time moves (the file system's clock ticks
	// every few milliseconds), each time putting the old time back.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := os.WriteFile(p, []byte("ALPHA\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		if st, _ := lstat(p); st.ctime != st0.ctime || time.Now().After(deadline) {
			if st.ctime == st0.ctime {
				t.Skip("the change time did not move in 5 s: no ctime here")
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
	if fi, _ := os.Lstat(p); fi.Size() != before.Size() || !fi.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the rewrite should keep size and time: %v %v, was %v %v", fi.Size(), fi.ModTime(), before.Size(), before.ModTime())
	}
	second, _, err := sc.hashOne("a.txt", false, later)
	if err != nil {
		t.Fatal(err)
	}
	if second.id == first.id {
		t.Errorf("same-size rewrite with the old modification time: the memo gave the old id %s", first.id)
	}
	if want := gitBlobID("ALPHA\n"); second.id != want {
		t.Errorf("id %s, want %s", second.id, want)
	}
}

// gitBlobID is git's SHA-1 id of a blob with this content.
func gitBlobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}

// diskStates returns the states the key must give the files at rels (from
// the root of r): the git blob id of what is on the disk and its
// executable bit; a file that is not there is left out.
func diskStates(r *testtool.GitRepo, rels ...string) map[string]fileState {
	r.T.Helper()
	m := map[string]fileState{}
	for _, rel := range rels {
		p := filepath.Join(r.Root, filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			m[rel] = fileState{id: gitBlobID(filepath.ToSlash(target))}
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			r.T.Fatal(err)
		}
		m[rel] = fileState{id: gitBlobID(string(b)), exec: diskExec && fi.Mode()&0o100 != 0}
	}
	return m
}

// TestFilesGitOverlooks: files git is told not to look at (assume-unchanged,
// skip-worktree) and executable bits it is told to overlook
// (core.fileMode=false) count as they are on the disk, which is what the
// task reads: read from the index directly, through git (the path taken on
// Windows and in other cases), and with the workspace below the top of the
// repository.
func TestFilesGitOverlooks(t *testing.T) {
	tests := []struct {
		name   string
		change func(r *testtool.GitRepo, f func(string) string)
	}{
		{"assume-unchanged, changed", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("update-index", "--assume-unchanged", f("a.txt"))
			r.Write(f("a.txt"), "changed but assumed unchanged\n", 0o644)
		}},
		{"assume-unchanged, same size", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("update-index", "--assume-unchanged", f("a.txt"))
			r.Write(f("a.txt"), "ALPHA\n", 0o644)
		}},
		{"skip-worktree, changed", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("update-index", "--skip-worktree", f("b.txt"))
			r.Write(f("b.txt"), "changed but skipped\n", 0o644)
		}},
		{"skip-worktree, deleted", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("update-index", "--skip-worktree", f("b.txt"))
			os.Remove(filepath.Join(r.Root, f("b.txt")))
		}},
		{"both flags, changed", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("update-index", "--assume-unchanged", "--skip-worktree", f("c.txt"))
			r.Write(f("c.txt"), "changed, both flags\n", 0o644)
		}},
		{"fileMode false, made executable", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("config", "core.fileMode", "false")
			os.Chmod(filepath.Join(r.Root, f("a.txt")), 0o755)
		}},
		{"fileMode false, no longer executable", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("config", "core.fileMode", "false")
			os.Chmod(filepath.Join(r.Root, f("run.sh")), 0o644)
		}},
		{"assume-unchanged, made executable", func(r *testtool.GitRepo, f func(string) string) {
			r.Git("update-index", "--assume-unchanged", f("a.txt"))
			os.Chmod(filepath.Join(r.Root, f("a.txt")), 0o755)
		}},
	}
	for _, tt := range tests {
		for _, sub := range []string{"", "ws/"} {
			t.Run(tt.name+map[string]string{"": "", "ws/": ", workspace below the top"}[sub], func(t *testing.T) {
				r := testtool.NewGitRepo(t)
				f := func(name string) string { return sub + name }
				r.Write(f("a.txt"), "alpha\n", 0o644)
				r.Write(f("b.txt"), "bravo\n", 0o644)
				r.Write(f("c.txt"), "charlie\n", 0o644)
				r.Write(f("run.sh"), "echo hi\n", 0o755)
				r.Git("add", "-A")
				r.Git("commit", "-qm", "base")
				tt.change(r, f)
				ws := &testtool.GitRepo{T: t, Root: filepath.Join(r.Root, sub), Env: r.Env}
				want := diskStates(ws, "a.txt", "b.txt", "c.txt", "run.sh")
				ways := []bool{false}
				if indexStatSupported && sub == "" {
					ways = append(ways, true)
				}
				for _, fromIndex := range ways {
					got, err := trackedOf(ws, fromIndex)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, sameFileState); diff != "" {
						t.Errorf("from the index %v (-disk +vx):\n%s", fromIndex, diff)
					}
				}
			})
		}
	}
}

// TestNestedRepositories: the files of a submodule, and of a repository
// inside the workspace that git does not track, count as they are in their
// work trees (their tracked files, changed or not, and the untracked ones
// their ignore rules do not ignore), not as the commit the index records:
// an edit inside a submodule changes the key. Also when the scan is
// restricted to a directory inside the submodule.
func TestNestedRepositories(t *testing.T) {
	lib := testtool.NewGitRepo(t)
	lib.Write("pkg/index.js", "export const lib = 1\n", 0o644)
	lib.Write(".gitignore", "*.log\n", 0o644)
	lib.Git("add", "-A")
	lib.Git("commit", "-qm", "lib")

	r := testtool.NewGitRepo(t)
	r.Write("app/index.js", "app\n", 0o644)
	r.Git("add", "-A")
	r.Git("commit", "-qm", "app")
	r.Git("-c", "protocol.file.allow=always", "submodule", "add", "-q", lib.Root, "vendor/lib")
	r.Git("commit", "-qm", "submodule")
	inner := &testtool.GitRepo{T: t, Root: filepath.Join(r.Root, "inner"), Env: r.Env}
	os.MkdirAll(inner.Root, 0o755)
	inner.Git("init", "-q")
	inner.Write("tracked.txt", "tracked in inner\n", 0o644)
	inner.Git("add", "-A")
	inner.Git("-c", "commit.gpgsign=false", "commit", "-qm", "inner")

	r.Write("vendor/lib/pkg/index.js", "export const lib = 2 // edited in the submodule\n", 0o644)
	r.Write("vendor/lib/pkg/new.js", "untracked in the submodule\n", 0o644)
	r.Write("vendor/lib/pkg/debug.log", "ignored by the submodule\n", 0o644)
	r.Write("inner/untracked.txt", "untracked in inner\n", 0o644)

	want := diskStates(r, "app/index.js", ".gitmodules", "vendor/lib/.gitignore", "vendor/lib/pkg/index.js",
		"vendor/lib/pkg/new.js", "inner/tracked.txt", "inner/untracked.txt")
	check := func(want map[string]fileState) {
		t.Helper()
		for _, throughGit := range []bool{false, true} {
			for _, dirs := range [][]string{nil, {"vendor/lib/pkg", "inner", "app", ".gitmodules"}} {
				sc := scannerOf(r)
				if throughGit { // as in a git hook: the index is not read directly
					sc.env = append(sc.env, "GIT_INDEX_FILE="+filepath.Join(r.Root, ".git", "index"))
				}
				snap, err := sc.scan(dirs)
				if err != nil {
					t.Fatalf("scan %q: %v", dirs, err)
				}
				got := map[string]fileState{}
				for i, p := range snap.paths {
					got[p] = snap.states[i]
				}
				want := maps.Clone(want)
				if dirs != nil { // not asked for; the whole submodule may come
					delete(want, "vendor/lib/.gitignore")
					delete(got, "vendor/lib/.gitignore")
				}
				if diff := cmp.Diff(want, got, sameFileState); diff != "" {
					t.Errorf("scan %q, through git %v (-disk +vx):\n%s", dirs, throughGit, diff)
				}
			}
		}
	}
	check(want)

	// A submodule that is not checked out: what its directory holds.
	r.Git("submodule", "deinit", "-q", "-f", "vendor/lib")
	delete(want, "vendor/lib/.gitignore")
	delete(want, "vendor/lib/pkg/index.js")
	delete(want, "vendor/lib/pkg/new.js")
	check(want)
	r.Write("vendor/lib/pkg/stray.js", "a file in a submodule that is not checked out\n", 0o644)
	want["vendor/lib/pkg/stray.js"] = diskStates(r, "vendor/lib/pkg/stray.js")["vendor/lib/pkg/stray.js"]
	check(want)
}

// TestGitErrorIsOneLine: git's refusals come with advice on more lines
// (a repository of another user: "detected dubious ownership", then the
// command to allow it); vx's warning keeps the first, on one line.
func TestGitErrorIsOneLine(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake git is a shell script")
	}
	dir := testdir.New(t)
	git := filepath.Join(dir, "git")
	script := "#!/bin/sh\nprintf \"fatal: detected dubious ownership in repository at '/r'\\nTo add an exception for this directory, call:\\n\\n\\tgit config --global --add safe.directory /r\\n\" >&2\nexit 128\n"
	if err := os.WriteFile(git, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	sc := &scanner{root: dir, git: git}
	_, err := sc.runGit("ls-files")
	if err == nil {
		t.Fatal("no error from a git that failed")
	}
	if want := "fatal: detected dubious ownership in repository at '/r'"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %q, want one line ending in %q", err, want)
	}
}

// sameFileState compares file states by what the key holds of them: id and
// executable bit.
var sameFileState = cmp.Comparer(func(a, b fileState) bool { return a.id == b.id && a.exec == b.exec })
