package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// watchDeadline bounds every wait of the watch tests: a line that does
// not come within it fails the test (the lines come in well under a
// second on an idle machine).
const watchDeadline = 60 * time.Second

// watchedVx is a `vx watch` running in the background and what it printed
// (stdout and stderr in one buffer, in the order written).
type watchedVx struct {
	cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
	err  error
	mark int    // the output before mark has been waited through
	last string // the output the last wait went through
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startWatch starts vx with args in dir and env, in its own process group.
func startWatch(dir string, env []string, args ...string) (*watchedVx, error) {
	vx, err := exec.LookPath("vx")
	if err != nil {
		return nil, err
	}
	w := &watchedVx{done: make(chan struct{})}
	w.cmd = exec.Command(vx, args...)
	w.cmd.Dir, w.cmd.Env, w.cmd.Stdout, w.cmd.Stderr = dir, env, &w.out, &w.out
	newProcessGroup(w.cmd)
	if err := w.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { w.err = w.cmd.Wait(); close(w.done) }()
	return w, nil
}

// waitFor waits until the output not yet waited through matches re, and
// moves the mark past the match.
func (w *watchedVx) waitFor(re *regexp.Regexp) error {
	deadline := time.Now().Add(watchDeadline)
	for {
		out := w.out.String()
		if loc := re.FindStringIndex(out[w.mark:]); loc != nil {
			w.last = out[w.mark : w.mark+loc[1]]
			w.mark += loc[1]
			return nil
		}
		select {
		case <-w.done:
			return fmt.Errorf("vx exited (%v) before printing %q; it printed:\n%s", w.err, re, w.out.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("vx did not print %q within %v; it printed:\n%s", re, watchDeadline, w.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop sends sig to vx alone and waits for it to exit; it returns the
// exit code.
func (w *watchedVx) stop(sig os.Signal) (int, error) {
	if err := w.cmd.Process.Signal(sig); err != nil {
		return 0, err
	}
	select {
	case <-w.done:
	case <-time.After(watchDeadline):
		killProcessGroup(w.cmd)
		<-w.done
		return 0, fmt.Errorf("vx did not exit within %v of %v; it printed:\n%s", watchDeadline, sig, w.out.String())
	}
	var ee *exec.ExitError
	if w.err != nil && !errors.As(w.err, &ee) {
		return 0, w.err
	}
	return w.cmd.ProcessState.ExitCode(), nil
}

// watchScriptCmd is the testscript command that drives a vx watch:
//
//	watch start args...   start vx with args in the current directory, in the background
//	watch wait regexp     wait (60s at most) until vx prints a match after what was waited through
//	watch last regexp     the output the last wait went through matches (with !, does not)
//	watch stop N          send vx SIGINT, wait for it, check that it exits N; its output goes to $WORK/watch.out
//	edit file text...     write the words to file (created with its directories), as an editor saves it
//	burst dir N           write N files dir/f000..., at once, as a checkout does
func watchScriptCmd(ts *testscript.TestScript, neg bool, args []string) {
	if runtime.GOOS == "windows" {
		ts.Fatalf("the watch scripts need Unix signals: skip them on Windows")
	}
	if len(args) < 1 {
		ts.Fatalf("usage: watch start|wait|last|stop ...")
	}
	w, _ := ts.Value(watchKey{}).(*watchSlot)
	switch args[0] {
	case "start":
		w.vx = nil
		vx, err := startWatch(ts.MkAbs("."), watchEnv(ts), args[1:]...)
		ts.Check(err)
		w.vx = vx
		ts.Defer(func() {
			select {
			case <-vx.done:
			default:
				killProcessGroup(vx.cmd)
				<-vx.done
			}
		})
	case "wait":
		ts.Check(w.vx.waitFor(regexp.MustCompile("(?m)" + args[1])))
	case "last":
		if m := regexp.MustCompile("(?m)" + args[1]).MatchString(w.vx.last); m == neg {
			ts.Fatalf("the output since the previous wait (negated: %v) %q:\n%s", neg, args[1], w.vx.last)
		}
	case "stop":
		want, err := strconv.Atoi(args[1])
		ts.Check(err)
		code, err := w.vx.stop(os.Interrupt)
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), "watch.out"), []byte(w.vx.out.String()), 0o644))
		if code != want {
			ts.Fatalf("vx exited %d, want %d; it printed:\n%s", code, want, w.vx.out.String())
		}
	default:
		ts.Fatalf("unknown watch command %q", args[0])
	}
}

type watchKey struct{}

// watchSlot holds a script's vx watch.
type watchSlot struct{ vx *watchedVx }

// watchEnv is the script's environment, as exec would pass it.
func watchEnv(ts *testscript.TestScript) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "SYSTEMROOT", "USERPROFILE", "CI"} {
		if v := ts.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func editCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: edit file text...")
	}
	name := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Dir(name), 0o755))
	text := ""
	for _, a := range args[1:] {
		text += a + "\n"
	}
	// As editors do: a temporary file, renamed over the file.
	tmp := name + ".vxtmp"
	ts.Check(os.WriteFile(tmp, []byte(text), 0o644))
	ts.Check(os.Rename(tmp, name))
}

func burstCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: burst dir N")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	for i := range n {
		ts.Check(os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), []byte("x\n"), 0o644))
	}
}
