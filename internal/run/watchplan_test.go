package run

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/watch"
)

// watchGraph is web -> ui -> utils (build), docs alone, web's persistent
// dev after ^build, and a root lint over the whole workspace.
func watchGraph(t *testing.T) *Graph {
	t.Helper()
	ws := testWorkspace(t,
		"root::lint",
		"utils::build",
		"ui:utils:build",
		"web:ui:build,dev",
		"docs::build",
	)
	cfg := mustConfig(t, `{"tasks": {
		"build": {"dependsOn": ["^build"], "outputs": ["dist/**"]},
		"web#build": {"dependsOn": ["^build"], "outputs": [".next/**"], "inputs": ["src/**", "//shared/tsconfig.json"]},
		"dev": {"dependsOn": ["^build"], "persistent": true},
		"lint": {}
	}}`)
	g, err := Plan(ws, cfg, Selection{Tasks: []string{"build", "web#dev", "//#lint"}, Dir: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestPlanRerun(t *testing.T) {
	g := watchGraph(t)
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	before, after := t0.Add(-time.Second), t0.Add(time.Second)
	wi := newWatchInputs(g, "node_modules/.cache/vx")
	ids := func(ns []*Node) []string {
		var out []string
		for _, n := range ns {
			out = append(out, n.ID)
		}
		return out
	}
	change := func(p string) watch.Change { return watch.Change{Path: p, Time: t0} }
	tests := []struct {
		name    string
		changes []watch.Change
		// started says when each task's last run started; a task not
		// listed started long before; "pending" tasks wait to run.
		started   map[string]time.Time
		pending   []string
		overflow  bool
		wantNodes []string
		wantPaths []string
	}{
		{"an edit in ui reruns ui and web, not utils, and not web's dev server",
			[]watch.Change{change("packages/ui/src/a.ts")}, nil, nil, false,
			[]string{"ui#build", "web#build", "root#lint"}, []string{"packages/ui/src/a.ts"}},
		{"an edit in utils reruns the chain in graph order",
			[]watch.Change{change("packages/utils/index.ts")}, nil, nil, false,
			[]string{"utils#build", "ui#build", "web#build", "root#lint"}, []string{"packages/utils/index.ts"}},
		{"an output of ui's build reruns nothing but what reads every file",
			[]watch.Change{change("packages/ui/dist/a.js")}, nil, nil, false,
			[]string{"root#lint"}, []string{"packages/ui/dist/a.js"}},
		{"a file git ignores reruns nothing",
			[]watch.Change{{Path: "packages/ui/src/gen.ts", Time: t0, Ignored: true}}, nil, nil, false, nil, nil},
		{"an ignored package.json still counts, for its own project's tasks",
			[]watch.Change{{Path: "packages/docs/package.json", Time: t0, Ignored: true}}, nil, nil, false,
			[]string{"docs#build"}, []string{"packages/docs/package.json"}},
		{"node_modules and the store are no input",
			[]watch.Change{change("packages/ui/node_modules/x/i.js"), change("node_modules/.cache/vx/memo")}, nil, nil, false, nil, nil},
		{"a lockfile reruns everything but the dev server",
			[]watch.Change{change("pnpm-lock.yaml")}, nil, nil, false,
			[]string{"utils#build", "ui#build", "web#build", "docs#build", "root#lint"}, []string{"pnpm-lock.yaml"}},
		{"explicit inputs: web's README is not one of web#build's",
			[]watch.Change{change("packages/web/README.md")}, nil, nil, false,
			[]string{"root#lint"}, []string{"packages/web/README.md"}},
		{"a root glob input",
			[]watch.Change{change("shared/tsconfig.json")}, nil, nil, false,
			[]string{"web#build", "root#lint"}, []string{"shared/tsconfig.json"}},
		{"a task that started after the change saw it",
			[]watch.Change{change("packages/ui/src/a.ts")}, map[string]time.Time{"ui#build": after, "root#lint": after}, nil, false,
			nil, nil},
		{"a task that started before the change reruns, its dependents with it",
			[]watch.Change{change("packages/ui/src/a.ts")}, map[string]time.Time{"ui#build": before, "web#build": after, "root#lint": after}, nil, false,
			[]string{"ui#build", "web#build"}, []string{"packages/ui/src/a.ts"}},
		{"a task waiting to run will see the change",
			[]watch.Change{change("packages/ui/src/a.ts")}, nil, []string{"ui#build", "root#lint"}, false,
			nil, nil},
		{"events were lost: every task that is not waiting",
			nil, nil, []string{"docs#build"}, true,
			[]string{"utils#build", "ui#build", "web#build", "root#lint"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skip := func(n *Node, c watch.Change) bool {
				for _, id := range tt.pending {
					if id == n.ID {
						return true
					}
				}
				st, ok := tt.started[n.ID]
				return ok && st.After(c.Time)
			}
			r := planRerun(g, wi, watch.Batch{Changes: tt.changes, Overflow: tt.overflow}, skip)
			if diff := cmp.Diff(tt.wantNodes, ids(r.Nodes)); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPaths, r.Paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWatchPaths(t *testing.T) {
	g := watchGraph(t)
	if diff := cmp.Diff([]string{"."}, WatchPaths(g)); diff != "" {
		t.Errorf("with a root task (-want +got):\n%s", diff)
	}
	g2 := &Graph{}
	for _, n := range g.Nodes {
		if n.ID == "web#build" || n.ID == "ui#build" {
			g2.Nodes = append(g2.Nodes, n)
		}
	}
	want := []string{"bun.lock", "bun.lockb", "npm-shrinkwrap.json", "package-lock.json", "packages/ui", "packages/web",
		"pnpm-lock.yaml", "shared/tsconfig.json", "yarn.lock"}
	if diff := cmp.Diff(want, WatchPaths(g2)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestPlanFiles(t *testing.T) {
	g := watchGraph(t)
	got := planFiles(g, []watch.Change{{Path: "vx.json"}, {Path: "packages/ui/package.json"}, {Path: "packages/ui/src/package.json"},
		{Path: "pnpm-workspace.yaml"}, {Path: "package.json"}, {Path: "packages/other/package.json"},
		{Path: "vx.config.ts"}, {Path: "packages/web/vx.config.mjs"}, {Path: "packages/other/vx.config.ts"},
		{Path: "turbo.json"}, {Path: "packages/web/turbo.json"}, {Path: "packages/other/turbo.jsonc"}})
	want := []string{"vx.json", "packages/ui/package.json", "pnpm-workspace.yaml", "package.json", "vx.config.ts", "packages/web/vx.config.mjs",
		"turbo.json", "packages/web/turbo.json"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPlanFilesConfigSources: what the configuration's evaluation read
// (a preset, .env, a listed directory) is watched, and its change makes vx
// watch plan again; so does the root's vx.config.ts.
func TestPlanFilesConfigSources(t *testing.T) {
	ws := testWorkspace(t, "root::", "ui::build", "web:ui:build")
	cfg := mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"]}}}`)
	cfg.Sources = []config.Source{{Path: filepath.Join(ws.Root, "vx.config.ts")}, {Path: filepath.Join(ws.Root, "presets", "base.ts")},
		{Path: filepath.Join(ws.Root, ".env")}, {Path: filepath.Join(ws.Root, "presets", "more"), Dir: true},
		{Path: filepath.Join(ws.Root, "presets", "some"), Dir: true, Prefix: "index."},
		{Path: filepath.Join(filepath.Dir(ws.Root), "elsewhere.ts")}}
	g, err := Plan(ws, cfg, Selection{Tasks: []string{"build"}, Dir: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	got := planFiles(g, []watch.Change{{Path: "presets/base.ts"}, {Path: ".env", Ignored: true}, {Path: "presets/other.ts"},
		{Path: "presets/more/new.ts"}, {Path: "presets/more/deep/new.ts"}, {Path: "README.md"},
		{Path: "presets/some/index.js"}, {Path: "presets/some/other.ts"}})
	if diff := cmp.Diff([]string{"presets/base.ts", ".env", "presets/more/new.ts", "presets/some/index.js"}, got); diff != "" {
		t.Errorf("planFiles (-want +got):\n%s", diff)
	}
	paths := WatchPaths(g)
	for _, want := range []string{".env", "presets/base.ts", "presets/more", "vx.config.ts"} {
		if !slices.Contains(paths, want) {
			t.Errorf("WatchPaths = %q, without %q", paths, want)
		}
	}
	g2, err := Plan(ws, mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"]}}}`), Selection{Tasks: []string{"build"}, Dir: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	if sameGraph(g, g2) {
		t.Error("sameGraph: plans made from different configuration files are the same")
	}
}

func TestChangedLine(t *testing.T) {
	g := watchGraph(t)
	byID := map[string]*Node{}
	for _, n := range g.Nodes {
		byID[n.ID] = n
	}
	ui, web := byID["ui#build"], byID["web#build"]
	tests := []struct {
		paths     []string
		nodes, st []*Node
		want      string
	}{
		{[]string{"packages/ui/src/a.ts"}, []*Node{ui, web}, nil, "packages/ui/src/a.ts changed: rerunning ui#build, web#build"},
		{[]string{"a", "b"}, []*Node{ui}, []*Node{ui}, "a and b changed: rerunning ui#build (stopping ui#build, still running)"},
		{[]string{"a", "b", "c"}, []*Node{ui}, nil, "a and 2 more files changed: rerunning ui#build"},
	}
	for _, tt := range tests {
		if got := changedLine(tt.paths, tt.nodes, tt.st); got != tt.want {
			t.Errorf("changedLine = %q, want %q", got, tt.want)
		}
	}
}

// TestWatchSourceDeps: a file of a workspace dependency without the task
// (app -> mid -> leaf, only app has build) reruns the dependent, as it is
// in its key; mid's and leaf's directories are watched, and their
// package.json makes vx watch plan again (it says which projects are in).
func TestWatchSourceDeps(t *testing.T) {
	ws := testWorkspace(t, "root::", "leaf::", "mid:leaf:", "app:mid:build", "other::")
	cfg := mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"], "inputs": ["src/**"]}}}`)
	g, err := Plan(ws, cfg, Selection{Tasks: []string{"build"}, Dir: ws.Root})
	if err != nil {
		t.Fatal(err)
	}
	wi := newWatchInputs(g, "")
	for _, tt := range []struct {
		change watch.Change
		want   int // tasks rerun
	}{
		{watch.Change{Path: "packages/leaf/src/y.ts"}, 1},
		{watch.Change{Path: "packages/mid/README.md"}, 1},
		{watch.Change{Path: "packages/mid/package.json", Ignored: true}, 1},
		{watch.Change{Path: "packages/mid/src/gen.ts", Ignored: true}, 0},
		{watch.Change{Path: "packages/mid/node_modules/x/i.js"}, 0},
		{watch.Change{Path: "packages/other/src/o.ts"}, 0},
	} {
		r := planRerun(g, wi, watch.Batch{Changes: []watch.Change{tt.change}}, func(*Node, watch.Change) bool { return false })
		if len(r.Nodes) != tt.want {
			t.Errorf("%s: %d tasks rerun, want %d", tt.change.Path, len(r.Nodes), tt.want)
		}
	}
	want := []string{"bun.lock", "bun.lockb", "npm-shrinkwrap.json", "package-lock.json", "packages/app", "packages/leaf", "packages/mid",
		"pnpm-lock.yaml", "yarn.lock"}
	if diff := cmp.Diff(want, WatchPaths(g)); diff != "" {
		t.Errorf("WatchPaths (-want +got):\n%s", diff)
	}
	got := planFiles(g, []watch.Change{{Path: "packages/mid/package.json"}, {Path: "packages/leaf/package.json"}, {Path: "packages/other/package.json"}})
	if diff := cmp.Diff([]string{"packages/mid/package.json", "packages/leaf/package.json"}, got); diff != "" {
		t.Errorf("planFiles (-want +got):\n%s", diff)
	}
}
