package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	vxexec "github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cli"
)

// The benchmarks below run a whole `vx run noop --concurrency 2` inside the
// test process, so that `-cpuprofile` shows where vx's own time goes, and, for
// scale, the same spawns done the way bench/floor does them. What the process
// start of vx itself costs is measured by bench/run.sh, not here.

var sizes = []int{1, 10, 100}

// workspaceFor generates a workspace of n projects whose noop script is
// `true`, and returns its root and the projects' directories.
func workspaceFor(b *testing.B, n int) (string, []string) {
	b.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		b.Skip("no sh to run the scripts with")
	}
	root := b.TempDir()
	dirs, err := Generate(root, n, "true")
	if err != nil {
		b.Fatal(err)
	}
	return root, dirs
}

func devNull(b *testing.B) *os.File {
	b.Helper()
	f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	return f
}

// BenchmarkVXRun is `vx run noop --concurrency 2` at the workspace root.
func BenchmarkVXRun(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			root, _ := workspaceFor(b, n)
			null := devNull(b)
			p := cli.Process{
				Args:    []string{"run", "noop", "--concurrency", "2"},
				Environ: os.Environ(),
				Dir:     root,
				Stdin:   null,
				Stdout:  null,
				Stderr:  null,
			}
			for b.Loop() {
				if code, err := cli.Main(p); code != 0 {
					b.Fatalf("vx run exited %d: %v", code, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/task")
		})
	}
}

// BenchmarkVXPlan is `vx run noop --dry-run=json` at the root of a
// 1,000-project workspace: everything vx does before spawning (discovery,
// config, guard, graph, every task's env), and printing the plan.
func BenchmarkVXPlan(b *testing.B) {
	root, _ := workspaceFor(b, 1000)
	null := devNull(b)
	p := cli.Process{
		Args:    []string{"run", "noop", "--dry-run=json"},
		Environ: os.Environ(),
		Dir:     root,
		Stdout:  null,
		Stderr:  null,
	}
	for b.Loop() {
		if code, err := cli.Main(p); code != 0 {
			b.Fatalf("vx run --dry-run exited %d: %v", code, err)
		}
	}
}

// BenchmarkFloorSpawn spawns `sh -c true` in each project from two
// goroutines, as bench/floor does: the spawning that BenchmarkVXRun cannot do
// without.
func BenchmarkFloorSpawn(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			root, dirs := workspaceFor(b, n)
			sh, err := exec.LookPath("sh")
			if err != nil {
				b.Fatal(err)
			}
			null := devNull(b)
			for b.Loop() {
				if err := spawnAll(sh, root, dirs, 2, null); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/task")
		})
	}
}

// spawnAll is bench/floor's loop (kept there as a tiny self-contained
// program).
func spawnAll(sh, root string, dirs []string, conc int, out *os.File) error {
	env := vxexec.TaskEnviron(vxexec.EnvOptions{Source: os.Environ()}, vxexec.TaskVars{
		Workspace: root, ID: "p#noop", Event: "noop", Script: "true",
		PackageName: "p", PackageVersion: "1.0.0", PackageJSON: filepath.Join(root, "package.json"),
	})
	work := make(chan string)
	errs := make(chan error, len(dirs))
	var wg sync.WaitGroup
	for range min(conc, len(dirs)) {
		wg.Go(func() {
			for dir := range work {
				cmd := exec.Command(sh, "-c", "true")
				cmd.Dir = filepath.Join(root, dir)
				cmd.Env = append(env[:len(env):len(env)], "PWD="+cmd.Dir)
				cmd.Stdout, cmd.Stderr = out, out
				if err := cmd.Run(); err != nil {
					errs <- fmt.Errorf("%q: %w", dir, err)
				}
			}
		})
	}
	for _, dir := range dirs {
		work <- dir
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}
