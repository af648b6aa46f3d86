package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/vxrun/vx/exec"

	"github.com/vxrun/vx/internal/jsconfig/wire"
)

// Serve is vx-config: it reads one request from stdin, evaluates it and
// writes the response to stdout, and returns the exit status. Whatever goes
// wrong, a panic included, becomes the response's error, which vx shows as
// one line.
//
// Its first byte on stdout, a newline JSON skips, comes at once, before
// the request is read: it tells vx that the helper runs (compiled, if
// `go run` had to), so that the time limit starts then ([wire.Started]).
func Serve(stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	return serve(context.Background(), stdin, stdout, stderr, environ)
}

// Main is vx-config's process: [Serve], as the evaluation's child
// subreaper (Linux), so that what a config starts detached (setsid,
// spawn's detached, a double fork) is re-parented to vx-config rather than
// to init, and ended with the evaluation: once node is done, or when vx
// stops the helper (SIGTERM, SIGINT: node is stopped, then the rest). On
// Windows the job object vx starts vx-config in holds every process it
// starts; macOS has no subreaper, and a detached process there outlives
// the evaluation. Meant for a process of its own: it reaps every child.
func Main(stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	exec.BecomeSubreaper()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := serve(ctx, stdin, stdout, stderr, environ)
	exec.EndOrphans(orphanGrace)
	return code
}

// orphanGrace is how long what a config left running gets between
// SIGTERM and SIGKILL.
const orphanGrace = time.Second

func serve(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	if _, err := io.WriteString(stdout, wire.Started); err != nil {
		fmt.Fprintf(stderr, "vx-config: %v\n", err)
		return 1
	}
	resp := func() (resp wire.Response) {
		defer func() {
			if r := recover(); r != nil {
				resp = wire.Response{Version: wire.Version, Error: &wire.Error{Msg: fmt.Sprintf("vx-config failed: %v (please report this at https://github.com/vxrun/vx/issues)", r)}}
			}
		}()
		var req wire.Request
		if err := json.NewDecoder(stdin).Decode(&req); err != nil {
			return wire.Response{Version: wire.Version, Error: &wire.Error{Msg: fmt.Sprintf("vx-config: cannot read the request: %v", err)}}
		}
		return Evaluate(ctx, req, environ, stderr)
	}()
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintf(stderr, "vx-config: %v\n", err)
		return 1
	}
	return 0
}
