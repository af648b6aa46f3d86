//go:build unix

package exec

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	// setsid leaves the task's process group and session, writes its pid
	// to the file args[0], and sleeps holding the inherited stdout.
	registerHelper("setsid", func(args []string) int {
		if _, err := unix.Setsid(); err != nil {
			return 1
		}
		os.WriteFile(args[0], []byte(strconv.Itoa(os.Getpid())), 0o600)
		time.Sleep(300 * time.Second)
		return 0
	})
}

func TestStartExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   Result
	}{
		{"true", Result{}},
		{"exit 42", Result{ExitCode: 42}},
		{"exit 255", Result{ExitCode: 255}},
		{"kill -INT $$", Result{ExitCode: 130, Signal: "SIGINT"}},
		{"kill -TERM $$", Result{ExitCode: 143, Signal: "SIGTERM"}},
		{"kill -KILL $$", Result{ExitCode: 137, Signal: "SIGKILL"}},
		{"kill -HUP $$", Result{ExitCode: 129, Signal: "SIGHUP"}},
		{"no-such-command-vx", Result{ExitCode: 127}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			t.Parallel()
			p := startT(t, Spec{Script: tt.script, Env: testEnv(t)})
			got, err := waitWithin(t, p)
			if err != nil {
				t.Fatalf("Wait() error: %v", err)
			}
			if got != tt.want {
				t.Errorf("Wait() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestStartUsesChildPath puts a fake sh on a PATH vx does not have: Start
// must run it, not vx's /bin/sh.
func TestStartUsesChildPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fake := "#!/bin/sh\necho \"fake sh got: $*\"\n"
	if err := os.WriteFile(filepath.Join(dir, "sh"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(os.Getenv("PATH"), dir) {
		t.Fatalf("test setup: %q is on vx's PATH", dir)
	}
	var out bytes.Buffer
	p := startT(t, Spec{Script: "tsc", Args: []string{"a b"}, Env: []string{"PATH=" + dir}, Stdout: &out})
	if _, err := waitWithin(t, p); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "fake sh got: -c tsc 'a b'\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// TestStartDirAndEnv: the child runs in Dir with exactly Env: a variable vx
// has (HOME) but Env lacks is unset, not empty.
func TestStartDirAndEnv(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	p := startT(t, Spec{
		Script: `pwd -P; echo "FOO=$FOO"; echo "HOME=${HOME-unset}"`,
		Dir:    dir,
		Env:    testEnv(t, "FOO=bar baz"),
		Stdout: &out,
	})
	if _, err := waitWithin(t, p); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), dir+"\nFOO=bar baz\nHOME=unset\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// TestStdoutStderrSameWriter: one writer for both streams gets one pipe, so
// the child's order of writes is kept.
func TestStdoutStderrSameWriter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	p := startT(t, Spec{Script: "echo 1; echo 2 >&2; echo 3; echo 4 >&2", Env: testEnv(t), Stdout: &out, Stderr: &out})
	if _, err := waitWithin(t, p); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "1\n2\n3\n4\n"; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// TestStartOwnProcessGroup: the shell leads a new process group.
func TestStartOwnProcessGroup(t *testing.T) {
	t.Parallel()
	out := newSyncBuffer()
	p := startT(t, Spec{Script: "echo ready; sleep 300", Env: testEnv(t), Stdout: out})
	out.waitFor(t, "ready")
	pgid, err := unix.Getpgid(p.Pid())
	if err != nil || pgid != p.Pid() || pgid == unix.Getpgrp() {
		t.Errorf("Getpgid(shell) = %d, %v; want the shell's pid %d (vx's group is %d)", pgid, err, p.Pid(), unix.Getpgrp())
	}
	p.Kill()
	waitWithin(t, p)
}

// TestSignalReachesWholeTree sends one signal to a task whose shell has a
// background and a foreground child: after Wait nothing of its process
// group is alive. Under dash a background job ignores SIGINT, so for SIGINT
// it is Wait's clean-up that ends it.
func TestSignalReachesWholeTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sig  syscall.Signal
		want Result
	}{
		{syscall.SIGTERM, Result{ExitCode: 143, Signal: "SIGTERM"}},
		{syscall.SIGINT, Result{ExitCode: 130, Signal: "SIGINT"}},
		{syscall.SIGHUP, Result{ExitCode: 129, Signal: "SIGHUP"}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Signal, func(t *testing.T) {
			t.Parallel()
			out := newSyncBuffer()
			p := startT(t, Spec{Script: "sleep 300 & sleep 301 & echo ready; sleep 302; echo not reached", Env: testEnv(t), Stdout: out})
			out.waitFor(t, "ready")
			requireGroupSize(t, p.Pid(), 4)
			if err := p.Signal(tt.sig); err != nil {
				t.Fatalf("Signal(%v) error: %v", tt.sig, err)
			}
			got, err := waitWithin(t, p)
			if err != nil || got != tt.want {
				t.Errorf("Wait() = %+v, %v; want %+v", got, err, tt.want)
			}
			requireGroupGone(t, p.Pid())
		})
	}
}

// TestKillTree: Kill ends every process of the group at once.
func TestKillTree(t *testing.T) {
	t.Parallel()
	out := newSyncBuffer()
	p := startT(t, Spec{Script: "trap '' TERM INT; sleep 300 & sleep 301 & echo ready; sleep 302; echo not reached", Env: testEnv(t), Stdout: out})
	out.waitFor(t, "ready")
	requireGroupSize(t, p.Pid(), 4)
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill() error: %v", err)
	}
	got, err := waitWithin(t, p)
	if want := (Result{ExitCode: 137, Signal: "SIGKILL"}); err != nil || got != want {
		t.Errorf("Wait() = %+v, %v; want %+v", got, err, want)
	}
	requireGroupGone(t, p.Pid())
}

// TestWaitEndsLeftovers: the shell exits at once but leaves children that
// hold the output pipe. Wait must neither hang on the pipe nor leave them
// running; one of them ignores SIGTERM, so it takes the SIGKILL.
func TestWaitEndsLeftovers(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, script string }{
		{"background job", "sleep 300 & echo hi"},
		{"background job ignoring SIGTERM", "trap '' TERM; sleep 300 & sleep 301 & echo hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := newSyncBuffer()
			p := startT(t, Spec{Script: tt.script, Env: testEnv(t), Stdout: out, Stderr: out})
			p.leftoverGrace = 200 * time.Millisecond // keep the SIGKILL case short
			got, err := waitWithin(t, p)
			if err != nil || got != (Result{}) {
				t.Errorf("Wait() = %+v, %v; want exit 0", got, err)
			}
			if out.String() != "hi\n" {
				t.Errorf("output = %q, want %q", out.String(), "hi\n")
			}
			requireGroupGone(t, p.Pid())
		})
	}
}

// TestWaitStrayPipeHolder: a process that left the task's group (setsid)
// still holds the output pipe. On Linux Wait finds it by the pipe and ends
// it, then returns with the output written so far; elsewhere it returns
// after the pipe grace.
func TestWaitStrayPipeHolder(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	out := newSyncBuffer()
	p := startT(t, Spec{
		Script: testBinary(t) + " " + shQuotePOSIX(pidFile) + " & echo hi; while [ ! -s " + shQuotePOSIX(pidFile) + " ]; do sleep 0.01; done",
		Env:    testEnv(t, helperEnv+"=setsid"),
		Stdout: out,
	})
	if runtime.GOOS == "linux" {
		p.pipeGrace = time.Hour // only ending the stray lets Wait return in time
	} else {
		p.pipeGrace = 200 * time.Millisecond
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				unix.Kill(pid, unix.SIGKILL)
			}
		}
	})
	got, err := waitWithin(t, p)
	if err != nil || got != (Result{}) {
		t.Errorf("Wait() = %+v, %v; want exit 0", got, err)
	}
	if out.String() != "hi\n" {
		t.Errorf("output = %q, want %q", out.String(), "hi\n")
	}
	if b, _ := os.ReadFile(pidFile); runtime.GOOS == "linux" {
		pid, _ := strconv.Atoi(string(b))
		if pid == 0 || procAlive(pid) {
			t.Errorf("the stray process %d that held the pipe is alive after Wait", pid)
		}
	}
}

// groupMembers counts the live (not zombie) processes of group pgid; -1
// when that cannot be known on this OS.
func groupMembers(pgid int) int {
	if runtime.GOOS != "linux" {
		return -1
	}
	n := 0
	for range linuxGroupPids(pgid) {
		n++
	}
	return n
}

// linuxGroupPids lists the live processes of group pgid from /proc.
func linuxGroupPids(pgid int) []int {
	var pids []int
	names, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(name)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// requireGroupSize waits until the group has n live processes (Linux), so
// a signal test really has a tree to signal.
func requireGroupSize(t *testing.T, pgid, n int) {
	t.Helper()
	stop := time.Now().Add(deadline)
	for {
		got := groupMembers(pgid)
		if got < 0 || got == n {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("process group %d has %d live processes, want %d", pgid, got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// requireGroupGone checks that no process of group pgid is alive once Wait
// has returned: at once for live processes (Linux, from /proc), then, since
// init may take seconds to reap the orphans' zombies here, until
// kill(-pgid, 0) says ESRCH.
func requireGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pids := linuxGroupPids(pgid); runtime.GOOS == "linux" && len(pids) > 0 {
		t.Errorf("after Wait, process group %d still has live processes %v", pgid, pids)
	}
	stop := time.Now().Add(deadline)
	for {
		err := unix.Kill(-pgid, 0)
		if errors.Is(err, unix.ESRCH) {
			return
		}
		if time.Now().After(stop) {
			t.Fatalf("kill(-%d, 0) = %v after %v, want ESRCH", pgid, err, deadline)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartContextEndsTree: cancelling Start's context sends the tree the
// signal of the cause once, then kills it after the grace when part of it
// ignores the signal; a context cancelled without a signal, or for SIGPIPE,
// sends SIGTERM; a context done before Start starts nothing.
func TestStartContextEndsTree(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cause  error
		script string
		want   Result
	}{
		{"SIGINT", &Interrupt{Signal: syscall.SIGINT}, "sleep 300 & echo ready; sleep 302", Result{ExitCode: 130, Signal: "SIGINT"}},
		{"SIGHUP", &Interrupt{Signal: syscall.SIGHUP}, "sleep 300 & echo ready; sleep 302", Result{ExitCode: 129, Signal: "SIGHUP"}},
		{"SIGPIPE becomes SIGTERM", &Interrupt{Signal: syscall.SIGPIPE}, "sleep 300 & echo ready; sleep 302", Result{ExitCode: 143, Signal: "SIGTERM"}},
		{"no signal: SIGTERM", errors.New("stop"), "sleep 300 & echo ready; sleep 302", Result{ExitCode: 143, Signal: "SIGTERM"}},
		{"ignored signal: killed after the grace", &Interrupt{Signal: syscall.SIGTERM}, "trap '' TERM; sleep 300 & echo ready; sleep 302", Result{ExitCode: 137, Signal: "SIGKILL"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			out := newSyncBuffer()
			p, err := Start(ctx, Spec{Script: tt.script, Env: testEnv(t), Stdout: out, Grace: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Kill() })
			out.waitFor(t, "ready")
			requireGroupSize(t, p.Pid(), 3)
			cancel(tt.cause)
			got, err := waitWithin(t, p)
			if err != nil || got != tt.want {
				t.Errorf("Wait() = %+v, %v; want %+v", got, err, tt.want)
			}
			requireGroupGone(t, p.Pid())
		})
	}
	t.Run("done before Start", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cause := &Interrupt{Signal: syscall.SIGTERM}
		cancel(cause)
		p, err := Start(ctx, Spec{Script: "echo started", Env: testEnv(t)})
		if p != nil || err != cause {
			t.Errorf("Start(done ctx) = %v, %v; want nil, %v", p, err, cause)
		}
	})
}

// TestWaitSlowDestination: a task writes more than a pipe holds and exits;
// its Stdout takes longer than the pipe grace to accept it all (vx run |
// less, paused). Wait must deliver every byte, not close the pipe when the
// grace is over.
func TestWaitSlowDestination(t *testing.T) {
	t.Parallel()
	const size = 128 << 10
	out := &slowWriter{delay: 300 * time.Millisecond}
	p := startT(t, Spec{
		Script: "head -c " + strconv.Itoa(size) + " /dev/zero",
		Env:    testEnv(t),
		Stdout: out,
	})
	p.pipeGrace = 100 * time.Millisecond
	got, err := waitWithin(t, p)
	if err != nil || got != (Result{}) {
		t.Errorf("Wait() = %+v, %v; want exit 0", got, err)
	}
	if n := out.n.Load(); n != size {
		t.Errorf("Stdout received %d bytes, want %d", n, size)
	}
}

// slowWriter accepts everything, after a delay per Write.
type slowWriter struct {
	delay time.Duration
	n     atomic.Int64
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.delay)
	w.n.Add(int64(len(p)))
	return len(p), nil
}
