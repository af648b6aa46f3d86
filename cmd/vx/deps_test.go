package main

import (
	osexec "os/exec"
	"strings"
	"testing"
)

// TestStartupDeps: what vx links is what every start pays for. The heavy
// libraries live in the helpers (vx-remote: gRPC, protobuf and net/http,
// for REAPI and turbo's HTTP API; vx-config: esbuild), never in vx itself.
func TestStartupDeps(t *testing.T) {
	t.Parallel()
	out, err := osexec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"github.com/evanw/esbuild", "google.golang.org/grpc", "google.golang.org/protobuf", "net/http", "github.com/vxrun/vx/internal/remote/turbo", "github.com/vxrun/vx/internal/otel/send"} {
			if dep == heavy || strings.HasPrefix(dep, heavy+"/") {
				t.Errorf("vx links %s: it belongs in a helper", dep)
			}
		}
	}
}
