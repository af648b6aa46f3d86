package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/testdir"
)

// TestCacheKeyCoversChildEnv runs a cached task that prints the environment
// it really got (a child of the shell vx starts), with every essential set
// in vx's environment and a few declared variables, and checks each
// variable against the key --dry-run=json shows: it is in the key (the
// script's text as the key's arguments), or docs/cache.md lists it as a
// machine's own value the key leaves out.
func TestCacheKeyCoversChildEnv(t *testing.T) {
	t.Parallel()
	root := testdir.New(t)
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name": "root", "private": true, "workspaces": ["app"]}`)
	write("vx.json", `{"tasks": {"show": {"outputs": [], "env": {"passThrough": ["NODE_ENV", "PUBLIC_*"], "define": {"MODE": "x"}}}}}`)
	write("app/package.json", `{"name": "app", "version": "1.0.0", "scripts": {"show": "vxtest env"}}`)

	env := []string{"PATH=" + os.Getenv("PATH"), "VX_CACHE_DIR=" + filepath.Join(testdir.New(t), "store"),
		"NODE_ENV=production", "PUBLIC_URL=https://x", "UNDECLARED=1"}
	for _, name := range exec.EssentialEnv {
		if exec.EnvNameKey(name, "") != "PATH" {
			env = append(env, name+"=v-"+name)
		}
	}
	if runtime.GOOS == "windows" {
		// The system's own, or programs will not start.
		for _, name := range []string{"SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR"} {
			if v, ok := os.LookupEnv(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	vx := func(args ...string) string {
		t.Helper()
		cmd := osexec.Command("vx", args...)
		cmd.Dir, cmd.Env = filepath.Join(root, "app"), env
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("vx %v: %v\n%s", args, err, e.String())
		}
		return o.String()
	}
	var plan struct {
		Tasks []struct {
			Command string
			Cache   struct{ Env map[string]string }
		}
	}
	if err := json.Unmarshal([]byte(vx("run", "show", "--dry-run=json")), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) != 1 {
		t.Fatalf("%d tasks", len(plan.Tasks))
	}
	inKey := plan.Tasks[0].Cache.Env
	machine := machineVarsDocumented(t)
	seen := strings.TrimSpace(vx("run", "show"))
	if !strings.Contains(seen, "npm_lifecycle_event=show") {
		t.Fatalf("the task printed no environment:\n%s", seen)
	}
	for _, line := range strings.Split(seen, "\n") {
		name, v, _ := strings.Cut(strings.TrimRight(line, "\r"), "=")
		k := exec.EnvNameKey(name, "")
		switch {
		case name == "UNDECLARED":
			t.Errorf("the task saw an undeclared variable")
		case inKey[k] != "":
		case name == "npm_lifecycle_script":
			if v != plan.Tasks[0].Command {
				t.Errorf("npm_lifecycle_script is %q, not the script the key holds (%q)", v, plan.Tasks[0].Command)
			}
		case machine[k]:
		case runtime.GOOS != "windows" && name == "PWD":
			t.Errorf("PWD is not in the key")
		case name == "SHLVL", name == "_", name == "OLDPWD":
			// set by the shell (bash as sh) for the program it starts
		case runtime.GOOS == "windows" && (name == "" || name == "PROMPT" || strings.HasPrefix(name, "WINE")):
			// set by cmd.exe for the program it starts (=C:=C:\dir, each
			// drive's directory, printed with an empty name here; PROMPT),
			// or by Wine for every program (WINELOADER, WINEDLLDIR0, ...)
		default:
			t.Errorf("the task saw %s, which is neither in its key nor a machine's own value in docs/cache.md", name)
		}
	}
	for k := range inKey {
		if machine[k] {
			t.Errorf("%s is in the key, and docs/cache.md says it is not", k)
		}
	}
}

// machineVarsDocumented returns the variables docs/cache.md's table of the
// environment says are not in the key, by key.
func machineVarsDocumented(t *testing.T) map[string]bool {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "cache.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "| what the task sees | in its key |")
	if !ok {
		t.Fatal("docs/cache.md has no table of the environment")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	out := map[string]bool{}
	name := regexp.MustCompile("`([A-Za-z0-9_()]+)`")
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, "|")
		if len(cells) < 4 || !strings.Contains(cells[2], "not in the key") {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			out[exec.EnvNameKey(m[1], "")] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("docs/cache.md lists no variable out of the key")
	}
	return out
}
