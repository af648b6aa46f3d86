package cli

import (
	"fmt"
	"os"
	"runtime"

	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/workspace"
)

// traceMode reads --trace and --trace=strict.
func traceMode(a *parsed) (run.TraceMode, error) {
	if !a.set["trace"] {
		return run.TraceOff, nil
	}
	switch v := a.str("trace"); v {
	case "":
		return run.TraceReport, nil
	case "strict":
		return run.TraceStrict, nil
	default:
		return run.TraceOff, usagef("--trace takes no value or =strict, not %q", v)
	}
}

// tracing is the run's tracing, or nil when --trace was not given and no
// task's entry says "trace": "strict". Where
// tracing is not supported (every system but Linux on amd64 and arm64) it
// says so once and the run goes on untraced; so does a run without the
// cache (--no-cache), whose tasks have no key to prove.
func tracing(p *Process, mode run.TraceMode, ws *workspace.Workspace, g *run.Graph, storeDir string) *run.Tracing {
	if !run.WantsTrace(mode, g) {
		return nil
	}
	goos := p.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	if goos != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		fmt.Fprintf(p.Stderr, "vx: tracing tasks (--trace, \"trace\": \"strict\") is Linux-only today (amd64, arm64); running untraced\n")
		return nil
	}
	if storeDir == "" {
		fmt.Fprintf(p.Stderr, "vx: tracing: the cache is off, so no task has a key to prove; running untraced\n")
		return nil
	}
	exe := p.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	return &run.Tracing{Mode: mode, Shim: exe, Root: ws.Root, Skip: []string{storeDir}}
}

// tcStore is the directory of tc's store, "" without a cache.
func tcStore(tc *run.TaskCache) string {
	if tc == nil {
		return ""
	}
	return tc.C.Store().Dir
}
