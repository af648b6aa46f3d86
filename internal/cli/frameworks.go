package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/workspace"
)

// frameworkFlag is turbo's --framework-inference, for the commands that
// plan tasks.
var frameworkFlag = flagSpec{name: "framework-inference", kind: stringFlag, arg: "true|false",
	usage: "with a turbo.json: add the variables of each project's framework (NEXT_PUBLIC_* for Next.js, VITE_* for Vite...) to its tasks' passThrough, as turbo does (default true)"}

// inferFrameworks does turbo's framework inference when the configuration
// is a turbo.json's (never for vx's own config): each project whose
// dependencies name a framework ([config.InferTurboFramework]) gets the
// framework's variable patterns in front of the passThrough of each of
// its tasks that has an entry. vx is strict, so they enter the task's key
// and its environment, as in turbo's strict mode. --framework-inference
// false turns it off.
func inferFrameworks(p *Process, a *parsed, ws *workspace.Workspace, cfg *config.Config) error {
	on := true
	if a.set["framework-inference"] {
		v, err := strconv.ParseBool(a.str("framework-inference"))
		if err != nil {
			return usagef("--framework-inference takes true or false, not %q", a.str("framework-inference"))
		}
		on = v
	}
	if !on || cfg == nil || !slices.Contains(config.TurboFileNames, filepath.Base(cfg.Path)) {
		return nil
	}
	lookup := func(name string) (string, bool) { return exec.LookupEnv(p.Environ, name, p.GOOS) }
	for _, pf := range projectFrameworks(ws) {
		tasks := make([]string, 0, len(pf.proj.Scripts))
		for t := range pf.proj.Scripts {
			tasks = append(tasks, t)
		}
		slices.Sort(tasks)
		cfg.AddInferredEnv(pf.proj.Name, pf.proj.IsRoot, tasks, pf.f.Patterns(lookup))
	}
	return nil
}

type projectFramework struct {
	proj *workspace.Project
	f    *config.TurboFramework
}

// projectFrameworks are the projects of ws whose dependencies name a
// framework, with it, in the order of the projects. One package alone
// (no workspaces): its "dependencies", as turbo reads them then; in a
// monorepo, every kind but peers, less the workspace's own packages.
func projectFrameworks(ws *workspace.Workspace) []projectFramework {
	var out []projectFramework
	single := len(ws.Projects) == 1
	for _, proj := range ws.Projects {
		deps := manifestDeps(proj.Manifest, single)
		if len(deps) == 0 {
			continue
		}
		for _, d := range proj.Deps {
			delete(deps, d.Name)
		}
		if f := config.InferTurboFramework(func(dep string) bool { return deps[dep] }); f != nil {
			out = append(out, projectFramework{proj, f})
		}
	}
	return out
}

// manifestDeps are the dependency names of a package.json: its
// "dependencies" alone, or also its "devDependencies" and
// "optionalDependencies"; nil when it cannot be read (Discover read it
// once already, and says what is wrong with it).
func manifestDeps(path string, dependenciesOnly bool) map[string]bool {
	data, err := inputfile.Read(path)
	if err != nil {
		return nil
	}
	var m struct {
		Dependencies         map[string]json.RawMessage `json:"dependencies"`
		DevDependencies      map[string]json.RawMessage `json:"devDependencies"`
		OptionalDependencies map[string]json.RawMessage `json:"optionalDependencies"`
	}
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	out := map[string]bool{}
	kinds := []map[string]json.RawMessage{m.Dependencies}
	if !dependenciesOnly {
		kinds = append(kinds, m.DevDependencies, m.OptionalDependencies)
	}
	for _, k := range kinds {
		for name := range k {
			out[name] = true
		}
	}
	return out
}
