package run

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/workspace"
)

// testWorkspace builds a workspace from "name:dep1,dep2:script1,script2"
// specs; the first is the root.
func testWorkspace(t testing.TB, specs ...string) *workspace.Workspace {
	t.Helper()
	root := filepath.FromSlash("/ws")
	ws := &workspace.Workspace{Root: root}
	deps := map[*workspace.Project][]string{}
	for i, s := range specs {
		parts := strings.Split(s, ":")
		p := &workspace.Project{Name: parts[0], Scripts: map[string]string{}, IsRoot: i == 0}
		if i == 0 {
			p.Dir, p.RelDir = root, "."
		} else {
			p.RelDir = "packages/" + parts[0]
			p.Dir = filepath.Join(root, "packages", parts[0])
		}
		if len(parts) > 1 && parts[1] != "" {
			deps[p] = strings.Split(parts[1], ",")
		}
		if len(parts) > 2 && parts[2] != "" {
			for _, sc := range strings.Split(parts[2], ",") {
				p.Scripts[sc] = "echo " + p.Name + " " + sc
			}
		}
		ws.Projects = append(ws.Projects, p)
	}
	for p, names := range deps {
		for _, name := range names {
			if d := ws.Project(name); d != nil {
				p.Deps = append(p.Deps, d)
			}
		}
	}
	ws.Current = ws.Projects[0]
	return ws
}

func mustConfig(t testing.TB, src string) *config.Config {
	t.Helper()
	cfg, err := config.Parse("vx.json", []byte(src))
	if err != nil {
		t.Fatalf("config.Parse: %v", err)
	}
	return cfg
}

// planIDs renders a graph as "id<-dep,dep" in plan order.
func planIDs(g *Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		s := n.ID
		if len(n.Deps) > 0 {
			var ds []string
			for _, d := range n.Deps {
				ds = append(ds, d.ID)
			}
			s += "<-" + strings.Join(ds, ",")
		}
		out = append(out, s)
	}
	return out
}

func TestPlan(t *testing.T) {
	ws := testWorkspace(t,
		"root::build,lint",
		"a::build,test,codegen",
		"b:a:build,test",
		"c:b,a:build",
		"d:zzz-external:test",
	)
	tests := []struct {
		name    string
		config  string
		current string // project the run starts in; "" = root
		sel     Selection
		want    []string
		wantErr string
	}{
		{
			name: "root selects every project but the root",
			sel:  Selection{Tasks: []string{"build"}},
			want: []string{"a#build", "b#build", "c#build"},
		},
		{
			name:   "caret deps order dependencies first",
			config: `{"tasks": {"build": {"dependsOn": ["^build"]}}}`,
			sel:    Selection{Tasks: []string{"build"}},
			want:   []string{"a#build", "b#build<-a#build", "c#build<-a#build,b#build"},
		},
		{
			name:    "from a project: its task and the closure",
			config:  `{"tasks": {"build": {"dependsOn": ["^build", "codegen"]}}}`,
			current: "b",
			sel:     Selection{Tasks: []string{"build"}},
			want:    []string{"a#codegen", "a#build<-a#codegen", "b#build<-a#build"},
		},
		{
			name:    "exact project#task dependency",
			config:  `{"tasks": {"test": {"dependsOn": ["a#codegen"]}}}`,
			current: "d",
			sel:     Selection{Tasks: []string{"test"}},
			want:    []string{"a#codegen", "d#test<-a#codegen"},
		},
		{
			name:    "referenced task without a script is skipped",
			config:  `{"tasks": {"test": {"dependsOn": ["^test", "nosuch", "c#test"]}}}`,
			current: "d",
			sel:     Selection{Tasks: []string{"test"}},
			want:    []string{"d#test"},
		},
		{
			name:   "project#task entry replaces the generic one",
			config: `{"tasks": {"build": {"dependsOn": ["^build"]}, "c#build": {}}}`,
			sel:    Selection{Tasks: []string{"build"}, Filters: []string{"c"}},
			want:   []string{"c#build"},
		},
		{
			name: "filter by glob selects the root too",
			sel:  Selection{Tasks: []string{"build"}, Filters: []string{"r*"}},
			want: []string{"root#build"},
		},
		{
			name: "filter by path",
			sel:  Selection{Tasks: []string{"build"}, Filters: []string{"./packages/b"}, Dir: filepath.FromSlash("/ws")},
			want: []string{"b#build"},
		},
		{
			name: "filter by a glob on paths, relative to the start directory",
			sel:  Selection{Tasks: []string{"test"}, Filters: []string{"../packages/*"}, Dir: filepath.FromSlash("/ws/x")},
			want: []string{"a#test", "b#test", "d#test"},
		},
		{
			name: "several tasks",
			sel:  Selection{Tasks: []string{"test", "build"}, Filters: []string{"a", "b"}},
			want: []string{"a#test", "b#test", "a#build", "b#build"},
		},
		{
			name:    "cycle is printed",
			config:  `{"tasks": {"a#build": {"dependsOn": ["b#build"]}, "b#build": {"dependsOn": ["c#build"]}, "c#build": {"dependsOn": ["a#build"]}}}`,
			current: "a",
			sel:     Selection{Tasks: []string{"build"}},
			wantErr: "dependsOn has a cycle: a#build -> b#build -> c#build -> a#build; remove one of these dependencies in vx.json",
		},
		{
			name:    "self cycle",
			config:  `{"tasks": {"build": {"dependsOn": ["build"]}}}`,
			current: "a",
			sel:     Selection{Tasks: []string{"build"}},
			wantErr: "dependsOn has a cycle: a#build -> a#build; remove one of these dependencies in vx.json",
		},
		{
			name:    "unknown project in dependsOn",
			config:  `{"tasks": {"build": {"dependsOn": ["nope#build"]}}}`,
			current: "a",
			sel:     Selection{Tasks: []string{"build"}},
			wantErr: `task "a#build" depends on "nope#build", but the workspace has no project named "nope"; vx ls lists them (the root is //)`,
		},
		{
			name: "at the root, a script only the root has runs there",
			sel:  Selection{Tasks: []string{"lint"}},
			want: []string{"root#lint"},
		},
		{
			name:    "project#task on the command line, from anywhere",
			config:  `{"tasks": {"build": {"dependsOn": ["^build"]}}}`,
			current: "d",
			sel:     Selection{Tasks: []string{"b#build", "test"}},
			want:    []string{"a#build", "b#build<-a#build", "d#test"},
		},
		{
			name:    "//#task is the root's task",
			current: "a",
			sel:     Selection{Tasks: []string{"//#build"}},
			want:    []string{"root#build"},
		},
		{
			name: "the root's name works too",
			sel:  Selection{Tasks: []string{"root#lint"}},
			want: []string{"root#lint"},
		},
		{
			name:    "project#task naming a missing script",
			sel:     Selection{Tasks: []string{"d#build"}},
			wantErr: `project "d" has no script "build"; its scripts: test`,
		},
		{
			name:    "project#task naming a missing project",
			sel:     Selection{Tasks: []string{"zz#build"}},
			wantErr: `task "zz#build": the workspace has no project named "zz"; vx ls lists them (the root is //)`,
		},
		{
			name:   "//#task with a root dependsOn entry",
			config: `{"tasks": {"//#lint": {"dependsOn": ["a#codegen"]}}}`,
			sel:    Selection{Tasks: []string{"lint"}},
			want:   []string{"a#codegen", "root#lint<-a#codegen"},
		},
		{
			name:    "missing script in the current project",
			current: "d",
			sel:     Selection{Tasks: []string{"build"}},
			wantErr: `project "d" has no script "build"; its scripts: test`,
		},
		{
			name:    "no selected project has the script",
			sel:     Selection{Tasks: []string{"deploy"}},
			wantErr: `none of the 4 selected projects has a script "deploy"`,
		},
		{
			name:    "filter matching nothing",
			sel:     Selection{Tasks: []string{"build"}, Filters: []string{"zz*"}},
			wantErr: `--filter "zz*" matches no project; run vx ls to see the projects`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.config
			if src == "" {
				src = "{}"
			}
			w := &workspace.Workspace{Root: ws.Root, Projects: ws.Projects, Current: ws.Current}
			if tt.current != "" {
				w.Current = w.Project(tt.current)
			}
			g, err := Plan(w, mustConfig(t, src), tt.sel)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Plan() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Plan() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, planIDs(g)); diff != "" {
				t.Errorf("Plan() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// BenchmarkPlan plans `vx run build` at the root of a workspace of 1,000
// projects, each depending on up to three earlier ones, with ^build.
func BenchmarkPlan(b *testing.B) {
	specs := []string{"root::"}
	for i := range 1000 {
		var deps []string
		for _, d := range []int{i - 1, i - 7, i - 31} {
			if d >= 0 {
				deps = append(deps, fmt.Sprintf("p%04d", d))
			}
		}
		specs = append(specs, fmt.Sprintf("p%04d:%s:build", i, strings.Join(deps, ",")))
	}
	ws := testWorkspace(b, specs...)
	cfg := mustConfig(b, `{"tasks": {"build": {"dependsOn": ["^build"]}}}`)
	b.ReportAllocs()
	for b.Loop() {
		g, err := Plan(ws, cfg, Selection{Tasks: []string{"build"}})
		if err != nil || len(g.Nodes) != 1000 {
			b.Fatalf("Plan() = %d nodes, %v", len(g.Nodes), err)
		}
	}
}

// TestPlanThroughProjectWithoutScript: web depends on ui, ui on utils, ui
// has no build: ^build still orders utils before web, as turbo does
// (vercel/turborepo#937), however long the chain of script-less projects.
func TestPlanThroughProjectWithoutScript(t *testing.T) {
	ws := testWorkspace(t,
		"root::",
		"utils::build",
		"ui:utils:",
		"shell:ui:",
		"web:shell,ui:build",
		"loop1:loop2:",
		"loop2:loop1,utils:",
		"app:loop1:build",
	)
	cfg := mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"]}}}`)
	for _, tt := range []struct {
		current string
		want    []string
	}{
		{"web", []string{"utils#build", "web#build<-utils#build"}},
		{"app", []string{"utils#build", "app#build<-utils#build"}},
	} {
		w := &workspace.Workspace{Root: ws.Root, Projects: ws.Projects}
		w.Current = w.Project(tt.current)
		g, err := Plan(w, cfg, Selection{Tasks: []string{"build"}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, planIDs(g)); diff != "" {
			t.Errorf("%s: plan mismatch (-want +got):\n%s", tt.current, diff)
		}
	}
}

// TestPlanSourceDeps: the projects a "^name" entry goes through because
// they lack the script are the task's SourceDeps (their files are in its
// key): transitively, each once through a diamond or a cycle, stopping at
// a project that has the script; the union over several "^" entries; none
// for a task without one.
func TestPlanSourceDeps(t *testing.T) {
	ws := testWorkspace(t,
		"root::",
		"utils::build",
		"ui:utils:gen",
		"shell:ui:",
		"web:shell,ui:build,test",
		"loop1:loop2:",
		"loop2:loop1,utils:",
		"app:loop1,app:build,test",
		"hasbuild:ui:build,gen",
		"top:hasbuild:build,test",
	)
	cfg := mustConfig(t, `{"tasks": {
		"build": {"dependsOn": ["^build", "^gen"]},
		"test": {"dependsOn": ["build", "utils#build"]}
	}}`)
	for _, tt := range []struct {
		current string
		want    map[string][]string // task id: its SourceDeps, by RelDir
	}{
		// ui reached twice (web -> ui, web -> shell -> ui): once; ui has
		// gen, not build: a source of build's key all the same.
		{"web", map[string][]string{"web#build": {"packages/shell", "packages/ui"}}},
		// A cycle of projects without the script, and app depending on
		// itself: each once, never app; utils has build but no gen: its
		// files are in through "^gen" (as turbo's no-op utils#gen).
		{"app", map[string][]string{"app#build": {"packages/loop1", "packages/loop2", "packages/utils"}}},
		// top stops at hasbuild, which has the task: its key covers ui.
		{"top", map[string][]string{"top#build": nil, "hasbuild#build": {"packages/ui"}}},
	} {
		w := &workspace.Workspace{Root: ws.Root, Projects: ws.Projects}
		w.Current = w.Project(tt.current)
		g, err := Plan(w, cfg, Selection{Tasks: []string{"build", "test"}})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]string{}
		for _, n := range g.Nodes {
			var dirs []string
			for _, p := range n.SourceDeps {
				dirs = append(dirs, p.RelDir)
			}
			if _, asked := tt.want[n.ID]; asked || dirs != nil {
				got[n.ID] = dirs
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: SourceDeps (-want +got):\n%s", tt.current, diff)
		}
	}
}

// TestPlanDuplicateNames: two projects may share a name until the plan needs
// the name to pick one, and then the error names both directories.
func TestPlanDuplicateNames(t *testing.T) {
	ws := testWorkspace(t, "root::", "lib::build", "x::build", "app::build")
	dupB := &workspace.Project{Name: "x", RelDir: "other/x", Dir: filepath.FromSlash("/ws/other/x"), Scripts: map[string]string{"build": "b", "test": "t"}}
	ws.Projects = append(ws.Projects, dupB)
	app := ws.Projects[3]
	app.AmbiguousDeps = []string{"x"}
	ws.Projects[2].ID, dupB.ID = "packages/x", "other/x" // as Discover sets them
	cfg := mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"]}}}`)
	// Run at the root without filters, both run, each under its directory.
	g, err := Plan(&workspace.Workspace{Root: ws.Root, Projects: ws.Projects, Current: ws.Projects[0]}, mustConfig(t, "{}"), Selection{Tasks: []string{"build"}})
	if err != nil {
		t.Fatalf("Plan(root, no filters) error = %v; a shared name no one names must not stop the run", err)
	}
	if diff := cmp.Diff([]string{"lib#build", "packages/x#build", "app#build", "other/x#build"}, planIDs(g)); diff != "" {
		t.Errorf("plan mismatch (-want +got):\n%s", diff)
	}
	const both = `projects "packages/x" and "other/x" have the same name "x": give them different names, or select one by its directory (--filter ./packages/x)`
	tests := []struct {
		name    string
		sel     Selection
		current string
		want    []string
		wantErr string
	}{
		{name: "an unrelated project runs", current: "lib", sel: Selection{Tasks: []string{"build"}}, want: []string{"lib#build"}},
		{name: "one of them by its directory", sel: Selection{Tasks: []string{"test"}, Filters: []string{"./other/x"}, Dir: filepath.FromSlash("/ws")}, want: []string{"other/x#test"}},
		{name: "by name", sel: Selection{Tasks: []string{"x#build"}}, wantErr: `task "x#build": workspace: ` + both},
		{name: "a --filter naming it", sel: Selection{Tasks: []string{"build"}, Filters: []string{"x..."}}, wantErr: `--filter "x...": workspace: ` + both},
		{name: "by its directory", sel: Selection{Tasks: []string{"other/x#test"}}, want: []string{"other/x#test"}},
		{name: "a dependency edge by the name", current: "app", sel: Selection{Tasks: []string{"build"}},
			wantErr: `task "app#build" depends on "^build" through "app"'s dependency "x": workspace: ` + both},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &workspace.Workspace{Root: ws.Root, Projects: ws.Projects, Current: ws.Current}
			if tt.current != "" {
				w.Current = w.Project(tt.current)
			}
			g, err := Plan(w, cfg, tt.sel)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Plan() error = %v\nwant %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, planIDs(g)); diff != "" {
				t.Errorf("plan mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlanRootDeps: the workspace projects the root depends on (an eslint
// config its own config imports), and theirs, are SourceDeps of every task
// of the other projects, whatever their dependsOn; never of their own
// tasks' projects. (The root's own tasks, whose default inputs are the
// whole workspace, get none.)
func TestPlanRootDeps(t *testing.T) {
	ws := testWorkspace(t,
		"root:eslint-config:lint",
		"eslint-config:shared:lint",
		"shared::lint",
		"app:lib:lint,build",
		"lib::lint,build",
	)
	cfg := mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"]}, "lint": {}}}`)
	g, err := Plan(ws, cfg, Selection{Tasks: []string{"lint", "build"}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, n := range g.Nodes {
		var dirs []string
		for _, p := range n.SourceDeps {
			dirs = append(dirs, p.RelDir)
		}
		got[n.ID] = dirs
	}
	both := []string{"packages/eslint-config", "packages/shared"}
	want := map[string][]string{
		"eslint-config#lint": {"packages/shared"},
		"shared#lint":        {"packages/eslint-config"},
		"app#lint":           both,
		"app#build":          both,
		"lib#lint":           both,
		"lib#build":          both,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SourceDeps (-want +got):\n%s", diff)
	}
}
