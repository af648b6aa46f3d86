package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stubbornBuild is a task whose tree ignores SIGTERM and SIGINT (a shell
// that traps them, and a background sleep that inherits that), so that
// only the kill after the grace ends it; it records the pids of its tree
// in the root's pids (not one of its inputs) and prints the version in
// src/v.
const stubbornBuild = `trap "" TERM INT; sleep 300 & echo $$ $! >> ../../pids; read v < src/v; echo started $v; wait`

// TestWatchStopsTrees proves that a task whose inputs change while it runs
// is stopped with its whole tree before it starts again (nothing of the
// old run is left when the new one prints), that Ctrl-C ends vx watch with
// 130 and leaves no process behind, and that a second Ctrl-C kills at once
// instead of waiting out the grace.
func TestWatchStopsTrees(t *testing.T) {
	watchInterrupts(t)
	for _, tc := range []struct {
		name  string
		grace string
		twice bool
	}{
		{"one Ctrl-C, the grace runs out", "500ms", false},
		{"a second Ctrl-C kills at once", "60s", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, map[string]string{
				"package.json":            wsRoot,
				"vx.json":                 `{"tasks": {"build": {"cache": false}}}`,
				"packages/a/package.json": pkg("a", map[string]string{"build": stubbornBuild}),
				"packages/a/src/v":        "1\n",
			})
			killMarked(t, root)
			w, err := startWatch(root, testEnv(), "watch", "build", "--grace", tc.grace)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { killProcessGroup(w.cmd) })
			pidsFile := filepath.Join(root, "pids")
			if err := w.waitFor(regexp.MustCompile(`started 1`)); err != nil {
				t.Fatal(err)
			}
			first := readPids(t, pidsFile)
			if len(first) != 2 {
				t.Fatalf("the first run recorded pids %v, want 2", first)
			}

			if tc.twice {
				// The edit would wait out a 60s grace: Ctrl-C twice now.
				w.cmd.Process.Signal(os.Interrupt)
				time.Sleep(100 * time.Millisecond)
				start := time.Now()
				code, err := w.stop(os.Interrupt)
				if err != nil {
					t.Fatal(err)
				}
				if code != 130 {
					t.Errorf("exit code %d, want 130; output:\n%s", code, w.out.String())
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("vx took %v after the second Ctrl-C, with a grace of 60s", d)
				}
				if alive := leftovers(root, 3*time.Second); len(alive) > 0 {
					t.Errorf("%d task processes outlived vx by 3s:\n  %s", len(alive), strings.Join(alive, "\n  "))
				}
				return
			}

			if err := os.WriteFile(filepath.Join(root, "packages", "a", "src", "v"), []byte("2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := w.waitFor(regexp.MustCompile(`stopping a#build`)); err != nil {
				t.Fatal(err)
			}
			if err := w.waitFor(regexp.MustCompile(`started 2`)); err != nil {
				t.Fatal(err)
			}
			for _, pid := range first {
				if processAlive(pid) {
					st, pgrp, _ := procStat(pid)
					t.Errorf("pid %d of the stopped run (%s, state %c, group %d) is alive once the new run started", pid, cmdline(pid), st, pgrp)
				}
			}
			if n := strings.Count(w.out.String(), "started"); n != 2 {
				t.Errorf("the task started %d times, want 2:\n%s", n, w.out.String())
			}

			code, err := w.stop(syscall.SIGINT)
			if err != nil {
				t.Fatal(err)
			}
			if code != 130 {
				t.Errorf("exit code %d, want 130; output:\n%s", code, w.out.String())
			}
			if !strings.Contains(w.out.String(), "stopped by SIGINT") {
				t.Errorf("no summary saying the SIGINT stopped it:\n%s", w.out.String())
			}
			if alive := leftovers(root, 3*time.Second); len(alive) > 0 {
				t.Errorf("%d task processes outlived vx by 3s:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
		})
	}
}
