package cli

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/internal/view"
)

var graphCmd = &command{
	name:    "graph",
	summary: "show the task graph a run would have: DOT, JSON, or an HTML page",
	usage:   "vx graph <task>... [--filter <selector>]... [--affected [--base <ref>]] [--only] [--json | --html <file>] [-- <args>]",
	run:     runGraph,
}

func init() {
	cacheDir, _ := findFlag(cacheRunFlags, "cache-dir")
	graphCmd.flags = append(append([]flagSpec{}, selectFlags...),
		flagSpec{name: "json", kind: boolFlag, usage: "print the graph as JSON: tasks with their cache state (hit, remote-hit, miss, off), and edges"},
		flagSpec{name: "html", kind: stringFlag, arg: "<file>", usage: "write the graph as one HTML page that works offline (- for stdout)"},
		flagSpec{name: "no-cache", kind: boolFlag, usage: "do not compute cache keys: every task's cache state is off"},
		cacheDir,
		onlyFlag,
		frameworkFlag,
	)
	graphCmd.flags = append(graphCmd.flags, remoteFlags...)
}

func runGraph(p *Process, a *parsed) (int, error) {
	if a.set["json"] && a.set["html"] {
		return ExitUsage, usagef("--json and --html each choose the output; give one")
	}
	if a.set["html"] && a.str("html") == "" {
		return ExitUsage, usagef("--html needs a file name, or - for stdout")
	}
	base, err := affectedBase(p, a)
	if err != nil {
		return ExitUsage, err
	}
	if len(a.pos) == 0 {
		return ExitUsage, usagef("name a task: vx graph build (vx run lists the tasks here)")
	}
	ws, cfg, err := load(p, a)
	if err != nil {
		return ExitUsage, err
	}
	g, err := run.Plan(ws, cfg, selection(p, a, base))
	if err != nil {
		return ExitUsage, err
	}
	applyOnly(a, g)
	notePlan(p, g, a.pos, "the graph is empty")
	var cacheOf func(*run.Node) view.CacheInfo
	if a.set["json"] || a.set["html"] {
		// The keys, as vx run --dry-run computes them: nothing runs,
		// nothing is stored, no output is downloaded.
		rc, err := remoteConfig(p, a, cfg)
		if err != nil {
			return ExitUsage, err
		}
		tc, err := openCache(p, a, ws, cfg, g, false, rc)
		if err != nil {
			return ExitUsage, err
		}
		if tc != nil {
			defer tc.C.CloseReadOnly()
			cacheOf = func(n *run.Node) view.CacheInfo { return cacheInfo(planCacheOf(tc, n)) }
		}
	}
	title := "vx graph"
	for _, arg := range p.Args[1:] {
		title += " " + quote.Name(arg)
	}
	v := view.FromRun(g, title, cacheOf)
	switch {
	case a.set["json"]:
		return ExitOK, writeJSON(p.Stdout, view.ToJSON(v))
	case a.set["html"]:
		return ExitOK, writeHTML(p, a.str("html"), v)
	}
	return ExitOK, view.WriteDOT(p.Stdout, v)
}

// cacheInfo is a task's cache state as vx graph shows it.
func cacheInfo(pc *planCache) view.CacheInfo {
	switch {
	case pc == nil:
		return view.CacheInfo{State: view.CacheOff}
	case pc.Error != "":
		return view.CacheInfo{State: view.CacheMiss, Error: pc.Error}
	case pc.Hit:
		return view.CacheInfo{State: view.CacheHit, Key: pc.Key}
	case pc.RemoteHit != nil && *pc.RemoteHit:
		return view.CacheInfo{State: view.CacheRemoteHit, Key: pc.Key}
	}
	return view.CacheInfo{State: view.CacheMiss, Key: pc.Key}
}

// writeHTML writes the page to name (relative to vx's directory), or to
// stdout for "-", and says on stderr where it went.
func writeHTML(p *Process, name string, v *view.Graph) error {
	if name == "-" {
		return view.WriteHTML(p.Stdout, v)
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Dir, path)
	}
	f, err := createOwn(path)
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		return fmt.Errorf("--html: cannot write %s: %w", quote.Q(name), err)
	}
	w := bufio.NewWriter(f)
	err = view.WriteHTML(w, v)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--html: cannot write %s: %w", quote.Q(name), err)
	}
	tasks := "tasks"
	if len(v.Tasks) == 1 {
		tasks = "task"
	}
	fmt.Fprintf(p.Stderr, "vx: wrote %s: %d %s\n", quote.Name(name), len(v.Tasks), tasks)
	return nil
}
