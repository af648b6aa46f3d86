package cli

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/internal/watch"
	"github.com/vxrun/vx/workspace"
)

var watchCmd = &command{
	name:    "watch",
	summary: "run tasks, then run them again whenever their inputs change",
	usage:   "vx watch <task>... [--filter <selector>]... [--affected [--base <ref>]] [--concurrency N] [--grace <duration>] [--output-logs <mode>] [--only] [-- <args>]",
	flags: []flagSpec{
		{name: "concurrency", kind: stringFlag, arg: "N", usage: "tasks run at once (default: the number of CPUs)"},
		{name: "grace", kind: stringFlag, arg: "<duration>", usage: "how long a task being stopped (its inputs changed, or Ctrl-C) gets before it is killed (default 5s)"},
		{name: "trace", kind: optionalFlag, arg: "strict", usage: "watch every file each cached task reads and writes, and say what its key or outputs miss (Linux); =strict fails such a task"},
		outputLogsFlag,
		onlyFlag,
		frameworkFlag,
		{name: "otel", kind: optionalFlag, arg: "URL", usage: "export each round as an OpenTelemetry trace over OTLP/HTTP to the collector at URL (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318)"},
	},
	run: runWatch,
}

func init() {
	watchCmd.flags = append(append([]flagSpec{}, selectFlags...), watchCmd.flags...)
	watchCmd.flags = append(watchCmd.flags, cacheRunFlags...)
}

// runWatch is vx watch: it plans the tasks as vx run does, watches the
// files their inputs can be in, and hands both to run.Watch; when a file
// the plan is made of changes the tasks, it plans and watches again.
func runWatch(p *Process, a *parsed) (int, error) {
	if len(a.pos) == 0 {
		return ExitUsage, usagef("name the tasks to watch, e.g. vx watch build (vx run lists the tasks)")
	}
	conc, grace, err := readProcessFlags(p, a)
	if err != nil {
		return ExitUsage, err
	}
	if _, err := traceMode(a); err != nil {
		return ExitUsage, err
	}
	if _, _, err := readAttemptFlags(a); err != nil {
		return ExitUsage, err
	}
	if _, err := readOutputLogs(a); err != nil {
		return ExitUsage, err
	}
	base, err := affectedBase(p, a)
	if err != nil {
		return ExitUsage, err
	}
	sel := selection(p, a, base)
	var cfg *config.Config // the latest plan's
	plan := func() (*workspace.Workspace, *run.Graph, error) {
		ws, c, err := load(p, a)
		if err != nil {
			return nil, nil, err
		}
		cfg = c
		return planWatch(p, a, ws, c, sel)
	}
	ws, g, err := plan()
	if err != nil {
		return ExitUsage, err
	}
	if err := run.Nested(ws, cfg, p.Environ, p.GOOS); err != nil {
		return ExitUsage, err
	}
	notePlan(p, g, a.pos, "nothing to watch")
	if len(g.Nodes) == 0 {
		return ExitOK, nil
	}
	if !p.gate.enter() {
		return run.StopCode(p.Context), nil // Main has returned: start nothing
	}
	ot := startOtel(p, a, nil)
	defer ot.stop()
	for {
		end, err := watchOnce(p, a, ws, cfg, g, conc, grace, plan, ot.observer())
		if err != nil {
			return ExitUsage, err
		}
		if end.Replan == nil {
			return end.Code(), nil
		}
		ws, g = end.Workspace, end.Replan
	}
}

// planWatch plans the tasks of a selection in ws, as vx run does.
func planWatch(p *Process, a *parsed, ws *workspace.Workspace, cfg *config.Config, sel run.Selection) (*workspace.Workspace, *run.Graph, error) {
	if err := run.CheckPnP(ws); err != nil {
		return nil, nil, err
	}
	g, err := run.Plan(ws, cfg, sel)
	if err != nil {
		return nil, nil, err
	}
	applyOnly(a, g)
	if err := run.CheckBinPaths(ws, g.Nodes, p.GOOS); err != nil {
		return nil, nil, err
	}
	return ws, g, nil
}

// watchEnd is how one watch of a plan ended: by a signal (Code), or with
// a new plan to watch.
type watchEnd struct {
	run.WatchEnd
	Workspace *workspace.Workspace // the new plan's
}

// watchOnce watches the tasks of g until vx is stopped or the plan
// changes. Its error is one of setting the watch up.
func watchOnce(p *Process, a *parsed, ws *workspace.Workspace, cfg *config.Config, g *run.Graph, conc int, grace time.Duration,
	plan func() (*workspace.Workspace, *run.Graph, error), obs run.Observer) (watchEnd, error) {
	mode, _ := traceMode(a)                    // checked by runWatch
	timeout, retries, _ := readAttemptFlags(a) // likewise
	outputLogs, _ := readOutputLogs(a)         // likewise
	first, err := openCache(p, a, ws, cfg, g, true, nil)
	if err != nil {
		return watchEnd{}, err
	}
	if first != nil {
		first.TraceStrict = mode == run.TraceStrict
	}
	newCache := func(nodes []*run.Node) *run.TaskCache {
		if first != nil {
			tc := first
			first = nil
			return tc
		}
		tc, err := openCache(p, a, ws, cfg, &run.Graph{Nodes: nodes}, true, nil)
		if err != nil {
			fmt.Fprintf(p.Stderr, "vx: the task cache is off for these tasks: %v\n", err)
		}
		if tc != nil {
			tc.TraceStrict = mode == run.TraceStrict
		}
		return tc
	}
	storeDir, _ := cacheDir(p, a, ws.Root) // openCache checked it
	store := ""
	if rel, err := filepath.Rel(ws.Root, storeDir); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		store = filepath.ToSlash(rel)
	}
	skip := func(rel string) bool {
		b := path.Base(rel)
		return b == "node_modules" || b == ".git" || store != "" && (rel == store || strings.HasPrefix(rel, store+"/"))
	}
	var ignored func([]string) (map[string]bool, error)
	if git, err := exec.LookPath("git", p.Environ); err == nil {
		ignored = watch.GitIgnored(git, ws.Root, p.Environ)
	}
	w, err := watch.Start(watch.Options{Root: ws.Root, Paths: run.WatchPaths(g), Skip: skip, Ignored: ignored, GOOS: p.GOOS,
		Warn: func(s string) { fmt.Fprintf(p.Stderr, "vx: %s\n", s) }})
	if err != nil {
		if first != nil {
			first.Close()
		}
		return watchEnd{}, err
	}
	defer w.Close()
	traceStoreDir := storeDir
	if a.set["no-cache"] {
		traceStoreDir = ""
	}
	var next *workspace.Workspace
	end := run.Watch(p.Context, g, run.WatchOptions{
		Options: run.Options{
			Concurrency:    conc,
			Grace:          grace,
			Timeout:        timeout,
			Retries:        retries,
			Args:           a.after,
			Env:            func(n *run.Node) []string { return run.TaskEnv(ws, n, p.Environ, p.GOOS) },
			Stdout:         p.Stdout,
			Stderr:         p.Stderr,
			OutputTerminal: p.StdoutTerminal && p.StderrTerminal,
			Color:          p.StdoutTerminal && p.StderrTerminal && !p.NoColor,
			Kill:           p.Kill,
			OutputLogs:     outputLogs,
			Trace:          tracing(p, mode, ws, g, traceStoreDir),
			Observer:       obs, // vx watch --otel: a trace per round
		},
		Changes:  w.C,
		Cache:    newCache,
		Store:    store,
		StoreDir: storeDir,
		Replan: func() (*run.Graph, error) {
			ws2, g2, err := plan()
			next = ws2
			return g2, err
		},
	})
	if first != nil {
		first.Close()
	}
	return watchEnd{WatchEnd: end, Workspace: next}, nil
}
