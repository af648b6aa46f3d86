package bench

import (
	"os"
	"testing"

	"github.com/vxrun/vx/internal/cli"
)

// BenchmarkCacheAllHit is `vx run build --concurrency 2` where every task
// hits, in the workspace named by VX_BENCH_CACHE_WS (written by
// `gen -cache-files`, built once, in a git repository); skipped without it.
// For CPU profiles of the hit path: bench/run.sh measures the real process.
func BenchmarkCacheAllHit(b *testing.B) { benchCache(b, "run", "build", "--concurrency", "2") }

// BenchmarkCacheKeys is `vx run build --dry-run` there: every key, no run.
func BenchmarkCacheKeys(b *testing.B) { benchCache(b, "run", "build", "--dry-run") }

func benchCache(b *testing.B, args ...string) {
	root := os.Getenv("VX_BENCH_CACHE_WS")
	if root == "" {
		b.Skip("set VX_BENCH_CACHE_WS to a built cache benchmark workspace (bench/run.sh makes one)")
	}
	null := devNull(b)
	p := cli.Process{Args: args, Environ: os.Environ(), Dir: root, Stdin: null, Stdout: null, Stderr: null}
	for b.Loop() {
		if code, err := cli.Main(p); code != 0 {
			b.Fatalf("vx %v: exit %d: %v", args, code, err)
		}
	}
}
