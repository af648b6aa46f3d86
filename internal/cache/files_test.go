package cache

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
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
	ctime0, _ := changeStamp(p, before)
	// Rewrite until the change time moves (the file system's clock ticks
	// every few milliseconds), each time putting the old time back.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := os.WriteFile(p, []byte("ALPHA\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		fi, _ := os.Lstat(p)
		if c, _ := changeStamp(p, fi); c != ctime0 || time.Now().After(deadline) {
			if c == ctime0 {
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
func (r *gitRepo) diskStates(rels ...string) map[string]fileState {
	r.t.Helper()
	m := map[string]fileState{}
	for _, rel := range rels {
		p := filepath.Join(r.root, filepath.FromSlash(rel))
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
			r.t.Fatal(err)
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
		change func(r *gitRepo, f func(string) string)
	}{
		{"assume-unchanged, changed", func(r *gitRepo, f func(string) string) {
			r.git("update-index", "--assume-unchanged", f("a.txt"))
			r.write(f("a.txt"), "changed but assumed unchanged\n", 0o644)
		}},
		{"assume-unchanged, same size", func(r *gitRepo, f func(string) string) {
			r.git("update-index", "--assume-unchanged", f("a.txt"))
			r.write(f("a.txt"), "ALPHA\n", 0o644)
		}},
		{"skip-worktree, changed", func(r *gitRepo, f func(string) string) {
			r.git("update-index", "--skip-worktree", f("b.txt"))
			r.write(f("b.txt"), "changed but skipped\n", 0o644)
		}},
		{"skip-worktree, deleted", func(r *gitRepo, f func(string) string) {
			r.git("update-index", "--skip-worktree", f("b.txt"))
			os.Remove(filepath.Join(r.root, f("b.txt")))
		}},
		{"both flags, changed", func(r *gitRepo, f func(string) string) {
			r.git("update-index", "--assume-unchanged", "--skip-worktree", f("c.txt"))
			r.write(f("c.txt"), "changed, both flags\n", 0o644)
		}},
		{"fileMode false, made executable", func(r *gitRepo, f func(string) string) {
			r.git("config", "core.fileMode", "false")
			os.Chmod(filepath.Join(r.root, f("a.txt")), 0o755)
		}},
		{"fileMode false, no longer executable", func(r *gitRepo, f func(string) string) {
			r.git("config", "core.fileMode", "false")
			os.Chmod(filepath.Join(r.root, f("run.sh")), 0o644)
		}},
		{"assume-unchanged, made executable", func(r *gitRepo, f func(string) string) {
			r.git("update-index", "--assume-unchanged", f("a.txt"))
			os.Chmod(filepath.Join(r.root, f("a.txt")), 0o755)
		}},
	}
	for _, tt := range tests {
		for _, sub := range []string{"", "ws/"} {
			t.Run(tt.name+map[string]string{"": "", "ws/": ", workspace below the top"}[sub], func(t *testing.T) {
				r := newGitRepo(t)
				f := func(name string) string { return sub + name }
				r.write(f("a.txt"), "alpha\n", 0o644)
				r.write(f("b.txt"), "bravo\n", 0o644)
				r.write(f("c.txt"), "charlie\n", 0o644)
				r.write(f("run.sh"), "echo hi\n", 0o755)
				r.git("add", "-A")
				r.git("commit", "-qm", "base")
				tt.change(r, f)
				ws := &gitRepo{t: t, root: filepath.Join(r.root, sub), env: r.env}
				want := ws.diskStates("a.txt", "b.txt", "c.txt", "run.sh")
				ways := []bool{false}
				if indexStatSupported && sub == "" {
					ways = append(ways, true)
				}
				for _, fromIndex := range ways {
					got, err := ws.tracked(fromIndex)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmp.AllowUnexported(fileState{})); diff != "" {
						t.Errorf("from the index %v (-disk +vx):\n%s", fromIndex, diff)
					}
				}
			})
		}
	}
}
