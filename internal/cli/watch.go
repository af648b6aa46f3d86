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
	"github.com/vxrun/vx/internal/view"
	"github.com/vxrun/vx/internal/watch"
	"github.com/vxrun/vx/workspace"
)

var watchCmd = &command{
	name:    "watch",
	summary: "run tasks, then run them again whenever their inputs change",
	usage:   "vx watch <task>... [--filter <selector>]... [--affected [--base <ref>]] [--concurrency N] [--grace <duration>] [--log-order <order>] [--output-logs <mode>] [--only] [--profile <file>] [--summary <file>] [-- <args>]",
	flags: []flagSpec{
		{name: "concurrency", kind: stringFlag, arg: "N", usage: "tasks run at once (default: the number of CPUs)"},
		{name: "grace", kind: stringFlag, arg: "<duration>", usage: "how long a task being stopped (its inputs changed, or Ctrl-C) gets before it is killed (default 5s)"},
		logOrderFlag,
		{name: "profile", kind: stringFlag, arg: "<file>", usage: "write a Chrome trace of each round (tasks per lane, critical path) to the file, rewritten after each round, for Perfetto or chrome://tracing"},
		{name: "summary", kind: stringFlag, arg: "<file>", usage: "write what each task of a round did (times, exit codes, commands) as JSON to the file, rewritten after each round"},
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
	order, github, err := logLayout(p, a.str("log-order"))
	if err != nil {
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
	rep, err := openWatchReport(p, a, ws.Root)
	if err != nil {
		return ExitUsage, err
	}
	defer rep.close()
	if !p.gate.enter() {
		return run.StopCode(p.Context), nil // Main has returned: start nothing
	}
	ot := startOtel(p, a, nil)
	defer ot.stop()
	setup := watchSetup{conc: conc, grace: grace, order: order, github: github, own: rep.files(),
		obs: joinObservers(rep.observer(), ot.observer())} // --profile, --summary; --otel: a trace per round
	for {
		end, err := watchOnce(p, a, ws, cfg, g, setup, plan)
		if err != nil {
			return ExitUsage, err
		}
		if end.Replan == nil {
			return end.Code(), nil
		}
		ws, g = end.Workspace, end.Replan
		if rep.prof != nil {
			rep.prof.prof = view.Profile{} // the round cut short by the new plan is not one
		}
	}
}

// watchSetup is what vx watch's flags say of every watch of a plan.
type watchSetup struct {
	conc   int
	grace  time.Duration
	order  run.LogOrder
	github bool         // fold grouped blocks for GitHub Actions
	own    []string     // the files vx writes (--profile, --summary): not changes
	obs    run.Observer // hears of each task and each round
}

// watchReport writes vx watch's --profile and --summary after each round
// ([run.RoundObserver]): each file holds the latest round, also the last
// one, cut short when vx watch is stopped.
type watchReport struct {
	p    *Process
	root string
	prof *profileOut
	sum  *summaryOut
	args []string // after --
}

// openWatchReport opens the files of --profile and --summary before
// anything runs, so that one that cannot be written stops vx watch first.
func openWatchReport(p *Process, a *parsed, root string) (*watchReport, error) {
	r := &watchReport{p: p, root: root, args: a.after}
	var err error
	if a.set["summary"] {
		if a.str("summary") == "json" {
			return nil, usagef("--summary in vx watch takes a file name: the file is rewritten after each round (stdout holds the tasks' output)")
		}
		if r.sum, err = openSummary(p, a.str("summary")); err != nil {
			return nil, err
		}
		r.sum.keep = true
	}
	if a.set["profile"] {
		if r.prof, err = openProfile(p, a.str("profile")); err != nil {
			r.close()
			return nil, err
		}
		r.prof.keep = true
	}
	return r, nil
}

// files are the absolute paths of the files r writes.
func (r *watchReport) files() []string {
	var out []string
	if r.prof != nil {
		out = append(out, r.prof.file.Name())
	}
	if r.sum != nil {
		out = append(out, r.sum.file.Name())
	}
	return out
}

func (r *watchReport) observer() run.Observer {
	if r.prof == nil && r.sum == nil {
		return nil
	}
	return r
}

func (r *watchReport) TaskStarted(n *run.Node, at time.Time) {
	if r.prof != nil {
		r.prof.prof.TaskStarted(n, at)
	}
}

func (r *watchReport) TaskEnded(tr run.TaskRun) {
	if r.prof != nil {
		r.prof.prof.TaskEnded(tr)
	}
}

// RoundEnded rewrites the files with the round o; the next round's trace
// starts afresh.
func (r *watchReport) RoundEnded(o run.Outcome) {
	if r.prof != nil {
		if err := r.prof.write(r.p, o); err != nil {
			fmt.Fprintf(r.p.Stderr, "vx: %v\n", err)
		}
		r.prof.prof = view.Profile{}
	}
	if r.sum != nil {
		if err := r.sum.write(r.p, r.root, o, r.args, nil); err != nil {
			fmt.Fprintf(r.p.Stderr, "vx: %v\n", err)
		}
	}
}

func (r *watchReport) close() {
	if r.prof != nil {
		r.prof.file.Close()
	}
	if r.sum != nil {
		r.sum.file.Close()
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
func watchOnce(p *Process, a *parsed, ws *workspace.Workspace, cfg *config.Config, g *run.Graph, setup watchSetup,
	plan func() (*workspace.Workspace, *run.Graph, error)) (watchEnd, error) {
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
	var written []string // --profile, --summary: rewritten after each round
	for _, f := range setup.own {
		if rel, err := filepath.Rel(ws.Root, f); err == nil && !strings.HasPrefix(rel, "..") {
			written = append(written, filepath.ToSlash(rel))
		}
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
			Concurrency:    setup.conc,
			Grace:          setup.grace,
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
			LogOrder:       setup.order,
			GitHubActions:  setup.github,
			Trace:          tracing(p, mode, ws, g, traceStoreDir),
			Observer:       setup.obs,
		},
		Changes:  w.C,
		Cache:    newCache,
		Store:    store,
		StoreDir: storeDir,
		Written:  written,
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
