package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

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
		return Evaluate(context.Background(), req, environ, stderr)
	}()
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintf(stderr, "vx-config: %v\n", err)
		return 1
	}
	return 0
}
