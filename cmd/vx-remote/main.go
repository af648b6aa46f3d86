// Command vx-remote is vx's remote-cache helper. vx starts it only when a
// remote cache is configured (--remote-cache or VX_REMOTE_CACHE) and talks
// to it over its stdin and stdout; it holds the gRPC client of the REAPI v2
// cache and the HTTP client of turbo's remote cache API (an http:// or
// https:// URL), so that vx itself links neither and starts as fast without
// a remote as it did before one existed. Install it beside vx:
//
//	go install github.com/vxrun/vx/cmd/...
//
// It is not meant to be run by hand; see docs/cache.md, "Sharing the cache".
//
// "vx-remote otel" is the exporter of a run's OpenTelemetry trace (vx run --otel, docs/otel.md): vx starts it
// only when a trace is exported and writes the encoded OTLP requests to its stdin; it POSTs them over
// OTLP/HTTP.
package main

import (
	"fmt"
	"os"
	"os/signal"

	"github.com/vxrun/vx/internal/otel/send"
	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/remote/helper"
	"github.com/vxrun/vx/internal/remote/reapi"
	"github.com/vxrun/vx/internal/remote/turbo"
	"github.com/vxrun/vx/internal/remote/wire"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "-h", "--help", "help":
			fmt.Print("vx-remote is vx's remote-cache helper: vx starts it when a remote cache is configured\n" +
				"and talks to it over a pipe. It is not run by hand. See docs/cache.md, \"Sharing the cache\".\n")
			return
		case "-v", "--version", "version":
			fmt.Printf("vx-remote (protocol %d)\n", wire.Version)
			return
		case "otel":
			// vx exports a run's trace (vx run --otel): frames of OTLP requests on stdin, POSTed to the
			// collector; see internal/otel/send.
			signal.Ignore(os.Interrupt)
			_, _, err := send.Serve(os.Stdin, nil, func(msg string) { fmt.Fprintf(os.Stderr, "vx: warning: %s\n", msg) })
			if err != nil {
				fmt.Fprintf(os.Stderr, "vx-remote: %v\n", err)
				os.Exit(1)
			}
			return
		}
		fmt.Fprintf(os.Stderr, "vx-remote: takes no arguments (vx starts it); got %q\n", os.Args[1])
		os.Exit(2)
	}
	// A Ctrl-C reaches the whole foreground process group; vx decides what
	// happens next and ends this helper by closing its stdin.
	signal.Ignore(os.Interrupt)
	err := helper.Serve(os.Stdin, os.Stdout, func(h *wire.Hello) (wire.Backend, error) {
		cfg := remote.Config{URL: h.URL}
		if cfg.Protocol() == remote.ProtocolTurbo {
			return turbo.Dial(h)
		}
		return reapi.Dial(h)
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "vx-remote: %v\n", err)
		os.Exit(1)
	}
}
