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

func scannerOf(r *testtool.GitRepo) *scanner {
	git, err := osexec.LookPath("git")
	if err != nil {
		r.T.Fatal(err)
	}
	return &scanner{root: r.Root, env: r.Env, git: git}
}

// tracked returns the tracked files' states the way trackedFromIndex (or
// trackedFromGit) and the hashing of the changed ones give them.
func trackedOf(r *testtool.GitRepo, fromIndex bool) (map[string]fileState, error) {
	r.T.Helper()
	sc := scannerOf(r)
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
		r.T.Fatal(err)
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
func indexAgreesWithGit(r *testtool.GitRepo) {
	r.T.Helper()
	want, err := trackedOf(r, false)
	if err != nil {
		r.T.Fatal(err)
	}
	got, err := trackedOf(r, true)
	if err != nil {
		r.T.Fatalf("trackedFromIndex: %v (this index should be read)", err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(fileState{})); diff != "" {
		r.T.Errorf("index and git differ (-git +index):\n%s", diff)
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
	base := func(r *testtool.GitRepo) {
		r.Write("a.txt", "alpha\n", 0o644)
		r.Write("dir/b.txt", "bravo\n", 0o644)
		r.Write("dir/sub/c.txt", "charlie\n", 0o644)
		r.Write("dir/z.txt", "zulu\n", 0o644)
		r.Write("run.sh", "echo hi\n", 0o755)
		r.Write("name with spaces/é.txt", "unicode\n", 0o644)
		if err := os.Symlink("a.txt", filepath.Join(r.Root, "link")); err != nil {
			t.Fatal(err)
		}
		r.Git("add", "-A")
		r.Git("commit", "-qm", "base")
	}
	// old makes every file's time two seconds older, so that no entry is
	// racily clean once git has written the index again.
	old := func(r *testtool.GitRepo) {
		past := time.Now().Add(-5 * time.Second)
		filepath.WalkDir(r.Root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Type()&os.ModeSymlink == 0 && !strings.Contains(p, ".git") {
				os.Chtimes(p, past, past)
			}
			return nil
		})
		cmd := osexec.Command("git", "update-index", "-q", "--refresh")
		cmd.Dir, cmd.Env = r.Root, r.Env
		cmd.Run() // exits 1 when a file needs updating, as some cases want
	}
	tests := []struct {
		name   string
		init   []string
		change func(r *testtool.GitRepo)
	}{
		{"clean, just committed", nil, func(r *testtool.GitRepo) {}},
		{"clean, refreshed", nil, old},
		{"content changed, same size", nil, func(r *testtool.GitRepo) { old(r); r.Write("dir/b.txt", "BRAVO\n", 0o644) }},
		{"content changed, same size, racily", nil, func(r *testtool.GitRepo) { r.Write("dir/b.txt", "BRAVO\n", 0o644) }},
		{"content changed, other size", nil, func(r *testtool.GitRepo) { old(r); r.Write("a.txt", "alpha beta\n", 0o644) }},
		{"deleted", nil, func(r *testtool.GitRepo) { old(r); os.Remove(filepath.Join(r.Root, "dir/sub/c.txt")) }},
		{"directory deleted", nil, func(r *testtool.GitRepo) { old(r); testdir.RemoveTree(filepath.Join(r.Root, "dir")) }},
		{"made executable", nil, func(r *testtool.GitRepo) { old(r); os.Chmod(filepath.Join(r.Root, "a.txt"), 0o755) }},
		{"no longer executable", nil, func(r *testtool.GitRepo) { old(r); os.Chmod(filepath.Join(r.Root, "run.sh"), 0o644) }},
		{"touched, same content", nil, func(r *testtool.GitRepo) {
			old(r)
			now := time.Now().Add(-3 * time.Second)
			os.Chtimes(filepath.Join(r.Root, "a.txt"), now, now)
		}},
		{"file became a symbolic link", nil, func(r *testtool.GitRepo) {
			old(r)
			os.Remove(filepath.Join(r.Root, "a.txt"))
			os.Symlink("dir/b.txt", filepath.Join(r.Root, "a.txt"))
		}},
		{"symbolic link retargeted", nil, func(r *testtool.GitRepo) {
			old(r)
			os.Remove(filepath.Join(r.Root, "link"))
			os.Symlink("run.sh", filepath.Join(r.Root, "link"))
		}},
		{"symbolic link became a file", nil, func(r *testtool.GitRepo) {
			old(r)
			os.Remove(filepath.Join(r.Root, "link"))
			r.Write("link", "a.txt", 0o644)
		}},
		{"file became a directory", nil, func(r *testtool.GitRepo) {
			old(r)
			os.Remove(filepath.Join(r.Root, "dir/z.txt"))
			r.Write("dir/z.txt/inner", "x", 0o644)
		}},
		{"intent to add", nil, func(r *testtool.GitRepo) { r.Write("new.txt", "new\n", 0o644); r.Git("add", "-N", "new.txt"); old(r) }},
		{"skip-worktree, changed", nil, func(r *testtool.GitRepo) {
			old(r)
			r.Git("update-index", "--skip-worktree", "dir/b.txt")
			r.Write("dir/b.txt", "changed but skipped\n", 0o644)
		}},
		{"assume-unchanged, changed", nil, func(r *testtool.GitRepo) {
			old(r)
			r.Git("update-index", "--assume-unchanged", "a.txt")
			r.Write("a.txt", "changed but assumed\n", 0o644)
		}},
		{"index version 4", nil, func(r *testtool.GitRepo) {
			r.Git("update-index", "--index-version", "4")
			old(r)
			r.Write("dir/sub/c.txt", "changed\n", 0o644)
		}},
		{"index version 3", nil, func(r *testtool.GitRepo) {
			r.Git("update-index", "--index-version", "3")
			r.Git("update-index", "--skip-worktree", "dir/z.txt")
			old(r)
			r.Write("a.txt", "ALPHA\n", 0o644)
		}},
		{"unmerged", nil, func(r *testtool.GitRepo) {
			r.Git("checkout", "-qb", "other")
			r.Write("a.txt", "other side\n", 0o644)
			r.Git("commit", "-qam", "other")
			r.Git("checkout", "-q", "main")
			r.Write("a.txt", "main side\n", 0o644)
			r.Git("commit", "-qam", "main")
			cmd := osexec.Command("git", "merge", "-q", "other")
			cmd.Dir, cmd.Env = r.Root, r.Env
			cmd.Run() // conflicts, as intended
		}},
		{"sha256 objects", []string{"--object-format=sha256"}, func(r *testtool.GitRepo) { old(r); r.Write("a.txt", "alpha!\n", 0o644) }},
		{"untracked-cache and fsmonitor extensions", nil, func(r *testtool.GitRepo) {
			r.Git("config", "core.untrackedCache", "true")
			r.Git("update-index", "--untracked-cache")
			r.Git("status", "-uall")
			old(r)
			r.Write("dir/b.txt", "changed\n", 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testtool.NewGitRepo(t, tt.init...)
			base(r)
			tt.change(r)
			indexAgreesWithGit(r)
		})
	}
	// A refreshed index's files are all found clean by their stat data:
	// none is read. (The symbolic link keeps the time it was made at: the
	// index must be written a second later for it not to be racily clean.)
	r := testtool.NewGitRepo(t)
	base(r)
	time.Sleep(1100 * time.Millisecond)
	old(r)
	_, changed, _, err := scannerOf(r).trackedFromIndex(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 0 {
		t.Errorf("clean work tree: files to read %q, want none", changed)
	}
}

// oneFileRepo is a repository whose one commit holds a.txt, on a system
// where vx reads the index.
func oneFileRepo(t *testing.T) *testtool.GitRepo {
	t.Helper()
	if !indexStatSupported {
		t.Skip("the index is not read on " + runtime.GOOS)
	}
	r := testtool.NewGitRepo(t)
	r.Write("a.txt", "a\n", 0o644)
	r.Git("add", "-A")
	r.Git("commit", "-qm", "a")
	return r
}

// TestIndexUnsupported checks that an index vx cannot read as git would is
// refused, so that the scanner asks git: a split index, and an environment
// that points git at another index.
func TestIndexUnsupported(t *testing.T) {
	r := oneFileRepo(t)
	if _, err := trackedOf(r, true); err != nil {
		t.Fatalf("plain index: %v", err)
	}
	sc := scannerOf(r)
	sc.env = append(sc.env, "GIT_INDEX_FILE=/elsewhere")
	if _, _, _, err := sc.trackedFromIndex(nil); !errors.Is(err, errIndexUnsupported) {
		t.Errorf("with GIT_INDEX_FILE: got %v, want errIndexUnsupported", err)
	}
	r.Git("update-index", "--split-index")
	if _, err := trackedOf(r, true); !errors.Is(err, errIndexUnsupported) {
		t.Errorf("split index: got %v, want errIndexUnsupported", err)
	}
	// The scanner as a whole still lists the files, through git.
	snap, err := scannerOf(r).scan(nil)
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
	r.Git("worktree", "add", "-q", wt)
	w := &testtool.GitRepo{T: t, Root: wt, Env: r.Env}
	os.WriteFile(filepath.Join(wt, "a.txt"), []byte("changed in the work tree\n"), 0o644)
	indexAgreesWithGit(w)
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
			r := &testtool.GitRepo{T: t, Root: testdir.New(t), Env: []string{"PATH=" + os.Getenv("PATH")}}
			if useGit {
				r = testtool.NewGitRepo(t)
			}
			r.Write("package.json", `{"workspaces": ["packages/*"]}`, 0o644)
			r.Write("package-lock.json", "{}", 0o644)
			r.Write("scripts/build.mjs", "build", 0o644)
			for _, p := range []string{"a", "b", "c"} {
				r.Write("packages/"+p+"/package.json", `{"name": "`+p+`"}`, 0o644)
				r.Write("packages/"+p+"/src/index.js", "export const "+p+" = 1", 0o644)
			}
			if useGit {
				r.Git("add", "-A")
				r.Git("commit", "-qm", "x")
			}
			r.Write("packages/b/src/new.js", "untracked", 0o644)
			task := func(p string) *TaskSpec {
				return &TaskSpec{ID: p + "#build", RelDir: "packages/" + p, Argv: []string{"build"}, Inputs: []string{"src/**", "//scripts/**"}}
			}
			keys := func(scope []*TaskSpec) map[string]string {
				c, err := newTestComputer(cacheOptions{Dir: testdir.New(t), Root: r.Root, Environ: r.Env, Read: true, EnvKey: PublicEnvKey()})
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
