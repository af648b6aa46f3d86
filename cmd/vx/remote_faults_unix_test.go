//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testdir"
)

// The remote cache when the server or the helper misbehaves, against the
// in-process fake server of remotetest and the real vx-remote: latency,
// slow and stalled downloads, a helper that hangs, Ctrl-C. The bounds are
// generous; an implementation that does the work one task after another,
// or waits for a total deadline, exceeds them several times over.

// faultClone is a workspace of n independent projects p0..p(n-1), whose
// build writes dist/out.bin of size bytes (and appends to runs, outside
// the clone, so a test can tell a run from a restore).
type faultClone struct{ *remoteClone }

func newFaultClone(t *testing.T, runs string, n, size int) faultClone {
	t.Helper()
	c := &remoteClone{t: t, root: testdir.New(t), store: filepath.Join(testdir.New(t), "store"), runs: runs}
	var names []string
	for i := range n {
		names = append(names, fmt.Sprintf("packages/p%d", i))
	}
	ws, _ := json.Marshal(names)
	c.write("package.json", `{"name": "root", "private": true, "workspaces": `+string(ws)+`}`)
	c.write("vx.json", `{"tasks": {"build": {"outputs": ["dist/**"], "env": {"define": {"RUNS": "`+runs+`"}}}}}`)
	for i := range n {
		p := fmt.Sprintf("packages/p%d/", i)
		c.write(p+"package.json", fmt.Sprintf(`{"name": "p%d", "scripts": {"build": "sh build.sh"}}`, i))
		c.write(p+"build.sh", fmt.Sprintf(`set -e
echo "$VX_RUN_TASK ran" >> "$RUNS"
mkdir -p dist
head -c %d /dev/zero | tr '\0' 'p' > dist/out.bin
echo p%d >> dist/out.bin
echo built p%d
`, size, i, i))
	}
	return faultClone{c}
}

// start starts vx in the clone without waiting for it.
func (c faultClone) start(env []string, args ...string) (*osexec.Cmd, *bytes.Buffer) {
	c.t.Helper()
	cmd := osexec.Command(vxBinary(c.t), args...)
	cmd.Dir = c.root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.root, "VX_CACHE_DIR=" + c.store,
		"VX_REMOTE_HELPER=" + remoteHelper(c.t)}, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &out
}

// interrupt sends SIGINT to vx and returns how long it took to exit, and
// its exit code; it fails the test when vx has not exited within 30s.
func interrupt(t *testing.T, cmd *osexec.Cmd) (time.Duration, int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("vx did not exit within 30s of SIGINT")
	}
	return time.Since(start), cmd.ProcessState.ExitCode()
}

// fill stores the clone's builds in the fake server.
func fill(t *testing.T, srv *remotetest.Fake, c faultClone) {
	t.Helper()
	mustOK(t, c.vx([]string{"VX_REMOTE_CACHE=" + srv.URL, "VX_REMOTE_TIMEOUT=20s"}, "run", "build", "--remote-write"))
	takeRuns(t, c.runs)
}

// TestRemoteLookupsInParallel: with a server that takes 1.5s to answer
// each call, 8 tasks cost about one round of calls, not 8: their lookups
// (and a hit's downloads) run at once, while the keys are computed.
// --dry-run looks up without downloading.
func TestRemoteLookupsInParallel(t *testing.T) {
	skipRemoteE2E(t)
	const n = 8
	srv := remotetest.StartFake(t)
	runs := filepath.Join(testdir.New(t), "runs.log")
	fill(t, srv, newFaultClone(t, runs, n, 1000))
	srv.SetLatency(1500 * time.Millisecond)
	env := []string{"VX_REMOTE_CACHE=" + srv.URL, "VX_REMOTE_TIMEOUT=20s"}

	t.Run("misses", func(t *testing.T) {
		c := newFaultClone(t, runs, n, 1001) // other sources: other keys
		r := c.vx(env, "run", "build")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != n {
			t.Fatalf("ran %q, want all %d", got, n)
		}
		// One after another: at least 12 s.
		if r.took > 7*time.Second {
			t.Errorf("%d remote misses with 1.5s of latency took %v", n, r.took)
		}
	})
	t.Run("dry run downloads nothing", func(t *testing.T) {
		c := newFaultClone(t, runs, n, 1000)
		reads := srv.Count("Read")
		r := c.vx(env, "run", "build", "--dry-run=json")
		mustOK(t, r)
		if got := strings.Count(r.stdout, `"remoteHit": true`); got != n {
			t.Errorf("%d remote hits in the plan, want %d:\n%s", got, n, r.stdout)
		}
		if srv.Count("Read") != reads {
			t.Errorf("--dry-run downloaded %d blobs", srv.Count("Read")-reads)
		}
		if blobs, _ := filepath.Glob(filepath.Join(c.store, "cas", "*", "*")); len(blobs) != 0 {
			t.Errorf("--dry-run stored %d blobs", len(blobs))
		}
		// Lookup, FindMissingBlobs: 2 calls per task, one after another
		// at least 24 s.
		if r.took > 7*time.Second {
			t.Errorf("--dry-run of %d remote hits with 1.5s of latency took %v", n, r.took)
		}
	})
	t.Run("hits", func(t *testing.T) {
		c := newFaultClone(t, runs, n, 1000)
		r := c.vx(env, "run", "build")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Fatalf("ran %q, want all restored", got)
		}
		if !strings.Contains(r.stderr, fmt.Sprintf("%d cached (%d remote)", n, n)) {
			t.Errorf("summary: %s", r.stderr)
		}
		// Lookup, FindMissingBlobs, then the blobs: 3 rounds per task, one
		// task after another at least 36 s.
		if r.took > 12*time.Second {
			t.Errorf("%d remote hits with 1.5s of latency took %v", n, r.took)
		}
	})
}

// TestRemoteDownloadCtrlC: Ctrl-C in the middle of a remote download stops
// vx within a second or so, however much is left to download.
func TestRemoteDownloadCtrlC(t *testing.T) {
	skipRemoteE2E(t)
	srv := remotetest.StartFake(t)
	runs := filepath.Join(testdir.New(t), "runs.log")
	fill(t, srv, newFaultClone(t, runs, 1, 8<<20))
	srv.SetStream(64<<10, 200*time.Millisecond, -1) // 8 MiB in 25 s
	reads := srv.NotifyReads()
	c := newFaultClone(t, runs, 1, 8<<20)
	cmd, out := c.start([]string{"VX_REMOTE_CACHE=" + srv.URL}, "run", "build")
	select {
	case <-reads:
	case <-time.After(20 * time.Second):
		t.Fatalf("no download started:\n%s", out)
	}
	time.Sleep(300 * time.Millisecond) // well into it
	took, code := interrupt(t, cmd)
	t.Logf("vx stopped %v after SIGINT", took)
	if code != 130 {
		t.Errorf("exit code %d, want 130\n%s", code, out)
	}
	if took > 3*time.Second {
		t.Errorf("vx took %v to stop after SIGINT during a download\n%s", took, out)
	}
	if got := takeRuns(t, runs); len(got) != 0 {
		t.Errorf("the task ran after SIGINT: %q", got)
	}
}

// TestRemoteSlowDownload: a blob whose bytes keep coming is not cut off,
// however long it takes; one whose bytes stop is given up after the
// per-call timeout without data, and the task runs.
func TestRemoteSlowDownload(t *testing.T) {
	skipRemoteE2E(t)
	srv := remotetest.StartFake(t)
	runs := filepath.Join(testdir.New(t), "runs.log")
	fill(t, srv, newFaultClone(t, runs, 1, 1<<20))
	env := []string{"VX_REMOTE_CACHE=" + srv.URL, "VX_REMOTE_TIMEOUT=1s"}

	t.Run("steady", func(t *testing.T) {
		srv.SetStream(32<<10, 100*time.Millisecond, -1) // 1 MiB in 3.2 s, a message every 0.1 s
		r := newFaultClone(t, runs, 1, 1<<20).vx(env, "run", "build")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 0 {
			t.Errorf("the download was cut off and the task ran: %q\n%s", got, r.stderr)
		}
		if w := remoteWarnings(r.stderr); len(w) != 0 {
			t.Errorf("warnings: %q", w)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		srv.SetStream(32<<10, 0, 64<<10) // 64 KiB, then nothing
		r := newFaultClone(t, runs, 1, 1<<20).vx(env, "run", "build")
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 1 {
			t.Errorf("ran %q, want the task run after the stalled download", got)
		}
		if w := remoteWarnings(r.stderr); len(w) != 1 || !strings.Contains(w[0], "no data for 1s") {
			t.Errorf("warnings = %q, want one naming the stall", w)
		}
		if r.took > 10*time.Second {
			t.Errorf("a stalled download held the run %v", r.took)
		}
	})
}

// hangingHelper is a vx-remote stand-in that answers nothing, reads
// nothing, and leaves a child holding its output pipes: it touches marker
// when it starts.
func hangingHelper(t *testing.T, marker string) string {
	t.Helper()
	p := filepath.Join(testdir.New(t), "vx-remote")
	script := "#!/bin/sh\n: > '" + marker + "'\nsleep 60 &\nexec sleep 60\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRemoteHelperHangs: a helper that hangs (with a child that holds its
// pipes) costs the per-call timeout and one warning, then the run goes on
// without the remote and ends; Ctrl-C ends it at once.
func TestRemoteHelperHangs(t *testing.T) {
	skipRemoteE2E(t)
	runs := filepath.Join(testdir.New(t), "runs.log")

	t.Run("bounded", func(t *testing.T) {
		marker := filepath.Join(testdir.New(t), "started")
		c := newFaultClone(t, runs, 2, 10)
		r := c.vx([]string{"VX_REMOTE_CACHE=grpc://127.0.0.1:1", "VX_REMOTE_TIMEOUT=1s", "VX_REMOTE_HELPER=" + hangingHelper(t, marker)}, "run", "build")
		mustOK(t, r)
		if _, err := os.Stat(marker); err != nil {
			t.Fatal("the helper was not started")
		}
		if got := takeRuns(t, runs); len(got) != 2 {
			t.Errorf("ran %q, want both", got)
		}
		if w := remoteWarnings(r.stderr); len(w) != 1 || !strings.Contains(w[0], "did not answer") {
			t.Errorf("warnings = %q, want one", w)
		}
		if r.took > 10*time.Second {
			t.Errorf("a hanging helper held the run %v", r.took)
		}
	})
	t.Run("Ctrl-C", func(t *testing.T) {
		marker := filepath.Join(testdir.New(t), "started")
		c := newFaultClone(t, runs, 2, 10)
		cmd, out := c.start([]string{"VX_REMOTE_CACHE=grpc://127.0.0.1:1", "VX_REMOTE_TIMEOUT=60s", "VX_REMOTE_HELPER=" + hangingHelper(t, marker)}, "run", "build")
		if !waitUntil(20*time.Second, func() bool { _, err := os.Stat(marker); return err == nil }) {
			t.Fatalf("the helper was not started\n%s", out)
		}
		took, code := interrupt(t, cmd)
		t.Logf("vx stopped %v after SIGINT", took)
		if code != 130 {
			t.Errorf("exit code %d, want 130\n%s", code, out)
		}
		if took > 3*time.Second {
			t.Errorf("vx took %v to stop after SIGINT with a hanging helper\n%s", took, out)
		}
		takeRuns(t, runs)
	})
}
