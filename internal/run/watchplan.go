package run

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/watch"
)

// This file is vx watch's decision, a pure function of the graph, the
// changes and what each task is doing: which tasks a batch of changed
// files reruns, and in which order.

// watchInputs holds, for each task of a graph, the matcher of its inputs.
type watchInputs struct {
	match []*cache.InputMatcher // by Node.index
}

// newWatchInputs returns the matchers of g's tasks; store is the cache
// store's directory relative to the root ("" when outside it).
func newWatchInputs(g *Graph, store string) *watchInputs {
	wi := &watchInputs{match: make([]*cache.InputMatcher, len(g.Nodes))}
	for _, n := range g.Nodes {
		wi.match[n.index] = cache.NewInputMatcher(inputSpec(n), store)
	}
	return wi
}

// inputSpec is what of n's key says where its input files are.
func inputSpec(n *Node) *cache.TaskSpec {
	return &cache.TaskSpec{RelDir: n.Project.RelDir, Inputs: n.Config.Inputs, Outputs: n.Config.Outputs, SourceDeps: sourceDirs(n)}
}

// WatchPaths returns the paths (slash-separated, from the root) under
// which the inputs of g's tasks can be, each once, sorted: what vx watch
// watches. "." alone when that is the whole workspace.
func WatchPaths(g *Graph) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range g.config.paths() {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, n := range g.Nodes {
		for _, p := range cache.InputDirs(inputSpec(n)) {
			if p == "." {
				return []string{"."}
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}

// rerun is what a batch of changes asks for.
type rerun struct {
	// Nodes are the tasks to run again, in graph order: those whose
	// inputs changed, then, transitively, those that depend on them.
	// Persistent tasks are never among them: they restart only when the
	// outputs of a dependency change.
	Nodes []*Node
	// Paths are the changed files that are some task's input.
	Paths []string
	// Causes holds, for each task whose own inputs changed, the changes
	// among them.
	Causes map[*Node][]watch.Change
}

// planRerun decides which tasks of g the changes rerun. A task reruns
// when one of its input files changed, unless skip says that the change
// does not concern it (its current or last run started after the change,
// or it has yet to start); the tasks that depend on it, transitively,
// rerun with it. With overflow (the system dropped events), every task
// counts as changed, but those skip says saw a change made now.
// Persistent tasks (dev servers) are left alone: they watch their own
// sources.
func planRerun(g *Graph, wi *watchInputs, b watch.Batch, skip func(n *Node, c watch.Change) bool) rerun {
	in := make([]bool, len(g.Nodes))
	used := map[string]bool{}
	r := rerun{Causes: map[*Node][]watch.Change{}}
	for _, n := range g.Nodes {
		if n.Config.Persistent {
			continue
		}
		if b.Overflow && !skip(n, watch.Change{Path: ".", Time: time.Now()}) {
			in[n.index] = true
			continue
		}
		for _, c := range b.Changes {
			if wi.match[n.index].Match(c.Path, c.Ignored) && !skip(n, c) {
				in[n.index] = true
				used[c.Path] = true
				r.Causes[n] = append(r.Causes[n], c)
			}
		}
	}
	// Dependents come after their dependencies in graph order: one pass
	// carries a rerun to all of them.
	for _, n := range g.Nodes {
		if !in[n.index] {
			for _, d := range n.Deps {
				if g.inGraph(d) && in[d.index] && !n.Config.Persistent {
					in[n.index] = true
					break
				}
			}
		}
		if in[n.index] {
			r.Nodes = append(r.Nodes, n)
		}
	}
	for p := range used {
		r.Paths = append(r.Paths, p)
	}
	sort.Strings(r.Paths)
	return r
}

// planFiles reports whether a changed file is one the plan is made of:
// vx.json, a vx.config.* or a turbo.json (the root's or a project's of g),
// what the configuration's evaluation read (a preset, .env, a listed
// directory),
// pnpm-workspace.yaml, the root's package.json or that of a project of g
// or of a source dependency of one (its dependencies decide which
// projects' files are in a key).
// A change to one may change the tasks' scripts or their dependencies: vx
// watch plans again.
func planFiles(g *Graph, changes []watch.Change) []string {
	manifests := map[string]bool{"package.json": true, "vx.json": true, "pnpm-workspace.yaml": true}
	configs := append(slices.Clone(config.JSFileNames), config.TurboFileNames...)
	for _, name := range configs {
		manifests[name] = true
	}
	for _, n := range g.Nodes {
		manifests[path.Join(n.Project.RelDir, "package.json")] = true
		for _, name := range configs {
			manifests[path.Join(n.Project.RelDir, name)] = true
		}
		for _, d := range n.SourceDeps {
			manifests[path.Join(d.RelDir, "package.json")] = true
		}
	}
	var out []string
	for _, c := range changes {
		if manifests[c.Path] || g.config.has(c.Path) {
			out = append(out, c.Path)
		}
	}
	return out
}

// changedLine is the line that says what changed and what reruns:
// "packages/ui/src/a.ts changed: rerunning ui#build, web#build".
func changedLine(paths []string, nodes []*Node, stopping []*Node) string {
	var what string
	switch len(paths) {
	case 0:
		what = "files changed"
	case 1:
		what = quote.Name(paths[0]) + " changed"
	case 2:
		what = quote.Name(paths[0]) + " and " + quote.Name(paths[1]) + " changed"
	default:
		what = fmt.Sprintf("%s and %d more files changed", quote.Name(paths[0]), len(paths)-1)
	}
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = quote.Name(n.ID)
	}
	line := what + ": rerunning " + listSome(ids, 8)
	if len(stopping) > 0 {
		s := make([]string, len(stopping))
		for i, n := range stopping {
			s[i] = quote.Name(n.ID)
		}
		line += " (stopping " + strings.Join(s, ", ") + ", still running)"
	}
	return line
}
