// Command floor is the "Go floor" of the vx benchmarks: the least a task runner
// written in Go can do to run one script per project. It spawns the script with
// `sh -c` in each directory named on the command line, at most -c at a time, and
// exits. It reads no files, builds no environment (children inherit floor's) and
// captures no output (children write straight to floor's stdout and stderr), so
// the gap between floor and `vx run` is what vx spends on everything else.
//
// Usage:
//
//	floor [-c concurrency] [-script 'true'] dir...
//
// It exits 1 if any script fails or cannot be started, 2 on bad usage.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
)

func main() {
	conc := flag.Int("c", 2, "how many scripts run at once")
	script := flag.String("script", "true", "the script given to sh -c")
	flag.Parse()
	if *conc < 1 {
		fmt.Fprintln(os.Stderr, "floor: -c must be at least 1")
		os.Exit(2)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		os.Exit(1)
	}
	dirs := make(chan string)
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range min(*conc, flag.NArg()) {
		wg.Go(func() {
			for dir := range dirs {
				cmd := exec.Command(sh, "-c", *script)
				cmd.Dir = dir
				cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
				if err := cmd.Run(); err != nil {
					fmt.Fprintf(os.Stderr, "floor: %q: %v\n", dir, err)
					failed.Store(true)
				}
			}
		})
	}
	for _, dir := range flag.Args() {
		dirs <- dir
	}
	close(dirs)
	wg.Wait()
	if failed.Load() {
		os.Exit(1)
	}
}
