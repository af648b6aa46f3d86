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
	"context"
	"encoding/json"
	"fmt"
	"io"
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
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// run answers one request. Whatever goes wrong becomes the response's
// error: vx shows it as one line.
func run(stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	var req wire.Request
	resp := func() (resp wire.Response) {
		defer func() {
			if r := recover(); r != nil {
				resp = wire.Response{Version: wire.Version, Error: &wire.Error{Msg: fmt.Sprintf("vx-config failed: %v (please report this at https://github.com/vxrun/vx/issues)", r)}}
			}
		}()
		if err := json.NewDecoder(stdin).Decode(&req); err != nil {
			return wire.Response{Version: wire.Version, Error: &wire.Error{Msg: fmt.Sprintf("vx-config: cannot read the request: %v", err)}}
		}
		return evaluate.Evaluate(context.Background(), req, environ, stderr)
	}()
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintf(stderr, "vx-config: %v\n", err)
		return 1
	}
	return 0
}
