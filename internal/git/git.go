package git

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
)

// Error is a git command that failed.
type Error struct {
	Args   []string // git's arguments
	Code   int      // its exit code; -1 when it did not start or was killed
	Stderr string   // all it printed on its standard error
	Err    error    // how the program failed (*exec.ExitError, or why it did not start)
}

// Error returns one line: "git <args>: " and the first line of git's
// standard error, or Err's text when git printed none.
func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

// Unwrap returns how the program failed.
func (e *Error) Unwrap() error { return e.Err }

// NotARepo reports whether git said that the directory is in no git work
// tree.
func (e *Error) NotARepo() bool { return strings.Contains(e.Stderr, "not a git repository") }

// Run runs the git program at prog with args in dir, with env (plus
// GIT_OPTIONAL_LOCKS=0 and LC_ALL=C) as its environment and stdin (nil
// for none) as its standard input, and returns its standard output. A
// failure is an [*Error].
func Run(prog, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	cmd.Env = append(append(make([]string, 0, len(env)+2), env...), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return nil, &Error{Args: args, Code: code, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}
