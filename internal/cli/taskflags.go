package cli

import (
	"slices"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/run"
)

// Flags vx run, vx watch and vx graph share (graph takes --only alone: it
// shows no logs), with their parsing (--log-order: logLayout).
var (
	outputLogsFlag = flagSpec{name: "output-logs", kind: stringFlag, arg: "<mode>", usage: "how much of each task's output to show: full, hash-only, new-only, errors-only or none (over each task's \"outputLogs\"; turbo's modes)"}
	onlyFlag       = flagSpec{name: "only", kind: boolFlag, usage: "the named tasks without their dependencies' tasks"}
	logOrderFlag   = flagSpec{name: "log-order", kind: stringFlag, arg: "<order>", usage: "grouped: each task's output in one block when it ends (default in CI when stdout is not a terminal); stream: lines as they come"}
)

// readOutputLogs reads --output-logs: "" when not given.
func readOutputLogs(a *parsed) (string, error) {
	v := a.str("output-logs")
	if a.set["output-logs"] && !slices.Contains(config.OutputLogModes, v) {
		return "", usagef("--output-logs takes full, hash-only, new-only, errors-only or none, not %q", v)
	}
	return v, nil
}

// applyOnly leaves the named tasks alone in g with --only; their
// dependencies stay in their keys.
func applyOnly(a *parsed, g *run.Graph) {
	if a.set["only"] {
		g.Only()
	}
}
