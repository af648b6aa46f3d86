// Command floor is the "Go floor" of the vx benchmarks: the least a task runner
// written in Go can do to run one script per project. It spawns the script with
// `sh -c` in each directory named on the command line, at most -c at a time, and
// exits. It reads no files and captures no output (children write straight to
// floor's stdout and stderr). Its children get an environment of the size vx's
// tasks get (made once, not per child): a child's start costs more the larger
// its environment, and with floor's whole environment the floor would measure
// the bench's shell rather than a task runner. The gap between floor and
// `vx run` is what vx spends on everything else.
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

	vxexec "github.com/vxrun/vx/exec"
)

func main() {
	conc := flag.Int("c", 2, "how many scripts run at once")
	script := flag.String("script", "true", "the script given to sh -c")
	flag.Parse()
	if *conc < 1 {
		fmt.Fprintln(os.Stderr, "floor: -c must be at least 1")
		os.Exit(2)
	}
	env := taskSizedEnv()
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
				cmd.Env = append(env[:len(env):len(env)], "PWD="+dir)
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

// taskSizedEnv returns an environment of the size vx gives a task: built
// from floor's own by the function vx uses, with the task variables filled
// in with fixed values, except PWD, which each child adds.
func taskSizedEnv() []string {
	return vxexec.TaskEnviron(vxexec.EnvOptions{Source: os.Environ()}, vxexec.TaskVars{
		Workspace: "/w", ID: "p#noop", Event: "noop", Script: "true",
		PackageName: "p", PackageVersion: "1.0.0", PackageJSON: "/w/p/package.json",
	})
}
