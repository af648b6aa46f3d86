package exec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// deadline bounds every wait in these tests: a hang fails the test instead
// of the whole run. It is no speed goal (Wine is slow to start processes).
const deadline = 60 * time.Second

func init() {
	// args prints each argument on its own line, Go-quoted.
	registerHelper("args", func(args []string) int {
		for _, a := range args {
			fmt.Println(strconv.Quote(a))
		}
		return 0
	})
	// sleep sleeps for 300 seconds, or forever in effect.
	registerHelper("sleep", func([]string) int {
		time.Sleep(300 * time.Second)
		return 0
	})
	// spawn starts a "sleep" grandchild from the same binary, prints
	// "grandchild <pid>", then sleeps.
	registerHelper("spawn", func([]string) int {
		self, err := os.Executable()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		c := osexec.Command(self)
		c.Env = append(os.Environ(), helperEnv+"=sleep")
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("grandchild %d\n", c.Process.Pid)
		time.Sleep(300 * time.Second)
		return 0
	})
}

// testEnv is a minimal child env: what the shell needs to be found and to
// run on this OS, plus extra.
func testEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	names := []string{"PATH"}
	if runtime.GOOS == "windows" {
		names = []string{"Path", "SystemRoot", "ComSpec"}
	}
	var env []string
	for _, n := range names {
		if v := lpGetenv(os.Environ(), n, runtime.GOOS == "windows"); v != "" {
			env = append(env, n+"="+v)
		}
	}
	return append(env, extra...)
}

func mustExecutable(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// testBinary returns the test binary's path, quoted for the OS's shell.
func testBinary(t *testing.T) string {
	t.Helper()
	self := mustExecutable(t)
	if runtime.GOOS == "windows" {
		return `"` + self + `"`
	}
	return shQuotePOSIX(self)
}

// syncBuffer is a bytes.Buffer safe for the copy goroutine and the test,
// which can wait for a text to appear.
type syncBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	notify chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{notify: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the output contains text, failing after deadline.
func (s *syncBuffer) waitFor(t *testing.T, text string) string {
	t.Helper()
	timeout := time.After(deadline)
	for {
		if out := s.String(); strings.Contains(out, text) {
			return out
		}
		select {
		case <-s.notify:
		case <-timeout:
			t.Fatalf("output %q does not contain %q after %v", s.String(), text, deadline)
		}
	}
}

// startT starts spec and makes sure the tree is killed when the test ends.
func startT(t *testing.T, spec Spec) *Process {
	t.Helper()
	p, err := Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start(%q) error: %v", spec.Script, err)
	}
	t.Cleanup(func() { p.Kill() })
	return p
}

// waitWithin is Wait bounded by deadline: a hang fails the test.
func waitWithin(t *testing.T, p *Process) (Result, error) {
	t.Helper()
	type done struct {
		r   Result
		err error
	}
	ch := make(chan done, 1)
	go func() {
		r, err := p.Wait()
		ch <- done{r, err}
	}()
	select {
	case d := <-ch:
		return d.r, d.err
	case <-time.After(deadline):
		p.Kill()
		t.Fatalf("Wait did not return within %v", deadline)
	}
	return Result{}, nil
}

// roundTripArgs are arguments that must reach a program unchanged through
// the shell, whichever shell it is.
var roundTripArgs = []string{
	"plain", "a b", "", `say "hi"`, "it's", "$HOME", "`id`", "a&b", "a|b", "<in>", "(p)",
	"x^y", "%PATH%", `C:\a b\`, `back\slash`, "tab\there", "semi;colon", "*", "100%",
	`"`, `\`, `\"x`, "hi!", "--flag=a b", "%OS%%PATH%", "a %PATH% b", "!PATH!", "%cd:~,%", "^%PATH^%",
}

// TestStartArgsReachProgram runs a program through the real shell with
// arguments full of shell syntax: each must arrive as one argument, as is.
func TestStartArgsReachProgram(t *testing.T) {
	t.Parallel()
	args := roundTripArgs
	got := argsReceived(t, Spec{Script: testBinary(t), Args: args, Env: testEnv(t, helperEnv+"=args")})
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("args received mismatch (-want +got):\n%s", diff)
	}
}

// TestStartProgramArgs starts a program directly, without a shell: every
// argument arrives as one, as is (CommandLineToArgvW's quoting on Windows).
func TestStartProgramArgs(t *testing.T) {
	t.Parallel()
	args := roundTripArgs
	got := argsReceived(t, Spec{Program: mustExecutable(t), Args: args, Env: testEnv(t, helperEnv+"=args")})
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("args received mismatch (-want +got):\n%s", diff)
	}
}

// argsReceived runs spec, whose program is the "args" helper, and returns
// the arguments the helper received.
func argsReceived(t *testing.T, spec Spec) []string {
	t.Helper()
	out := newSyncBuffer()
	spec.Stdout, spec.Stderr = out, out
	p := startT(t, spec)
	res, err := waitWithin(t, p)
	if err != nil || res != (Result{}) {
		t.Fatalf("Wait() = %+v, %v; want exit 0; output:\n%s", res, err, out)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(strings.ReplaceAll(out.String(), "\r\n", "\n")), "\n") {
		s, err := strconv.Unquote(line)
		if err != nil {
			t.Fatalf("unexpected output line %q in:\n%s", line, out)
		}
		got = append(got, s)
	}
	return got
}

// TestStartShellNotInChildPath shows the shell is looked up in the child's
// env only: with no PATH there, Start fails although vx's PATH has one.
func TestStartShellNotInChildPath(t *testing.T) {
	t.Parallel()
	missing := mustExecutable(t) + ".missing" // a directory that does not exist
	for _, env := range [][]string{nil, {"PATH=" + missing, "Path=" + missing}} {
		_, err := Start(context.Background(), Spec{Script: "echo hi", Env: env})
		if !errors.Is(err, osexec.ErrNotFound) {
			t.Errorf("Start(env %q) error = %v, want %v", env, err, osexec.ErrNotFound)
		}
	}
}

// TestWaitTwiceAndSignalAfterWait: Wait is idempotent; a finished task
// cannot be signalled (its ids may belong to others now).
func TestWaitTwiceAndSignalAfterWait(t *testing.T) {
	t.Parallel()
	p := startT(t, Spec{Script: exitScript(7), Env: testEnv(t)})
	r1, err1 := waitWithin(t, p)
	r2, err2 := p.Wait()
	if r1 != (Result{ExitCode: 7}) || r1 != r2 || err1 != nil || err2 != nil {
		t.Errorf("Wait() twice = %+v, %v and %+v, %v; want exit 7 both times", r1, err1, r2, err2)
	}
	if err := p.Signal(os.Interrupt); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal() after Wait = %v, want %v", err, os.ErrProcessDone)
	}
	if err := p.Kill(); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Kill() after Wait = %v, want %v", err, os.ErrProcessDone)
	}
}

// exitScript is a script ending with code on this OS's shell.
func exitScript(code int) string {
	if runtime.GOOS == "windows" {
		return "exit /b " + strconv.Itoa(code)
	}
	return "exit " + strconv.Itoa(code)
}

// TestStdinFromReader feeds a non-file reader to the child through a pipe.
func TestStdinFromReader(t *testing.T) {
	t.Parallel()
	script := "cat"
	if runtime.GOOS == "windows" {
		script = "more"
	}
	out := newSyncBuffer()
	p := startT(t, Spec{Script: script, Env: testEnv(t), Stdin: strings.NewReader("line one\nline two\n"), Stdout: out})
	res, err := waitWithin(t, p)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("Wait() = %+v, %v; want exit 0", res, err)
	}
	if got := strings.ReplaceAll(out.String(), "\r\n", "\n"); got != "line one\nline two\n" {
		t.Errorf("output = %q, want %q", got, "line one\nline two\n")
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestOutputWriteErrorDoesNotBlockChild: when Stdout fails, the child keeps
// writing (its output is drained) and Wait reports the error with the
// child's real exit status.
func TestOutputWriteErrorDoesNotBlockChild(t *testing.T) {
	t.Parallel()
	// Far more than a pipe buffer holds.
	script := "i=0; while [ $i -lt 2000 ]; do echo 0123456789012345678901234567890123456789012345678901234567890123456789; i=$((i+1)); done; exit 3"
	if runtime.GOOS == "windows" {
		script = "for /l %i in (1,1,2000) do @echo 0123456789012345678901234567890123456789012345678901234567890123456789"
	}
	p := startT(t, Spec{Script: script, Env: testEnv(t), Stdout: failingWriter{}})
	res, err := waitWithin(t, p)
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Wait() error = %v, want the write error", err)
	}
	if runtime.GOOS != "windows" && res.ExitCode != 3 {
		t.Errorf("Wait() = %+v, want exit 3", res)
	}
}

// BenchmarkStartWait is the fixed cost vx adds to a task: look the shell up
// in the child's PATH, start it in its own group or job with piped output,
// wait, and check nothing is left of the tree.
func BenchmarkStartWait(b *testing.B) {
	env := []string{"PATH=" + os.Getenv("PATH")}
	script := "true"
	if runtime.GOOS == "windows" {
		env = []string{"Path=" + lpGetenv(os.Environ(), "Path", true), "ComSpec=" + lpGetenv(os.Environ(), "ComSpec", true)}
		script = "exit /b 0"
	}
	var out bytes.Buffer
	for b.Loop() {
		p, err := Start(context.Background(), Spec{Script: script, Env: env, Stdout: &out, Stderr: &out})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := p.Wait(); err != nil || res.ExitCode != 0 {
			b.Fatalf("Wait() = %+v, %v", res, err)
		}
	}
}
