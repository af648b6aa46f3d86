package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/workspace"
)

// TestPrePostAnswers: testdata/prepost holds Hono's ua-blocker (which
// generates a file in prebuild) in miniature, under each package manager
// and setting, with what the package manager itself printed for `run
// build` beside it (answer.txt). vx's plan must print the same.
func TestPrePostAnswers(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "prepost", "*"))
	if err != nil || len(dirs) < 8 {
		t.Fatalf("want at least 8 fixtures, got %d (%v)", len(dirs), err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "answer.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if !strings.HasPrefix(line, "#") {
					want = append(want, line)
				}
			}
			ws, err := workspace.Discover(filepath.Join(dir, "packages", "ua-blocker"))
			if err != nil {
				t.Fatal(err)
			}
			g, err := Plan(ws, &config.Config{}, Selection{Tasks: []string{"build"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Nodes) != 1 {
				t.Fatalf("plan has %d tasks, want 1", len(g.Nodes))
			}
			n := g.Nodes[0]
			var got []string
			for _, script := range []string{n.Pre, n.Script, n.Post} {
				got = append(got, echoes(n.Project, script)...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("vx would print (-%s +vx):\n%s", ws.PackageManager.Name, diff)
			}
		})
	}
}

// echoes is what script prints when its commands are "echo X" or
// "<pm> run <script>" (which runs that script alone), joined by &&.
func echoes(p *workspace.Project, script string) []string {
	var out []string
	for _, cmd := range strings.Split(script, "&&") {
		f := strings.Fields(cmd)
		switch {
		case len(f) == 2 && f[0] == "echo":
			out = append(out, f[1])
		case len(f) == 3 && f[1] == "run":
			out = append(out, echoes(p, p.Scripts[f[2]])...)
		}
	}
	return out
}

func TestPrePost(t *testing.T) {
	yes := true
	scripts := map[string]string{"prebuild": "p", "build": "b", "postbuild": "q", "pretest": "  ", "test": "t", "postlint": "x", "lint": "npm run postlint"}
	tests := []struct {
		pm        workspace.PackageManager
		task      string
		pre, post string
	}{
		{workspace.PackageManager{Name: "npm"}, "build", "p", "q"},
		{workspace.PackageManager{Name: "npm"}, "test", "", ""}, // blank scripts are none
		{workspace.PackageManager{Name: "npm"}, "lint", "", "x"},
		{workspace.PackageManager{Name: "pnpm", Major: 10}, "lint", "", ""}, // named by the script: pnpm skips it
		{workspace.PackageManager{Name: "pnpm", Major: 7}, "build", "", ""},
		{workspace.PackageManager{Name: "pnpm", Major: 7, Settings: workspace.PMSettings{EnablePrePostScripts: &yes}}, "build", "p", "q"},
		{workspace.PackageManager{Name: "yarn", Major: 1}, "build", "p", "q"},
		{workspace.PackageManager{Name: "yarn", Major: 4}, "build", "", ""},
		{workspace.PackageManager{Name: "bun"}, "build", "p", "q"},
	}
	for _, tt := range tests {
		ws := &workspace.Workspace{PackageManager: tt.pm}
		pre, post := prePost(ws, &workspace.Project{Scripts: scripts}, tt.task)
		if pre != tt.pre || post != tt.post {
			t.Errorf("%s %d: prePost(%q) = %q, %q; want %q, %q", tt.pm.Name, tt.pm.Major, tt.task, pre, post, tt.pre, tt.post)
		}
	}
}

// TestCheckPnP: the yarn-pnp fixture (a yarn 4 Plug'n'Play layout; its
// answer.txt says what yarn and vx did on the real install) is refused with
// one line that says what to set.
func TestCheckPnP(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "workspaces", "yarn-pnp")
	ws, err := workspace.Discover(filepath.Join(dir, "packages", "app"))
	if err != nil {
		t.Fatal(err)
	}
	err = CheckPnP(ws)
	if err == nil || !strings.Contains(err.Error(), ".pnp.cjs") || !strings.Contains(err.Error(), "nodeLinker: node-modules") || strings.Contains(err.Error(), "\n") {
		t.Errorf("CheckPnP() = %v, want one line naming .pnp.cjs and nodeLinker: node-modules", err)
	}
	ws, err = workspace.Discover(filepath.Join("..", "..", "testdata", "prepost", "yarn4"))
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPnP(ws); err != nil {
		t.Errorf("CheckPnP(node-modules install) = %v", err)
	}
}

// TestRootOnlyScript: vue's layout in miniature (testdata/workspaces/
// vue-root-test, with pnpm's answers in answer.txt): at the root, a script
// only the nameless root has runs there, as `pnpm run test` does; //#test
// names it from anywhere; in a project without it, it is missing.
func TestRootOnlyScript(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "workspaces", "vue-root-test")
	ws, err := workspace.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Plan(ws, &config.Config{}, Selection{Tasks: []string{"test"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"//#test"}, planIDs(g)); diff != "" {
		t.Errorf("at the root (-want +got):\n%s", diff)
	}
	ws, err = workspace.Discover(filepath.Join(dir, "packages", "shared"))
	if err != nil {
		t.Fatal(err)
	}
	if g, err = Plan(ws, &config.Config{}, Selection{Tasks: []string{"//#test"}}); err != nil || len(g.Nodes) != 1 || !g.Nodes[0].Project.IsRoot {
		t.Errorf("//#test from packages/shared = %v, %v; want the root's test", g, err)
	}
	if _, err := Plan(ws, &config.Config{}, Selection{Tasks: []string{"test"}}); err == nil || !strings.Contains(err.Error(), `has no script "test"`) {
		t.Errorf("test in packages/shared: error = %v, want a missing script", err)
	}
}
