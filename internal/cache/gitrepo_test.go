package cache

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// gitRepo is a git repository for the tests (a copy of
// internal/cache/key's test helper).
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
	cmd := exec.Command("git", args...)
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
