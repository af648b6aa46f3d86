package testtool

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// GitRepo is a git repository in a temporary directory, with its own HOME
// and no system configuration, for tests that compare vx's reading of git's
// files (the index, .gitignore) with git's own.
type GitRepo struct {
	T    *testing.T
	Root string
	Env  []string // git's environment
}

// NewGitRepo runs git init (with initArgs) in a new temporary directory,
// on branch main, commits unsigned. Without git the test is skipped (failed
// under CI=true), as for [Need].
func NewGitRepo(t *testing.T, initArgs ...string) *GitRepo {
	t.Helper()
	Need(t, "apt-get install git: the test compares vx's reading of git's files with git's", "git")
	r := &GitRepo{T: t, Root: testdir.New(t)}
	home := testdir.New(t)
	r.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t"}
	if runtime.GOOS == "windows" {
		r.Env = append(r.Env, "SYSTEMROOT="+os.Getenv("SYSTEMROOT"))
	}
	r.Git(append([]string{"init", "-q", "-b", "main"}, initArgs...)...)
	r.Git("config", "commit.gpgsign", "false")
	return r
}

// Git runs git with args in the repository and returns its output; a
// failure ends the test.
func (r *GitRepo) Git(args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Root
	cmd.Env = r.Env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Write replaces the file rel (slash-separated, under the root) with
// content and mode, making its directories.
func (r *GitRepo) Write(rel, content string, mode os.FileMode) {
	r.T.Helper()
	p := filepath.Join(r.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	os.Remove(p)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		r.T.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		r.T.Fatal(err)
	}
}
