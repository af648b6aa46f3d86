package run

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/workspace"
)

// TestKeyEnvAgreesWithTaskEnv builds the environment of tasks of random
// declarations, in random parent environments, under both naming rules,
// and checks that everything the task sees is decided: each variable of
// TaskEnv's result is in the key (its value, or its path from the root), or
// it is a machine's own value the key leaves out on purpose; a variable
// that reaches a task without a rule fails the test.
func TestKeyEnvAgreesWithTaskEnv(t *testing.T) {
	// Nothing is read from disk; a root without a drive letter keeps the
	// Linux half meaningful on Windows too (":" separates a Linux list).
	root := filepath.FromSlash("/home/dev/ws")
	for i := range 400 {
		goos := []string{"linux", "windows"}[i%2]
		r := rand.New(rand.NewPCG(uint64(i), 21))
		ws, n, parent := randomTask(r, root, goos)
		t.Run(fmt.Sprintf("%d-%s", i, goos), func(t *testing.T) {
			env, key, _ := taskEnviron(ws, n, parent, goos)
			if diff := cmp.Diff(TaskEnv(ws, n, parent, goos), env); diff != "" {
				t.Fatalf("TaskEnv and taskEnviron disagree (-TaskEnv +taskEnviron):\n%s", diff)
			}
			got := map[string]string{}
			for _, p := range key {
				if _, dup := got[p.Name]; dup {
					t.Errorf("%s twice in the key", p.Name)
				}
				got[p.Name] = p.Value
			}
			want := wantKeyEnv(t, ws, n, parent, env, goos)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("key env (-want +got):\n%s\nparent %q\ndeclared %+v", diff, parent, n.Config)
			}
		})
	}
}

// TestStepsShareTheKeysEnvironment: the dry run's steps take each task's
// environment from the one the cache made for its key (made once), when
// the cache is the run's: same workspace, parent environment and GOOS;
// for another run they make their own, which is TaskEnv's.
func TestStepsShareTheKeysEnvironment(t *testing.T) {
	root := filepath.FromSlash("/home/dev/ws")
	for i := range 40 {
		goos := []string{"linux", "windows"}[i%2]
		r := rand.New(rand.NewPCG(uint64(i), 28))
		ws, n, parent := randomTask(r, root, goos)
		t.Run(fmt.Sprintf("%d-%s", i, goos), func(t *testing.T) {
			g := &Graph{Nodes: []*Node{n}}
			tc := &TaskCache{WS: ws, Parent: parent, GOOS: goos}
			keyEnv := tc.environ(n).env
			got := Steps(ws, g, slices.Clone(parent), goos, nil, tc)[0].Env
			if diff := cmp.Diff(TaskEnv(ws, n, parent, goos), got); diff != "" {
				t.Fatalf("Steps' environment is not TaskEnv's (-TaskEnv +Steps):\n%s", diff)
			}
			if len(got) > 0 && &got[0] != &keyEnv[0] {
				t.Errorf("Steps made the environment again instead of taking the key's")
			}
			other := append(slices.Clone(parent), "VX_OTHER_RUN=1")
			got = Steps(ws, g, other, goos, nil, tc)[0].Env
			if diff := cmp.Diff(TaskEnv(ws, n, other, goos), got); diff != "" {
				t.Errorf("Steps of another run's environment (-TaskEnv +Steps):\n%s", diff)
			}
			for _, g := range []string{"linux", "windows"} {
				if g == goos {
					continue
				}
				if diff := cmp.Diff(TaskEnv(ws, n, parent, g), Steps(ws, &Graph{Nodes: []*Node{n}}, parent, g, nil, tc)[0].Env); diff != "" {
					t.Errorf("Steps under another GOOS (-TaskEnv +Steps):\n%s", diff)
				}
			}
		})
	}
}

// wantKeyEnv is what the key must hold for env, the environment of n: the
// rules of docs/cache.md, written out again.
func wantKeyEnv(t *testing.T, ws *workspace.Workspace, n *Node, parent, env []string, goos string) map[string]string {
	declared := map[string]string{}
	for _, name := range exec.ExpandPassThrough(n.Config.PassThrough, parent, goos) {
		if strings.HasPrefix(exec.EnvNameKey(name, goos), "VX_REMOTE_") {
			continue
		}
		if v, ok := exec.LookupEnv(parent, name, goos); ok {
			declared[exec.EnvNameKey(name, goos)] = v
		}
	}
	for name, v := range n.Config.Define {
		declared[exec.EnvNameKey(name, goos)] = v
	}
	_, color := exec.LookupEnv(env, "FORCE_COLOR", goos)
	rel := func(p string) string {
		r, err := filepath.Rel(ws.Root, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	want := map[string]string{}
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		k := exec.EnvNameKey(name, goos)
		var canon string // the name as keyRules spells it
		for rn := range keyRules {
			if exec.EnvNameKey(rn, goos) == k {
				canon = rn
			}
		}
		taskVar := slices.Contains(taskVarNames, canon)
		if dv, ok := declared[k]; ok && !taskVar {
			want[k] = dv
			continue
		}
		switch canon {
		case "":
			t.Errorf("%s reaches the task, and keyRules has no decision for it", name)
		case "CI", "NODE_OPTIONS", "LANG", "LC_ALL", "LC_CTYPE", "FORCE_COLOR", "NO_COLOR", "PROCESSOR_ARCHITECTURE",
			"VX_RUN_TASK", "npm_lifecycle_event", "npm_package_name", "npm_package_version", "npm_config_user_agent":
			want[k] = v
		case "TERM", "COLORTERM":
			if color {
				want[k] = v
			}
		case "npm_lifecycle_script":
			if v != n.Script {
				t.Errorf("npm_lifecycle_script is %q, not the script the key holds", v)
			}
		case "VX_RUN_WORKSPACE", "npm_package_json", "PWD", "INIT_CWD":
			want[k] = rel(v)
		case "VX_RUN_CHAIN":
			sep := listSeparator(goos)
			parts := strings.Split(v, sep)
			for i, p := range parts {
				parts[i] = rel(p)
			}
			want[k] = strings.Join(parts, sep)
		default:
			if !slices.Contains(machineVars, canon) {
				t.Errorf("%s is left out of the key but not listed as a machine's own value", name)
			}
		}
	}
	return want
}

// machineVars are the variables a task sees that its key leaves out, as
// docs/cache.md lists them.
var machineVars = []string{"PATH", "HOME", "SHELL", "USER", "LOGNAME", "TMPDIR", "TEMP", "TMP",
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)",
	"COMSPEC", "PATHEXT", "SYSTEMDRIVE", "WINDIR", "USERPROFILE", "HOMEDRIVE", "HOMEPATH",
	"NUMBER_OF_PROCESSORS", "npm_execpath"}

// randomTask returns a workspace at root, a task of it with random
// declarations and a random environment for vx.
func randomTask(r *rand.Rand, root, goos string) (*workspace.Workspace, *Node, []string) {
	spell := func(name string) string { // Windows: any case will do
		if goos != "windows" || r.IntN(2) == 0 {
			return name
		}
		b := []byte(name)
		for i := range b {
			if r.IntN(2) == 0 {
				b[i] = strings.ToLower(string(b[i]))[0]
			}
		}
		return string(b)
	}
	values := []string{"", "1", "true", "C.UTF-8", "--max-old-space-size=4096", "xterm-256color", "truecolor", "/opt/x", "a=b"}
	names := append(slices.Clone(exec.EssentialEnv), taskVarNames...)
	names = append(names, "NODE_ENV", "API_TOKEN", "NEXT_PUBLIC_URL", "VX_REMOTE_HEADER", "OTHER")
	var parent []string
	for _, name := range names {
		if r.IntN(3) > 0 {
			v := values[r.IntN(len(values))]
			if name == exec.ChainEnv || name == exec.WorkspaceEnv {
				v = filepath.Join(filepath.Dir(root), "outer")
			}
			parent = append(parent, spell(name)+"="+v)
		}
	}
	var cfg config.Task
	for _, name := range []string{"NODE_ENV", "API_TOKEN", "NEXT_PUBLIC_*", "VX_*", "HOME", "PATH", "CI", "INIT_CWD", "npm_package_name", "MISSING"} {
		if r.IntN(4) == 0 {
			cfg.PassThrough = append(cfg.PassThrough, spell(name))
		}
	}
	for _, name := range []string{"MODE", "PATH", "TERM", "LANG", "PWD", "npm_lifecycle_event", "HOME"} {
		if r.IntN(5) == 0 {
			if cfg.Define == nil {
				cfg.Define = map[string]string{}
			}
			cfg.Define[spell(name)] = values[r.IntN(len(values))]
		}
	}
	proj := &workspace.Project{Name: "web", RelDir: "packages/web", Scripts: map[string]string{"build": "tsc"}}
	switch r.IntN(3) {
	case 0:
		proj.Unnamed, proj.Name = true, proj.RelDir
	case 1:
		proj.Version = "1.2.3"
	}
	proj.Dir = filepath.Join(root, filepath.FromSlash(proj.RelDir))
	proj.Manifest = filepath.Join(proj.Dir, "package.json")
	start := []string{root, proj.Dir, filepath.Join(root, "packages"), filepath.Dir(root)}[r.IntN(4)]
	ws := &workspace.Workspace{Root: root, StartDir: start, Projects: []*workspace.Project{proj},
		PackageManager: workspace.PackageManager{Name: []string{"npm", "pnpm"}[r.IntN(2)], Version: "9.1.0"}}
	n := &Node{ID: "web#build", Project: proj, Task: "build", Script: proj.Scripts["build"], Config: cfg}
	return ws, n, parent
}

// TestEveryEssentialHasAKeyRule: a name added to exec.EssentialEnv, or a
// variable added to the task variables, must come with its decision.
func TestEveryEssentialHasAKeyRule(t *testing.T) {
	for _, name := range exec.EssentialEnv {
		if _, _, ok := keyRuleOf(name, "linux"); !ok {
			t.Errorf("essential %s has no key rule", name)
		}
	}
	all := exec.TaskEnviron(exec.EnvOptions{GOOS: "linux"}, exec.TaskVars{Workspace: "/w", ID: "a#b", Chain: "/w",
		Event: "b", Script: "s", PackageName: "a", PackageVersion: "1", PackageJSON: "/w/package.json",
		Dir: "/w", InitCwd: "/w", UserAgent: "npm/1", ExecPath: "/npm"})
	if len(all) != len(taskVarNames) {
		t.Errorf("TaskEnviron sets %d task variables, taskVarNames has %d: %q", len(all), len(taskVarNames), all)
	}
	for _, kv := range all {
		name, _, _ := strings.Cut(kv, "=")
		if _, tv, ok := keyRuleOf(name, "linux"); !ok || !tv {
			t.Errorf("task variable %s has no key rule, or is not in taskVarNames", name)
		}
	}
}

// TestKeyRulesDocumented: docs/cache.md's table of the environment says
// for each variable what keyRules does.
func TestKeyRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cache.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "| what the task sees | in its key |")
	if !ok {
		t.Fatal(`docs/cache.md has no table headed "| what the task sees | in its key |"`)
	}
	table, _, _ = strings.Cut(table, "\n\n")
	documented := map[string]keyRule{}
	name := regexp.MustCompile("`([A-Za-z0-9_()]+)`")
	for _, row := range strings.Split(table, "\n")[2:] {
		cells := strings.Split(row, "|")
		if len(cells) < 4 {
			continue
		}
		var rule keyRule
		switch how := cells[2]; {
		case strings.Contains(how, "as the script"):
			rule = keyScript
		case strings.Contains(how, "not in the key"):
			rule = keyMachine
		case strings.Contains(how, "with `FORCE_COLOR`"):
			rule = keyWithColor
		case strings.Contains(how, "each path from the root"):
			rule = keyRootRelList
		case strings.Contains(how, "from the root"):
			rule = keyRootRel
		case strings.Contains(how, "its value"):
			rule = keyValue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			documented[m[1]] = rule
		}
	}
	for n, r := range keyRules {
		if d, ok := documented[n]; !ok {
			t.Errorf("docs/cache.md does not list %s", n)
		} else if d != r {
			t.Errorf("docs/cache.md says rule %d for %s, keyRules %d", d, n, r)
		}
	}
}

// TestTaskEnvironStartDir: where vx was started changes nothing a task
// sees, nor its key: INIT_CWD is the project's directory, as its package
// manager run in the project sets it, so a run from a project's directory
// hits what a run at the root stored, and the other way round. (What the
// task sees is all the key must cover: the same env cannot be a wrong hit.)
func TestTaskEnvironStartDir(t *testing.T) {
	root := filepath.FromSlash("/home/dev/ws")
	for _, goos := range []string{"linux", "windows"} {
		r := rand.New(rand.NewPCG(7, 28))
		ws, n, parent := randomTask(r, root, goos)
		var firstEnv []string
		var firstKey any
		for i, start := range []string{root, n.Project.Dir, filepath.Join(n.Project.Dir, "src"), filepath.Dir(root)} {
			ws.StartDir = start
			env, key, _ := taskEnviron(ws, n, parent, goos)
			if v, _ := exec.LookupEnv(env, "INIT_CWD", goos); v != n.Project.Dir {
				t.Errorf("%s, started in %s: INIT_CWD=%q, want the project's directory %q", goos, start, v, n.Project.Dir)
			}
			if i == 0 {
				firstEnv, firstKey = env, key
				continue
			}
			if diff := cmp.Diff(firstEnv, env); diff != "" {
				t.Errorf("%s: started in %s, the task sees another env than started at the root (-root +here):\n%s", goos, start, diff)
			}
			if diff := cmp.Diff(firstKey, any(key)); diff != "" {
				t.Errorf("%s: started in %s, the task's key differs from the root's (-root +here):\n%s", goos, start, diff)
			}
		}
	}
}
