// Command vx-config is vx's config helper: it bundles vx.config.ts (also
// .mts, .js, .mjs) and the projects' own config files with esbuild,
// evaluates them with node, and answers with their default exports as JSON
// and what they read. vx starts it only when no remembered evaluation still
// holds, and talks to it over its stdin and stdout (see
// internal/jsconfig/wire); it links esbuild so that vx itself does not, and
// starts as fast as it did before vx.config.ts existed. Install it beside vx:
//
//	go install github.com/vxrun/vx/cmd/...
//
// It is not meant to be run by hand; see docs/config.md.
package main

import (
	"fmt"
	"os"

	"github.com/vxrun/vx/internal/jsconfig/evaluate"
	"github.com/vxrun/vx/internal/jsconfig/wire"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "-h", "--help", "help":
			fmt.Print("vx-config is vx's config helper: vx starts it to evaluate vx.config.ts and talks to it\n" +
				"over a pipe. It is not run by hand. See docs/config.md.\n")
			return
		case "-v", "--version", "version":
			fmt.Printf("vx-config (protocol %d)\n", wire.Version)
			return
		}
		fmt.Fprintf(os.Stderr, "vx-config: takes no arguments (vx starts it); got %q\n", os.Args[1])
		os.Exit(2)
	}
	os.Exit(evaluate.Main(os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}
