package bench

import (
	"os"
	"path/filepath"
	"strconv"
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

// BenchmarkCacheKeysCold is `vx run build --dry-run` with an empty store
// (a new --cache-dir each time): every key with no memo, as bench/cache.sh's
// "keys cold".
func BenchmarkCacheKeysCold(b *testing.B) {
	dir := b.TempDir()
	n := 0
	benchCacheWith(b, func() []string {
		n++
		return []string{"run", "build", "--dry-run", "--cache-dir", filepath.Join(dir, strconv.Itoa(n))}
	})
}

func benchCache(b *testing.B, args ...string) {
	benchCacheWith(b, func() []string { return args })
}

func benchCacheWith(b *testing.B, argsOf func() []string) {
	root := os.Getenv("VX_BENCH_CACHE_WS")
	if root == "" {
		b.Skip("set VX_BENCH_CACHE_WS to a built cache benchmark workspace (bench/run.sh makes one)")
	}
	null := devNull(b)
	for b.Loop() {
		args := argsOf()
		p := cli.Process{Args: args, Environ: os.Environ(), Dir: root, Stdin: null, Stdout: null, Stderr: null}
		if code, err := cli.Main(p); code != 0 {
			b.Fatalf("vx %v: exit %d: %v", args, code, err)
		}
	}
}
