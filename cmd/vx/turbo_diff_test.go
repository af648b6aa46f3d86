package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testtool"
)

// TestTurboDifferential runs turbo (from npm: npm i -g turbo) and vx on the
// same workspaces, testdata/turbo/*, which have a turbo.json and no vx
// config: each line of a workspace's runs.txt is a run (tasks and flags,
// the same for both), planned by `turbo run ... --dry=json` and `vx run
// ... --dry-run=json`. Both must plan the same tasks, and each task must
// come after the same tasks (the transitive closure of the dependencies,
// turbo's no-op tasks for scripts a project lacks looked through): a
// compatible order. The root's tasks are "//#task" in both. And each task
// both cache must have the same input files (inputs, $TURBO_DEFAULT$,
// $TURBO_ROOT$, negations, globalDependencies), as paths from the root,
// but for the root's package.json and lockfiles, which each tool counts in
// its own way. And each task must see the same of a few variables set for
// the test (env, passThroughEnv, the global keys, patterns, exclusions).
func TestTurboDifferential(t *testing.T) {
	t.Parallel() // each workspace is copied to its own directory
	turbo := testtool.Need(t, "npm i -g turbo; .ci/run does: the differential tests run it", "turbo")
	dirs, err := filepath.Glob(filepath.Join("testdata", "turbo", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no workspaces in testdata/turbo: %v", err)
	}
	for _, src := range dirs {
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			if err := os.CopyFS(ws, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			runs, err := os.ReadFile(filepath.Join(ws, "runs.txt"))
			if err != nil {
				t.Fatal(err)
			}
			var root struct{ Name string }
			data, _ := os.ReadFile(filepath.Join(ws, "package.json"))
			if err := json.Unmarshal(data, &root); err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			env := append(os.Environ(), "HOME="+home, "VX_CACHE_DIR="+filepath.Join(home, "vx-cache"),
				"NODE_ENV=production", "NEXT_PUBLIC_API=1", "NEXT_PUBLIC_SECRET=2", "CI_BUILD_ID=3", "ESLINT_CONFIG=4", "AWS_PROFILE=5", "UNDECLARED=6", "VITE_MODE=7", "XDG_CONFIG_HOME="+home, "TURBO_TELEMETRY_DISABLED=1",
				"DO_NOT_TRACK=1", "TURBO_NO_UPDATE_NOTIFIER=1", "TURBO_PRINT_VERSION_DISABLED=1", "NO_COLOR=1")
			for _, line := range strings.Split(strings.TrimSpace(string(runs)), "\n") {
				args := strings.Fields(line)
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					want, wantInputs, wantEnv := turboPlan(t, turbo, ws, env, args)
					got, gotInputs, gotEnv := vxPlan(t, ws, env, args, root.Name)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("each task and the tasks it comes after: turbo (-) and vx (+):\n%s", diff)
					}
					if diff := cmp.Diff(wantInputs, gotInputs); diff != "" {
						t.Errorf("each cached task's input files: turbo (-) and vx (+):\n%s", diff)
					}
					if diff := cmp.Diff(wantEnv, gotEnv); diff != "" {
						t.Errorf("the probe variables each task sees: turbo (-) and vx (+):\n%s", diff)
					}
				})
			}
		})
	}
}

// turboPlan is turbo's plan: each task that runs a script, with every task
// it comes after; and each cached task's input files.
func turboPlan(t *testing.T, turbo, ws string, env, args []string) (map[string][]string, map[string][]string, map[string][]string) {
	t.Helper()
	cmd := osexec.Command(turbo, append(append([]string{"run"}, args...), "--dry=json")...)
	cmd.Dir, cmd.Env = ws, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("turbo run %s --dry=json: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	type turboEnv struct {
		Configured  []string `json:"configured"`
		Inferred    []string `json:"inferred"` // framework inference
		Passthrough []string `json:"passthrough"`
	}
	var plan struct {
		Global struct {
			Files map[string]string `json:"files"`
			Env   turboEnv          `json:"environmentVariables"`
		} `json:"globalCacheInputs"`
		Tasks []struct {
			TaskID       string            `json:"taskId"`
			Command      string            `json:"command"`
			Dependencies []string          `json:"dependencies"`
			Directory    string            `json:"directory"`
			Inputs       map[string]string `json:"inputs"`
			Env          turboEnv          `json:"environmentVariables"`
			Cache        struct {
				Status string `json:"status"`
			} `json:"cache"`
			ResolvedTaskDefinition struct {
				Cache bool `json:"cache"`
			} `json:"resolvedTaskDefinition"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(out, &plan); err != nil {
		t.Fatalf("turbo's plan: %v\n%s", err, out)
	}
	deps := map[string][]string{}
	runs := map[string]bool{}
	own := map[string][]string{}
	for _, task := range plan.Tasks {
		deps[task.TaskID] = task.Dependencies
		runs[task.TaskID] = task.Command != "<NONEXISTENT>"
		for f := range task.Inputs {
			own[task.TaskID] = append(own[task.TaskID], path.Join(task.Directory, f))
		}
	}
	inputs := map[string][]string{}
	seesEnv := map[string][]string{}
	for _, task := range plan.Tasks {
		if !runs[task.TaskID] {
			continue
		}
		var names []string
		for _, list := range [][]string{plan.Global.Env.Configured, plan.Global.Env.Passthrough, task.Env.Configured, task.Env.Inferred, task.Env.Passthrough} {
			for _, kv := range list {
				name, _, _ := strings.Cut(kv, "=")
				names = append(names, name)
			}
		}
		seesEnv[task.TaskID] = probed(names)
		if !task.ResolvedTaskDefinition.Cache {
			continue
		}
		files := slices.Clone(own[task.TaskID])
		for f := range plan.Global.Files {
			files = append(files, f)
		}
		// A dependency without the script is turbo's no-op task, whose
		// files are in the hash through it; vx puts them in the key itself.
		seen := map[string]bool{}
		var noop func(string)
		noop = func(id string) {
			for _, d := range deps[id] {
				if !runs[d] && !seen[d] {
					seen[d] = true
					files = append(files, own[d]...)
					noop(d)
				}
			}
		}
		noop(task.TaskID)
		inputs[task.TaskID] = comparable(files)
	}
	return closures(deps, runs), inputs, seesEnv
}

// probed sorts the variables of names the test sets.
func probed(names []string) []string {
	out := []string{}
	for _, n := range names {
		switch n {
		case "NODE_ENV", "NEXT_PUBLIC_API", "NEXT_PUBLIC_SECRET", "CI_BUILD_ID", "ESLINT_CONFIG", "AWS_PROFILE", "UNDECLARED", "VITE_MODE":
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// comparable sorts files, leaving out those each tool counts its own way.
func comparable(files []string) []string {
	out := []string{}
	for _, f := range files {
		switch f {
		case "package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "turbo.json", "turbo.jsonc":
			continue
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// vxPlan is vx's plan in the same terms, the root's tasks named "//#task".
func vxPlan(t *testing.T, ws string, env, args []string, rootName string) (map[string][]string, map[string][]string, map[string][]string) {
	t.Helper()
	cmd := osexec.Command("vx", append(append([]string{"run"}, args...), "--dry-run=json")...)
	cmd.Dir, cmd.Env = ws, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("vx run %s --dry-run=json: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var plan struct {
		Tasks []struct {
			ID        string   `json:"id"`
			DependsOn []string `json:"dependsOn"`
			Env       []string `json:"env"`
			Cache     *struct {
				Inputs []struct {
					Path string `json:"path"`
				} `json:"inputs"`
			} `json:"cache"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal(out, &plan); err != nil {
		t.Fatalf("vx's plan: %v\n%s", err, out)
	}
	rename := func(id string) string {
		if rest, ok := strings.CutPrefix(id, rootName+"#"); ok {
			return "//#" + rest
		}
		return id
	}
	deps := map[string][]string{}
	runs := map[string]bool{}
	inputs := map[string][]string{}
	seesEnv := map[string][]string{}
	for _, task := range plan.Tasks {
		id := rename(task.ID)
		runs[id] = true
		seesEnv[id] = probed(task.Env)
		for _, d := range task.DependsOn {
			deps[id] = append(deps[id], rename(d))
		}
		if task.Cache != nil {
			var files []string
			for _, f := range task.Cache.Inputs {
				files = append(files, f.Path)
			}
			inputs[id] = comparable(files)
		}
	}
	return closures(deps, runs), inputs, seesEnv
}

// closures returns, for each task that runs, the tasks that run and that
// it comes after, directly or through others (those that run nothing
// included), sorted.
func closures(deps map[string][]string, runs map[string]bool) map[string][]string {
	out := map[string][]string{}
	for id := range runs {
		if !runs[id] {
			continue
		}
		seen := map[string]bool{}
		var walk func(string)
		walk = func(n string) {
			for _, d := range deps[n] {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(id)
		after := []string{}
		for d := range seen {
			if runs[d] {
				after = append(after, d)
			}
		}
		slices.Sort(after)
		out[id] = after
	}
	return out
}
