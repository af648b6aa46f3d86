//go:build unix

package main

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// A half-result never reaches the store: not the temporary files of a
// restore that was killed, not the outputs of a task that vx stopped.

// start starts vx in the workspace without waiting for it; its stdout
// and stderr go to out.
func (w *cacheWS) start(extra []string, args ...string) (cmd *osexec.Cmd, out *syncBuffer) {
	w.t.Helper()
	cmd = osexec.Command("vx", args...)
	cmd.Dir = w.root
	cmd.Env = append(append([]string{}, w.env...), extra...)
	out = &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, out
}

// distFiles lists the files under packages/<p>/dist, sorted.
func (w *cacheWS) distFiles(p string) []string {
	var out []string
	filepath.WalkDir(filepath.Join(w.root, "packages", p, "dist"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, d.Name())
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestKilledRestoreLeftovers: vx killed (SIGKILL) in the middle of a
// restore leaves its temporary files beside the outputs; the next run
// removes them, whether it restores or runs the task, and never stores
// them as outputs.
func TestKilledRestoreLeftovers(t *testing.T) {
	w := newCacheWS(t, false)
	// Four outputs of 32 MiB: a restore takes long enough to be caught.
	w.write("packages/c/package.json", `{"name": "c", "scripts": {"build": "sh build.sh"}}`)
	w.write("packages/c/build.sh", `set -e
mkdir -p dist
for f in 1 2 3 4; do head -c 33554432 /dev/zero > dist/f$f.bin; done
cat src/in.txt > dist/version.txt
`)
	w.write("packages/c/src/in.txt", "v1\n")
	want := []string{"f1.bin", "f2.bin", "f3.bin", "f4.bin", "version.txt"}
	if r := w.vx(nil, "run", "build", "--filter", "c"); r.code != 0 {
		t.Fatalf("first run: %d\n%s", r.code, r.stderr)
	}
	leftovers := func() []string {
		var out []string
		for _, f := range w.distFiles("c") {
			if strings.HasPrefix(f, ".vx-restore-") {
				out = append(out, f)
			}
		}
		return out
	}
	// killMidRestore removes dist and kills vx as soon as its restore has
	// left a temporary file there.
	killMidRestore := func() {
		t.Helper()
		for try := 0; try < 5; try++ {
			os.RemoveAll(filepath.Join(w.root, "packages/c/dist"))
			cmd, _ := w.start(nil, "run", "build", "--filter", "c")
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			for running := true; running; {
				select {
				case <-done:
					running = false
				default:
					if len(leftovers()) > 0 {
						cmd.Process.Signal(syscall.SIGKILL)
					}
				}
			}
			if len(leftovers()) > 0 {
				return
			}
		}
		t.Skip("could not catch vx in the middle of a restore in 5 tries")
	}

	killMidRestore()
	// The same key: a hit restores, and the leftovers go.
	if r := w.vx(nil, "run", "build", "--filter", "c"); r.code != 0 {
		t.Fatalf("run after the kill: %d\n%s", r.code, r.stderr)
	}
	if got := w.distFiles("c"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after a restore: dist holds %q, want %q", got, want)
	}

	killMidRestore()
	// Another key: the task runs, and what is stored is its outputs only.
	w.write("packages/c/src/in.txt", "v2\n")
	if r := w.vx(nil, "run", "build", "--filter", "c"); r.code != 0 {
		t.Fatalf("run after the kill: %d\n%s", r.code, r.stderr)
	}
	if got := w.distFiles("c"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after the task ran: dist holds %q, want %q", got, want)
	}
	os.RemoveAll(filepath.Join(w.root, "packages/c/dist"))
	if r := w.vx(nil, "run", "build", "--filter", "c"); r.code != 0 {
		t.Fatalf("restore: %d\n%s", r.code, r.stderr)
	}
	if got := w.distFiles("c"); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the entry stored after the kill restores %q, want %q", got, want)
	}
}

// TestInterruptedTaskNotStored: a task that vx stops (SIGINT, passed on)
// is never stored, even when it traps the signal and exits 0 with half
// its outputs: the next run runs it.
func TestInterruptedTaskNotStored(t *testing.T) {
	w := newCacheWS(t, false)
	dir := testdir.New(t)
	slow, started := filepath.Join(dir, "slow"), filepath.Join(dir, "started")
	// The script runs in the task's shell itself (sourced), so that the
	// task's process traps SIGINT and exits 0, as many tools do.
	w.write("packages/c/package.json", `{"name": "c", "scripts": {"build": ". ./build.sh"}}`)
	w.write("packages/c/build.sh", `mkdir -p dist ../../.runs
echo ran >> ../../.runs/c
if [ -f '`+slow+`' ]; then
	trap 'echo partial > dist/out.txt; exit 0' INT TERM
	: > '`+started+`'
	sleep 30 &
	wait
fi
echo full > dist/out.txt
`)
	w.write("packages/c/src/in.txt", "v1\n")
	os.WriteFile(slow, nil, 0o644)
	cmd, _ := w.start(nil, "run", "build", "--filter", "c")
	if !waitUntil(20*time.Second, func() bool { _, err := os.Stat(started); return err == nil }) {
		t.Fatal("the task did not start")
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if got := w.read("packages/c/dist/out.txt"); got != "partial\n" {
		t.Fatalf("the interrupted task wrote %q, want it to have trapped the signal", got)
	}
	os.Remove(slow)
	r := w.vx(nil, "run", "build", "--filter", "c")
	if r.code != 0 {
		t.Fatalf("second run: %d\n%s", r.code, r.stderr)
	}
	if got := w.read("packages/c/dist/out.txt"); got != "full\n" {
		t.Errorf("after the second run dist/out.txt is %q: the interrupted run's outputs were stored", got)
	}
	if got := w.read(".runs/c"); got != "ran\nran\n" {
		t.Errorf("the task ran %d times, want 2", strings.Count(got, "ran"))
	}
}
