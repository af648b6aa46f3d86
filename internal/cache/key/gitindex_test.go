package key

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// gitRepo is a repository for the index tests.
type gitRepo struct {
	t    *testing.T
	root string
	env  []string
}

func newGitRepo(t *testing.T, initArgs ...string) *gitRepo {
	t.Helper()
	testtool.Need(t, "apt-get install git: the index tests compare vx's reading of the index with git's", "git")
	r := &gitRepo{t: t, root: testdir.New(t)}
	home := testdir.New(t)
	r.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	if runtime.GOOS == "windows" {
		r.env = append(r.env, "SYSTEMROOT="+os.Getenv("SYSTEMROOT"))
	}
	r.git(append([]string{"init", "-q", "-b", "main"}, initArgs...)...)
	r.git("config", "commit.gpgsign", "false")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.t.Helper()
	cmd := osexec.Command("git", args...)
	cmd.Dir = r.root
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (r *gitRepo) write(rel, content string, mode os.FileMode) {
	r.t.Helper()
	p := filepath.Join(r.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	os.Remove(p)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		r.t.Fatal(err)
	}
}

func (r *gitRepo) scanner() *scanner {
	git, err := osexec.LookPath("git")
	if err != nil {
		r.t.Fatal(err)
	}
	return &scanner{root: r.root, env: r.env, git: git}
}

// tracked returns the tracked files' states the way trackedFromIndex (or
// trackedFromGit) and the hashing of the changed ones give them.
func (r *gitRepo) tracked(fromIndex bool) (map[string]fileState, error) {
	r.t.Helper()
	sc := r.scanner()
	var snap *snapshot
	var changed []string
	var sha bool
	var err error
	if fromIndex {
		snap, changed, sha, err = sc.trackedFromIndex(nil)
	} else {
		snap, changed, sha, err = sc.trackedFromGit([]string{"--"})
	}
	if err != nil {
		return nil, err
	}
	res, err := sc.hashFiles(changed, sha)
	if err != nil {
		r.t.Fatal(err)
	}
	snap.apply(res)
	m := map[string]fileState{}
	for i, p := range snap.paths {
		m[p] = snap.states[i]
	}
	return m, nil
}

// indexAgreesWithGit checks that the tracked files' states read from the
// index are those git gives, and that the index was read at all.
func (r *gitRepo) indexAgreesWithGit() {
	r.t.Helper()
	want, err := r.tracked(false)
	if err != nil {
		r.t.Fatal(err)
	}
	got, err := r.tracked(true)
	if err != nil {
		r.t.Fatalf("trackedFromIndex: %v (this index should be read)", err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fileState{})); diff != "" {
		r.t.Errorf("index and git differ (-git +index):\n%s", diff)
	}
}

// TestIndexMatchesGit checks, case by case, that the tracked files' ids
// vx takes from the index (and from hashing the files it finds changed)
// are those git itself gives: git ls-files -s, with the files git
// diff-files lists hashed.
func TestIndexMatchesGit(t *testing.T) {
	if !indexStatSupported {
		t.Skip("the index is not read on " + runtime.GOOS)
	}
	base := func(r *gitRepo) {
		r.write("a.txt", "alpha\n", 0o644)
		r.write("dir/b.txt", "bravo\n", 0o644)
		r.write("dir/sub/c.txt", "charlie\n", 0o644)
		r.write("dir/z.txt", "zulu\n", 0o644)
		r.write("run.sh", "echo hi\n", 0o755)
		r.write("name with spaces/é.txt", "unicode\n", 0o644)
		if err := os.Symlink("a.txt", filepath.Join(r.root, "link")); err != nil {
			t.Fatal(err)
		}
		r.git("add", "-A")
		r.git("commit", "-qm", "base")
	}
	// old makes every file's time two seconds older, so that no entry is
	// racily clean once git has written the index again.
	old := func(r *gitRepo) {
		past := time.Now().Add(-5 * time.Second)
		filepath.WalkDir(r.root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Type()&os.ModeSymlink == 0 && !strings.Contains(p, ".git") {
				os.Chtimes(p, past, past)
			}
			return nil
		})
		cmd := osexec.Command("git", "update-index", "-q", "--refresh")
		cmd.Dir, cmd.Env = r.root, r.env
		cmd.Run() // exits 1 when a file needs updating, as some cases want
	}
	tests := []struct {
		name   string
		init   []string
		change func(r *gitRepo)
	}{
		{"clean, just committed", nil, func(r *gitRepo) {}},
		{"clean, refreshed", nil, old},
		{"content changed, same size", nil, func(r *gitRepo) { old(r); r.write("dir/b.txt", "BRAVO\n", 0o644) }},
		{"content changed, same size, racily", nil, func(r *gitRepo) { r.write("dir/b.txt", "BRAVO\n", 0o644) }},
		{"content changed, other size", nil, func(r *gitRepo) { old(r); r.write("a.txt", "alpha beta\n", 0o644) }},
		{"deleted", nil, func(r *gitRepo) { old(r); os.Remove(filepath.Join(r.root, "dir/sub/c.txt")) }},
		{"directory deleted", nil, func(r *gitRepo) { old(r); testdir.RemoveTree(filepath.Join(r.root, "dir")) }},
		{"made executable", nil, func(r *gitRepo) { old(r); os.Chmod(filepath.Join(r.root, "a.txt"), 0o755) }},
		{"no longer executable", nil, func(r *gitRepo) { old(r); os.Chmod(filepath.Join(r.root, "run.sh"), 0o644) }},
		{"touched, same content", nil, func(r *gitRepo) {
			old(r)
			now := time.Now().Add(-3 * time.Second)
			os.Chtimes(filepath.Join(r.root, "a.txt"), now, now)
		}},
		{"file became a symbolic link", nil, func(r *gitRepo) {
			old(r)
			os.Remove(filepath.Join(r.root, "a.txt"))
			os.Symlink("dir/b.txt", filepath.Join(r.root, "a.txt"))
		}},
		{"symbolic link retargeted", nil, func(r *gitRepo) {
			old(r)
			os.Remove(filepath.Join(r.root, "link"))
			os.Symlink("run.sh", filepath.Join(r.root, "link"))
		}},
		{"symbolic link became a file", nil, func(r *gitRepo) { old(r); os.Remove(filepath.Join(r.root, "link")); r.write("link", "a.txt", 0o644) }},
		{"file became a directory", nil, func(r *gitRepo) {
			old(r)
			os.Remove(filepath.Join(r.root, "dir/z.txt"))
			r.write("dir/z.txt/inner", "x", 0o644)
		}},
		{"intent to add", nil, func(r *gitRepo) { r.write("new.txt", "new\n", 0o644); r.git("add", "-N", "new.txt"); old(r) }},
		{"skip-worktree, changed", nil, func(r *gitRepo) {
			old(r)
			r.git("update-index", "--skip-worktree", "dir/b.txt")
			r.write("dir/b.txt", "changed but skipped\n", 0o644)
		}},
		{"assume-unchanged, changed", nil, func(r *gitRepo) {
			old(r)
			r.git("update-index", "--assume-unchanged", "a.txt")
			r.write("a.txt", "changed but assumed\n", 0o644)
		}},
		{"index version 4", nil, func(r *gitRepo) {
			r.git("update-index", "--index-version", "4")
			old(r)
			r.write("dir/sub/c.txt", "changed\n", 0o644)
		}},
		{"index version 3", nil, func(r *gitRepo) {
			r.git("update-index", "--index-version", "3")
			r.git("update-index", "--skip-worktree", "dir/z.txt")
			old(r)
			r.write("a.txt", "ALPHA\n", 0o644)
		}},
		{"unmerged", nil, func(r *gitRepo) {
			r.git("checkout", "-qb", "other")
			r.write("a.txt", "other side\n", 0o644)
			r.git("commit", "-qam", "other")
			r.git("checkout", "-q", "main")
			r.write("a.txt", "main side\n", 0o644)
			r.git("commit", "-qam", "main")
			cmd := osexec.Command("git", "merge", "-q", "other")
			cmd.Dir, cmd.Env = r.root, r.env
			cmd.Run() // conflicts, as intended
		}},
		{"sha256 objects", []string{"--object-format=sha256"}, func(r *gitRepo) { old(r); r.write("a.txt", "alpha!\n", 0o644) }},
		{"untracked-cache and fsmonitor extensions", nil, func(r *gitRepo) {
			r.git("config", "core.untrackedCache", "true")
			r.git("update-index", "--untracked-cache")
			r.git("status", "-uall")
			old(r)
			r.write("dir/b.txt", "changed\n", 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newGitRepo(t, tt.init...)
			base(r)
			tt.change(r)
			r.indexAgreesWithGit()
		})
	}
	// A refreshed index's files are all found clean by their stat data:
	// none is read. (The symbolic link keeps the time it was made at: the
	// index must be written a second later for it not to be racily clean.)
	r := newGitRepo(t)
	base(r)
	time.Sleep(1100 * time.Millisecond)
	old(r)
	_, changed, _, err := r.scanner().trackedFromIndex(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 0 {
		t.Errorf("clean work tree: files to read %q, want none", changed)
	}
}

// oneFileRepo is a repository whose one commit holds a.txt, on a system
// where vx reads the index.
func oneFileRepo(t *testing.T) *gitRepo {
	t.Helper()
	if !indexStatSupported {
		t.Skip("the index is not read on " + runtime.GOOS)
	}
	r := newGitRepo(t)
	r.write("a.txt", "a\n", 0o644)
	r.git("add", "-A")
	r.git("commit", "-qm", "a")
	return r
}

// TestIndexUnsupported checks that an index vx cannot read as git would is
// refused, so that the scanner asks git: a split index, and an environment
// that points git at another index.
func TestIndexUnsupported(t *testing.T) {
	r := oneFileRepo(t)
	if _, err := r.tracked(true); err != nil {
		t.Fatalf("plain index: %v", err)
	}
	sc := r.scanner()
	sc.env = append(sc.env, "GIT_INDEX_FILE=/elsewhere")
	if _, _, _, err := sc.trackedFromIndex(nil); !errors.Is(err, errIndexUnsupported) {
		t.Errorf("with GIT_INDEX_FILE: got %v, want errIndexUnsupported", err)
	}
	r.git("update-index", "--split-index")
	if _, err := r.tracked(true); !errors.Is(err, errIndexUnsupported) {
		t.Errorf("split index: got %v, want errIndexUnsupported", err)
	}
	// The scanner as a whole still lists the files, through git.
	snap, err := r.scanner().scan(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.txt"}, snap.paths); diff != "" {
		t.Errorf("scan of a split index (-want +got):\n%s", diff)
	}
}

// TestIndexLinkedWorktree reads the index of a linked work tree, whose
// .git is a file naming its git directory.
func TestIndexLinkedWorktree(t *testing.T) {
	r := oneFileRepo(t)
	wt := filepath.Join(testdir.New(t), "wt")
	r.git("worktree", "add", "-q", wt)
	w := &gitRepo{t: t, root: wt, env: r.env}
	os.WriteFile(filepath.Join(wt, "a.txt"), []byte("changed in the work tree\n"), 0o644)
	w.indexAgreesWithGit()
}

// FuzzParseIndex checks that no index, however damaged, makes the reader
// panic or loop: it is a file anyone can write.
func FuzzParseIndex(f *testing.F) {
	if _, err := osexec.LookPath("git"); err == nil {
		for _, version := range []string{"2", "3", "4"} {
			dir := f.TempDir()
			run := func(args ...string) {
				cmd := osexec.Command("git", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
				cmd.Run()
			}
			run("init", "-q")
			os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
			os.MkdirAll(filepath.Join(dir, "d/e"), 0o755)
			os.WriteFile(filepath.Join(dir, "d/e/f"), []byte("f"), 0o644)
			run("add", "-A")
			run("update-index", "--index-version", version)
			if b, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte("DIRC\x00\x00\x00\x02\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, n := range []int{20, 32} {
			x, err := parseIndex(data, n)
			if err == nil {
				for _, e := range x.entries {
					if e.path == "" || len(e.id) != 2*n {
						t.Fatalf("entry %+v from an index that parsed", e)
					}
				}
			}
		}
	})
}

// TestPreparedScope checks that a snapshot restricted to the run's projects
// gives the keys a whole-workspace one gives, for the tasks inside it and
// for a task outside it (which gets a scan of its own), with git and
// without.
func TestPreparedScope(t *testing.T) {
	for _, useGit := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "no git"}[useGit], func(t *testing.T) {
			r := &gitRepo{t: t, root: testdir.New(t), env: []string{"PATH=" + os.Getenv("PATH")}}
			if useGit {
				r = newGitRepo(t)
			}
			r.write("package.json", `{"workspaces": ["packages/*"]}`, 0o644)
			r.write("package-lock.json", "{}", 0o644)
			r.write("scripts/build.mjs", "build", 0o644)
			for _, p := range []string{"a", "b", "c"} {
				r.write("packages/"+p+"/package.json", `{"name": "`+p+`"}`, 0o644)
				r.write("packages/"+p+"/src/index.js", "export const "+p+" = 1", 0o644)
			}
			if useGit {
				r.git("add", "-A")
				r.git("commit", "-qm", "x")
			}
			r.write("packages/b/src/new.js", "untracked", 0o644)
			task := func(p string) *TaskSpec {
				return &TaskSpec{ID: p + "#build", RelDir: "packages/" + p, Argv: []string{"build"}, Inputs: []string{"src/**", "//scripts/**"}}
			}
			keys := func(scope []*TaskSpec) map[string]string {
				c, err := newTestComputer(cacheOptions{Dir: testdir.New(t), Root: r.root, Environ: r.env, Read: true, EnvKey: PublicEnvKey()})
				if err != nil {
					t.Fatal(err)
				}
				defer c.CloseReadOnly()
				if scope != nil {
					c.Prepare(scope)
				}
				m := map[string]string{}
				for _, p := range []string{"a", "b", "c"} {
					k, err := c.Key(task(p))
					if err != nil {
						t.Fatal(err)
					}
					m[p] = k.Action.Hash + fmt.Sprint(len(k.Inputs))
				}
				return m
			}
			whole := keys(nil)
			if diff := cmp.Diff(whole, keys([]*TaskSpec{task("a"), task("b")})); diff != "" {
				t.Errorf("restricted to a and b (-whole +restricted):\n%s", diff)
			}
			if diff := cmp.Diff(whole, keys([]*TaskSpec{{RelDir: "."}})); diff != "" {
				t.Errorf("the root in scope (-whole +restricted):\n%s", diff)
			}
		})
	}
}
