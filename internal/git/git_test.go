package git

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testtool"
)

// TestRun: git's output, and its failures as one line with the first line
// of its standard error, not a repository told apart.
func TestRun(t *testing.T) {
	prog := testtool.Need(t, "apt-get install git", "git")
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
	if runtime.GOOS == "windows" {
		env = append(env, "SYSTEMROOT="+os.Getenv("SYSTEMROOT"))
	}
	_, err := Run(prog, dir, env, nil, "status", "--porcelain")
	var ge *Error
	if !errors.As(err, &ge) || !ge.NotARepo() || ge.Code != 128 {
		t.Fatalf("git status outside a repository: %v (%#v), want a not-a-repository *Error with code 128", err, ge)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "git status --porcelain: fatal: not a git repository") {
		t.Errorf("error %q: want one line, git's first", msg)
	}
	if _, err := Run(prog, dir, env, nil, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Run(prog, dir, env, strings.NewReader("a.txt\x00b.txt\x00"), "check-ignore", "--stdin", "-z")
	if !errors.As(err, &ge) || ge.Code != 1 || ge.NotARepo() {
		t.Errorf("check-ignore of nothing ignored: %q, %v: want exit code 1", out, err)
	}
	out, err = Run(prog, dir, env, nil, "ls-files", "--others", "-z")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("a.txt\x00", string(out)); diff != "" {
		t.Errorf("git ls-files (-want +got):\n%s", diff)
	}
}

// TestErrorOneLine: git's advice after its first line stays out; a git
// that printed nothing is named by how it failed.
func TestErrorOneLine(t *testing.T) {
	tests := []struct {
		e    *Error
		want string
	}{
		{&Error{Args: []string{"diff", "x"}, Stderr: "fatal: bad revision 'x'\nhint: use --\nhint: more\n"}, "git diff x: fatal: bad revision 'x'"},
		{&Error{Args: []string{"status"}, Stderr: "  \n", Err: errors.New("exit status 129")}, "git status: exit status 129"},
		{&Error{Args: []string{"log"}, Stderr: "warning: x\r\nfatal: y"}, "git log: warning: x"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.e.Error()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}
