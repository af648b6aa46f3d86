// Command vx runs the package.json scripts of a JavaScript workspace, each
// in an isolated environment. See README.md and docs/.
//
// This is vx's only contact with the process itself: it reads the
// arguments, the environment, the working directory and the signals, and
// hands them to package cli, which returns the exit code and an error. This
// is the one place that prints an error: "vx: " and [diag.Message], with a
// file named relative to the working directory.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/vxrun/vx/internal/cli"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/term"
)

func main() {
	os.Exit(run())
}

func run() int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "vx: cannot read the working directory: %v\n", err)
		return cli.ExitUsage
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	code, err := cli.Main(cli.Process{
		Args:           os.Args[1:],
		Environ:        os.Environ(),
		Dir:            dir,
		Stdin:          os.Stdin,
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		StdinTerminal:  term.IsTerminal(os.Stdin.Fd()),
		StdoutTerminal: term.SupportsColor(os.Stdout.Fd()),
		StderrTerminal: term.SupportsColor(os.Stderr.Fd()),
		NoColor:        os.Getenv("NO_COLOR") != "",
		Signals:        sigs,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "vx: %s\n", diag.Message(err, dir))
	}
	return code
}
