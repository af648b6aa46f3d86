package run

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/suggest"
	"github.com/vxrun/vx/workspace"
)

// UnusedEntries returns a warning for each task entry of cfg that no task
// of ws can use, at the place the entry was written: "biuld" when no
// project has a script of that name, "wbe#build" when no project is named
// wbe, "web#biuld" when web has no such script. Such an entry is almost
// always a typo, and the task it was meant for then runs with no
// dependsOn and no cache; each warning says the closest name, as the
// command line does. An entry another one depends on is used (a transit
// task, which has no script). Turbo refuses the run; vx warns and runs, since a
// script may be added later (a branch, a generator).
func UnusedEntries(ws *workspace.Workspace, cfg *config.Config) []*diag.Error {
	if cfg == nil || len(cfg.Tasks) == 0 {
		return nil
	}
	scripts := map[string]bool{}
	var allScripts, names []string
	for _, p := range ws.Projects {
		for s := range p.Scripts {
			if !scripts[s] {
				scripts[s] = true
				allScripts = append(allScripts, s)
			}
		}
		names = append(names, p.Name)
	}
	sort.Strings(allScripts)
	names = append(names, RootID)
	// A task some entry depends on is used, scripts or not (turbo's
	// transit tasks: "topo" with dependsOn ["^topo"]).
	depended := map[string]bool{}
	for _, t := range cfg.Tasks {
		for _, d := range t.DependsOn {
			d = strings.TrimPrefix(d, "^")
			depended[d] = true
			if _, task, ok := strings.Cut(d, "#"); ok {
				depended[task] = true
			}
		}
	}
	keys := make([]string, 0, len(cfg.Tasks))
	for k := range cfg.Tasks {
		if name, task, ok := strings.Cut(k, "#"); depended[k] || ok && depended[task] && projectNamed(ws, name) != nil {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []*diag.Error
	for _, key := range keys {
		var msg, best string
		var ok bool
		if name, task, exact := strings.Cut(key, "#"); !exact {
			if scripts[key] {
				continue
			}
			msg = fmt.Sprintf("no project has a script %s", quote.Q(key))
			best, ok = suggest.Closest(key, allScripts)
		} else {
			proj := projectNamed(ws, name)
			switch {
			case proj == nil:
				msg = fmt.Sprintf("no project is named %s", quote.Q(name))
				if b, found := suggest.Closest(name, names); found {
					best, ok = b+"#"+task, true
				}
			case hasScript(proj, task):
				continue
			default:
				var own []string
				for s := range proj.Scripts {
					own = append(own, s)
				}
				sort.Strings(own)
				msg = fmt.Sprintf("project %s has no script %s", quote.Q(proj.Name), quote.Q(task))
				if b, found := suggest.Closest(task, own); found {
					best, ok = name+"#"+b, true
				}
			}
		}
		o := cfg.Origins[key]
		if o.Path == "" {
			o.Path = cfg.Path
		}
		e := &diag.Error{Path: o.Path, Line: o.Line, Col: o.Col,
			Msg: fmt.Sprintf("tasks[%s] applies to no task: %s", quote.Q(key), msg)}
		if ok {
			e.Suggest = fmt.Sprintf("did you mean %s?", quote.Q(best))
		} else {
			e.Suggest = "vx ls lists the projects and their scripts"
		}
		out = append(out, e)
	}
	return out
}

// projectNamed is the project a config key's name part names ("//" is the
// root), or nil; of projects sharing a name, the first.
func projectNamed(ws *workspace.Workspace, name string) *workspace.Project {
	for _, p := range ws.Projects {
		if p.Name == name || name == RootID && p.IsRoot {
			return p
		}
	}
	return nil
}

func hasScript(p *workspace.Project, task string) bool {
	_, ok := p.Scripts[task]
	return ok
}
