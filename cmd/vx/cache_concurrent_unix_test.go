//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestTwoRunsOneTask: two vx runs in one workspace never store each other's
// half-written outputs. c#build writes dist/a.txt, waits until the test
// releases it, then writes dist/b.txt, each with its run's DECLARED value
// (part of the key): a run that stored while the other wrote or restored
// dist/ would store a mix. The second run waits for the first, and says
// so.
func TestTwoRunsOneTask(t *testing.T) {
	t.Parallel()
	setup := func(t *testing.T, git bool) (w *cacheWS, started, release string) {
		w = newCacheWS(t, git)
		dir := testdir.New(t)
		started, release = filepath.Join(dir, "started"), filepath.Join(dir, "release")
		w.write("packages/c/package.json", `{"name": "c", "scripts": {"build": "sh build.sh"}}`)
		w.write("packages/c/build.sh", `set -e
mkdir -p dist
echo "$DECLARED" > dist/a.txt
: > '`+started+`-'"$DECLARED"
i=0
while [ ! -f '`+release+`' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
echo "$DECLARED" > dist/b.txt
`)
		return w, started, release
	}
	// entry restores the entry of DECLARED=v into an empty dist and
	// returns what it holds.
	// With missing, an entry that is not there is "" (it was not stored).
	entry := func(t *testing.T, w *cacheWS, v string, missing bool) string {
		t.Helper()
		os.RemoveAll(filepath.Join(w.root, "packages/c/dist"))
		r := w.vx([]string{"DECLARED=" + v}, "run", "build", "--filter", "c", "--summary", "json")
		if missing && r.code == 0 && strings.Contains(r.stdout, `"cache": "miss"`) {
			return ""
		}
		if r.code != 0 || !strings.Contains(r.stdout, `"cache": "hit"`) {
			t.Fatalf("DECLARED=%s: not a hit (%d)\n%s\n%s", v, r.code, r.stdout, r.stderr)
		}
		return strings.TrimSpace(w.read("packages/c/dist/a.txt")) + " " + strings.TrimSpace(w.read("packages/c/dist/b.txt"))
	}
	// overlap starts A, then B once A's task has written a.txt; waits
	// until B says it waits for A (at most 20 s), releases A's task, and
	// waits for both.
	overlap := func(t *testing.T, w *cacheWS, started, release string) {
		t.Helper()
		a, aOut := w.start([]string{"DECLARED=A"}, "run", "build", "--filter", "c")
		if !waitUntil(20*time.Second, func() bool { _, err := os.Stat(started + "-A"); return err == nil }) {
			t.Fatalf("run A did not start its task\n%s", aOut)
		}
		b, bOut := w.start([]string{"DECLARED=B"}, "run", "build", "--filter", "c")
		want := "vx: c#build: waiting for another vx (pid " + strconv.Itoa(a.Process.Pid) + ") running it in this workspace"
		if !waitUntil(20*time.Second, func() bool { return strings.Contains(bOut.String(), want) }) {
			t.Errorf("run B did not say %q:\n%s", want, bOut)
		}
		os.WriteFile(release, nil, 0o644)
		if err := a.Wait(); err != nil {
			t.Fatalf("run A: %v\n%s", err, aOut)
		}
		if err := b.Wait(); err != nil {
			t.Fatalf("run B: %v\n%s", err, bOut)
		}
	}

	// In git, dist is ignored: the task's, whoever wrote it; both results
	// are stored. Without git, the second run computed its key while the
	// first wrote dist, which was then no file vx had written: a file of
	// the user's, an input; its task rewrote it, so its result may not be
	// stored ("not cached: it changed ..."). Never a mix.
	for _, git := range []bool{true, false} {
		t.Run(fmt.Sprintf("both run it, git %v", git), func(t *testing.T) {
			w, started, release := setup(t, git)
			overlap(t, w, started, release)
			for _, v := range []string{"A", "B"} {
				got := entry(t, w, v, !git && v == "B")
				if got != v+" "+v && got != "" {
					t.Errorf("the entry of DECLARED=%s holds %q: a mix of two runs", v, got)
				}
			}
		})
	}
	t.Run("one restores while the other runs it", func(t *testing.T) {
		w, started, release := setup(t, false)
		os.WriteFile(release, nil, 0o644)
		if r := w.vx([]string{"DECLARED=B"}, "run", "build", "--filter", "c"); r.code != 0 {
			t.Fatalf("filling B: %d\n%s", r.code, r.stderr)
		}
		os.Remove(release)
		overlap(t, w, started, release)
		if got := entry(t, w, "A", false); got != "A A" {
			t.Errorf("the entry of DECLARED=A holds %q: it took in B's restore", got)
		}
	})
}
