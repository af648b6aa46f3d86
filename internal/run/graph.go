package run

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

// Node is one task of a graph: a package.json script of one project.
type Node struct {
	ID      string // "<project>#<task>"
	Project *workspace.Project
	Task    string      // the script's name
	Script  string      // the script's body
	Config  config.Task // the task's declarations (dependsOn, env)
	Deps    []*Node     // the tasks that finish before this one starts, sorted by ID
	Target  bool        // asked for on the command line (not only a dependency): gets the arguments after --
	// Cacheable: vx.json has an entry for the task that is neither
	// "cache": false nor persistent. A script without an entry is never
	// cached.
	Cacheable bool

	index int // position in Graph.Nodes
}

// Graph is a planned run: every task with its dependencies, in an order
// where each task comes after all of its dependencies (ties broken by ID).
type Graph struct {
	Nodes []*Node
}

// Selection says which tasks a `vx run` asks for.
type Selection struct {
	Tasks   []string // script names, in the order given
	Filters []string // --filter values: a project name, a glob on names, or a ./path
	Dir     string   // the absolute directory vx was started in
}

// Plan selects the tasks and closes them over dependsOn.
//
// Without filters, a run started in a project (or below it) selects that
// project; started at the workspace root it selects every project but the
// root, unless the root is the only project. Filters select projects by
// name, by a glob on names (* and ?), or by directory (./path or ../path,
// relative to Dir: the project there and every project below it); the root
// takes part only when a filter selects it.
//
// Of the selected projects, those without the script are skipped; when no
// selected project has it the plan is an error. dependsOn entries: "^name"
// is task name of every workspace dependency of the project, "name" another
// task of the same project, "project#name" that exact task; a referenced
// task whose project has no such script is skipped. A cycle is an error
// that prints it.
func Plan(ws *workspace.Workspace, cfg *config.Config, sel Selection) (*Graph, error) {
	if len(sel.Tasks) == 0 {
		return nil, errors.New("name a task to run, e.g. vx run build")
	}
	projects, err := selectProjects(ws, sel)
	if err != nil {
		return nil, err
	}
	p := &planner{ws: ws, cfg: cfg, nodes: map[string]*Node{}, state: map[*Node]int{}}
	for _, task := range sel.Tasks {
		found := false
		for _, proj := range projects {
			if _, ok := proj.Scripts[task]; !ok {
				continue
			}
			found = true
			n, err := p.visit(proj, task)
			if err != nil {
				return nil, err
			}
			n.Target = true
		}
		if !found {
			return nil, missingScriptError(projects, task)
		}
	}
	return &Graph{Nodes: p.order}, nil
}

// planner builds the graph depth first, which gives a dependency order and
// finds cycles in one pass.
type planner struct {
	ws    *workspace.Workspace
	cfg   *config.Config
	nodes map[string]*Node
	state map[*Node]int // 1 while on the stack, 2 when done
	stack []*Node
	order []*Node
}

func (p *planner) visit(proj *workspace.Project, task string) (*Node, error) {
	id := proj.Name + "#" + task
	n := p.nodes[id]
	if n == nil {
		n = newNode(p.cfg, proj, task)
		p.nodes[id] = n
	}
	switch p.state[n] {
	case 2:
		return n, nil
	case 1:
		return nil, p.cycle(n)
	}
	p.state[n] = 1
	p.stack = append(p.stack, n)
	deps, err := p.resolveDeps(n)
	if err != nil {
		return nil, err
	}
	for _, d := range deps {
		dn, err := p.visit(d.proj, d.task)
		if err != nil {
			return nil, err
		}
		if dn.Config.Persistent {
			return nil, fmt.Errorf("task %q depends on %q, which is persistent: it does not end by itself, so %q would never start; "+
				"remove the dependency from vx.json, or run both with vx run and let %q wait for what it needs itself", n.ID, dn.ID, n.ID, n.ID)
		}
		n.Deps = append(n.Deps, dn)
	}
	sort.Slice(n.Deps, func(i, j int) bool { return n.Deps[i].ID < n.Deps[j].ID })
	n.Deps = compactNodes(n.Deps)
	p.stack = p.stack[:len(p.stack)-1]
	p.state[n] = 2
	n.index = len(p.order)
	p.order = append(p.order, n)
	return n, nil
}

type taskRef struct {
	proj *workspace.Project
	task string
}

// resolveDeps turns n's dependsOn entries into the tasks that exist,
// sorted by ID so the plan does not depend on declaration order.
func (p *planner) resolveDeps(n *Node) ([]taskRef, error) {
	var refs []taskRef
	add := func(proj *workspace.Project, task string) {
		if _, ok := proj.Scripts[task]; ok {
			refs = append(refs, taskRef{proj, task})
		}
	}
	for _, dep := range n.Config.DependsOn {
		switch {
		case strings.HasPrefix(dep, "^"):
			for _, name := range n.Project.Deps {
				if proj := p.ws.Project(name); proj != nil {
					add(proj, dep[1:])
				}
			}
		case strings.Contains(dep, "#"):
			name, task, _ := strings.Cut(dep, "#")
			proj := p.ws.Project(name)
			if proj == nil {
				return nil, fmt.Errorf("task %q depends on %q, but the workspace has no project named %q", n.ID, dep, name)
			}
			add(proj, task)
		default:
			add(n.Project, dep)
		}
	}
	sort.Slice(refs, func(i, j int) bool {
		return refs[i].proj.Name+"#"+refs[i].task < refs[j].proj.Name+"#"+refs[j].task
	})
	return refs, nil
}

func (p *planner) cycle(n *Node) error {
	start := 0
	for i, s := range p.stack {
		if s == n {
			start = i
		}
	}
	ids := make([]string, 0, len(p.stack)-start+1)
	for _, s := range p.stack[start:] {
		ids = append(ids, quote.Name(s.ID))
	}
	ids = append(ids, quote.Name(n.ID))
	return fmt.Errorf("dependsOn has a cycle: %s; remove one of these dependencies in vx.json", strings.Join(ids, " -> "))
}

func compactNodes(ns []*Node) []*Node {
	out := ns[:0]
	for i, n := range ns {
		if i == 0 || n != ns[i-1] {
			out = append(out, n)
		}
	}
	return out
}

func missingScriptError(projects []*workspace.Project, task string) error {
	if len(projects) == 1 {
		p := projects[0]
		names := make([]string, 0, len(p.Scripts))
		for s := range p.Scripts {
			names = append(names, s)
		}
		sort.Strings(names)
		have := "it has no scripts"
		if len(names) > 0 {
			have = "its scripts: " + strings.Join(names, ", ")
		}
		return fmt.Errorf("project %q has no script %q; %s", p.Name, task, have)
	}
	return fmt.Errorf("none of the %d selected projects has a script %q", len(projects), task)
}

// Task returns the node of one task without its dependencies, for
// commands that look at a single task (vx env). It is an error when the
// project has no such script.
func Task(cfg *config.Config, proj *workspace.Project, task string) (*Node, error) {
	if _, ok := proj.Scripts[task]; !ok {
		return nil, missingScriptError([]*workspace.Project{proj}, task)
	}
	return newNode(cfg, proj, task), nil
}

// newNode is the task node of proj's script task, with its declarations.
func newNode(cfg *config.Config, proj *workspace.Project, task string) *Node {
	n := &Node{ID: proj.Name + "#" + task, Project: proj, Task: task, Script: proj.Scripts[task], Config: cfg.TaskFor(proj.Name, task)}
	n.Cacheable = cfg.HasEntry(proj.Name, task) && !n.Config.NoCache && !n.Config.Persistent
	return n
}
