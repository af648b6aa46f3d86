// Command gen writes the workspaces the vx benchmarks run in (see
// bench.Generate): a root whose package.json declares
// "workspaces": ["packages/*"] (and a pnpm-workspace.yaml saying the same),
// with no script of its own, and n projects packages/p0001 … each with the
// single script {"noop": "<script>"}.
//
// Usage:
//
//	gen [-n 100] [-script true] dir
//	gen -n 200 -cache-files 250 dir   (the cache benchmark's workspace)
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/vxrun/vx/bench"
)

func main() {
	n := flag.Int("n", 100, "how many projects")
	script := flag.String("script", "true", "the noop script of every project")
	files := flag.Int("cache-files", 0, "write the cache benchmark's workspace instead, with this many source files per project (bench.GenerateCache)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-n projects] [-script cmd] dir")
		os.Exit(2)
	}
	if err := os.MkdirAll(flag.Arg(0), 0o755); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
	if *files > 0 {
		if err := bench.GenerateCache(flag.Arg(0), *n, *files); err != nil {
			fmt.Fprintf(os.Stderr, "gen: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if _, err := bench.Generate(flag.Arg(0), *n, *script); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}
