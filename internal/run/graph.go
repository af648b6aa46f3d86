package run

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/suggest"
	"github.com/vxrun/vx/workspace"
)

// Node is one task of a graph: a package.json script of one project.
type Node struct {
	ID      string // "<project>#<task>"
	Project *workspace.Project
	Task    string // the script's name
	Script  string // the script's body
	// Pre and Post are the bodies of the pre<task> and post<task> scripts
	// that run in the same task, before and after Script, as the
	// workspace's package manager would run them; "" for none.
	Pre, Post string
	Config    config.Task // the task's declarations (dependsOn, env)
	Deps      []*Node     // the tasks that finish before this one starts, sorted by ID
	// SourceDeps are the workspace dependencies that a "^name" entry of
	// dependsOn reached but that have no such script (a source-only
	// package the task reads), transitively through further ones without
	// it, each once, sorted by RelDir: their files are part of the task's
	// key, as turbo's no-op tasks make them part of its hash.
	SourceDeps []*workspace.Project
	Target     bool // asked for on the command line (not only a dependency): gets the arguments after --
	// Cacheable: vx.json has an entry for the task that is neither
	// "cache": false nor persistent. A script without an entry is never
	// cached.
	Cacheable bool
	Why       string // a target chosen by a filter or --affected: why ("changed: src/a.ts", "depends on ui")
	// ConfigFile is the name of the configuration file that declares the
	// task, or the workspace's ("vx.config.ts", "vx.json"): what messages
	// about the task tell the user to edit.
	ConfigFile string

	index int // position in Graph.Nodes
}

// Graph is a planned run: every task with its dependencies, in an order
// where each task comes after all of its dependencies (ties broken by ID).
type Graph struct {
	Nodes []*Node
	// Notes are what the user may want to know about the selection: that
	// the root's own script of the same name was left out, and how to run
	// it. One line each, without "vx:".
	Notes []string
	// Base is, with --affected, the commit compared with, as shown to the
	// user: "main (merge-base 1a2b3c4d5e6f)".
	Base string
	// config are the files the configuration was made from: vx watch
	// watches them and plans again when one changes.
	config *configSources
	// Keyed are the tasks whose cache keys the run needs: Nodes and, after
	// [Graph.Only], the dependencies left out, whose keys are still part
	// of their dependents' keys. nil means Nodes.
	Keyed []*Node
}

// Only leaves in g the tasks asked for on the command line (vx run
// --only): their dependencies' tasks do not run, and a task waits only
// for the tasks left in. Each task's Deps stay as they were, so that its
// cache key is the one a whole run computes (its dependencies' keys
// included): a task whose dependencies changed is a miss, not a hit on
// outputs made from their old state.
func (g *Graph) Only() {
	g.Keyed = g.Nodes
	var kept []*Node
	for _, n := range g.Nodes {
		if n.Target {
			n.index = len(kept)
			kept = append(kept, n)
		}
	}
	g.Nodes = kept
}

// inGraph reports whether n is one of g's tasks.
func (g *Graph) inGraph(n *Node) bool {
	return n.index < len(g.Nodes) && g.Nodes[n.index] == n
}

// KeyedNodes are the tasks whose keys the run needs (see Keyed).
func (g *Graph) KeyedNodes() []*Node {
	if g.Keyed != nil {
		return g.Keyed
	}
	return g.Nodes
}

// Selection says which tasks a `vx run` asks for.
type Selection struct {
	Tasks   []string // script names, in the order given
	Filters []string // --filter values, in pnpm's selector grammar (docs/cli.md)
	Dir     string   // the absolute directory vx was started in
	// Affected keeps only the projects changed since Base, and their
	// dependents (--affected).
	Affected bool
	// Base is the git ref --affected compares with: the merge-base of HEAD
	// and Base. "" = the first of origin/HEAD, main, master, origin/main,
	// origin/master that exists.
	Base string
	// Git runs git for [ref] filters and --affected; nil = no git.
	Git Git
	// GOOS selects the path rules of directory filters ("windows": case
	// does not matter); "" = not Windows.
	GOOS string
	// RealPath resolves symbolic links; nil = filepath.EvalSymlinks.
	RealPath func(string) (string, error)

	// config are the files the configuration was made from (Plan sets
	// them from its config): a change to one since a commit changes every
	// project.
	config *configSources
}

// Plan selects the tasks and closes them over dependsOn.
//
// A task given as "<project>#<task>" is that exact task, whatever the
// selection ("//#<task>" is the root's); the other task names apply to the
// selected projects. Without filters, a run started in a project (or below
// it) selects that project; started at the workspace root it selects every
// project but the root, unless the root is the only project or it is the
// only project that has the script (a root-only "test", as in vue or jest):
// then the root's task runs; when the root and others both have it, the
// others' run and Graph.Notes says how to run the root's. Filters follow
// pnpm's selector grammar (see selectProjects and docs/cli.md); the root
// takes part only when a filter selects it. With Affected, only the
// selected projects that changed since the base, or depend on one that
// did, remain.
//
// Of the selected projects, those without the script are skipped; when no
// selected project has it the plan is an error, unless git changes decided
// the selection ([ref] or Affected): then the plan is empty, as it is when
// the filters leave no project at all. dependsOn entries: "^name"
// is task name of every workspace dependency of the project, "name" another
// task of the same project, "project#name" that exact task. A "^name"
// dependency on a project without the script is satisfied through that
// project's own dependencies, transitively (as turbo does): web -> ui ->
// utils where ui has no build still builds utils before web, and ui's
// files are part of web's build key (Node.SourceDeps). A referenced
// task whose project has no such script is otherwise skipped. A cycle is an
// error that prints it, and so is a plan that would hold two projects of
// the same name (their task ids would collide), or a "^name" dependency
// through a dependency name that two projects share: the error names every
// directory holding the name.
func Plan(ws *workspace.Workspace, cfg *config.Config, sel Selection) (*Graph, error) {
	if len(sel.Tasks) == 0 {
		return nil, errors.New("name a task to run, e.g. vx run build")
	}
	p := &planner{ws: ws, cfg: cfg, nodes: map[string]*Node{}, state: map[*Node]int{}}
	sel.config = newConfigSources(ws.Root, cfg)
	var projects []*workspace.Project
	var picked selection
	var notes []string
	selected := false
	for _, task := range sel.Tasks {
		if proj, t, ok, err := ExactTask(ws, task); err != nil {
			return nil, fmt.Errorf("task %q: %w", task, err)
		} else if ok {
			if _, has := proj.Scripts[t]; !has {
				return nil, missingScriptError([]*workspace.Project{proj}, t)
			}
			n, err := p.visit(proj, t)
			if err != nil {
				return nil, err
			}
			n.Target = true
			continue
		}
		if !selected {
			if err := sharedNameFilter(ws, sel.Filters); err != nil {
				return nil, err
			}
			var err error
			if picked, err = selectProjects(ws, sel); err != nil {
				return nil, err
			}
			projects, selected = picked.projects, true
		}
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
			if why, ok := picked.why[proj]; ok && n.Why == "" {
				n.Why = why
			}
		}
		if root := rootProject(ws); root != nil && len(sel.Filters) == 0 && !sel.Affected && (ws.Current == nil || ws.Current.IsRoot) && len(ws.Projects) > 1 {
			if _, ok := root.Scripts[task]; ok {
				if found {
					notes = append(notes, fmt.Sprintf("the root's own %q script is not run because other projects have one; vx run %s#%s runs it", task, RootID, task))
				} else {
					// At the root, when only the root has the script, run it.
					n, err := p.visit(root, task)
					if err != nil {
						return nil, err
					}
					n.Target = true
					found = true
				}
			}
		}
		if !found && !picked.fromChanges && len(projects) > 0 {
			return nil, missingScriptError(projects, task)
		}
	}
	return &Graph{Nodes: p.order, Notes: notes, Base: picked.base, config: sel.config}, nil
}

// sharedNameFilter reports a --filter that names, exactly, a name two or
// more projects share ("name", "name...", "...name", "!name"): the error
// names every directory holding it, so that the user can pick one by its
// directory. Globs that happen to match such projects select them all, as
// in pnpm.
func sharedNameFilter(ws *workspace.Workspace, filters []string) error {
	for _, f := range filters {
		name := strings.TrimPrefix(f, "!")
		name = strings.TrimPrefix(name, "...")
		name = strings.TrimPrefix(name, "^")
		name = strings.TrimSuffix(name, "...")
		name = strings.TrimSuffix(name, "^")
		if name == "" || strings.ContainsAny(name, "*?[]{}") || strings.HasPrefix(name, ".") {
			continue
		}
		if _, err := ws.Lookup(name); err != nil {
			return fmt.Errorf("--filter %q: %w", f, err)
		}
	}
	return nil
}

// RootID is the task id prefix that always names the workspace root's
// project, whatever its name (turbo's spelling): "//#build".
const RootID = "//"

// TaskID is the id of proj's task: "<project>#<task>", "//#<task>" for a
// root without a name, and "<dir>#<task>" for a project whose name another
// project shares (its RelDir: "playground/hmr#dev"), so that ids are
// unique.
func TaskID(proj *workspace.Project, task string) string {
	if proj.IsRoot && proj.Name == "." {
		return RootID + "#" + task
	}
	if proj.ID != "" {
		return proj.ID + "#" + task
	}
	return proj.Name + "#" + task
}

// ExactTask reads s as a task id, "<project>#<task>" or "//#<task>".
// ok is false when s holds no "#" (a bare task name). The project part is
// what comes before the first "#" (project names cannot hold one): a
// project's name or, when no project has that name, a project's directory
// relative to the root ("playground/hmr", "./playground/hmr"). A name no
// project has, or one two projects share, is an error.
func ExactTask(ws *workspace.Workspace, s string) (proj *workspace.Project, task string, ok bool, err error) {
	name, task, ok := strings.Cut(s, "#")
	if !ok {
		return nil, "", false, nil
	}
	if task == "" {
		return nil, "", false, fmt.Errorf("%q names no task after \"#\"; write <project>#<task>, e.g. %s#build", s, name)
	}
	if name == RootID {
		if proj = rootProject(ws); proj == nil {
			return nil, "", false, fmt.Errorf("%q names a task of the workspace root, but the root has no package.json", s)
		}
		return proj, task, true, nil
	}
	proj, err = ws.Lookup(name)
	if err != nil {
		return nil, "", false, err
	}
	if proj == nil {
		dir := strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(name, `\`, "/"), "./"), "/")
		for _, p := range ws.Projects {
			if p.RelDir == dir {
				return p, task, true, nil
			}
		}
		hint := ""
		names := make([]string, 0, len(ws.Projects))
		for _, p := range ws.Projects {
			names = append(names, p.Name)
		}
		if best, ok := suggest.Closest(name, names); ok {
			hint = fmt.Sprintf("did you mean %q? ", best)
		}
		return nil, "", false, fmt.Errorf("the workspace has no project named %q; %svx ls lists them (the root is //)", name, hint)
	}
	return proj, task, true, nil
}

// rootProject returns the root's project, nil when the root is none.
func rootProject(ws *workspace.Workspace) *workspace.Project {
	for _, p := range ws.Projects {
		if p.IsRoot {
			return p
		}
	}
	return nil
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
	roots *[]*workspace.Project // rootDeps, once computed
}

func (p *planner) visit(proj *workspace.Project, task string) (*Node, error) {
	id := TaskID(proj, task)
	n := p.nodes[id]
	if n == nil {
		n = newNode(p.cfg, proj, task)
		n.Pre, n.Post = prePost(p.ws, proj, task)
		p.nodes[id] = n
	} else if n.Project != proj {
		_, err := p.ws.Lookup(proj.Name)
		if err == nil {
			err = fmt.Errorf("projects %q and %q have the same name %q", n.Project.RelDir, proj.RelDir, proj.Name)
		}
		return nil, fmt.Errorf("task %q: %w", id, err)
	}
	switch p.state[n] {
	case 2:
		return n, nil
	case 1:
		return nil, p.cycle(n)
	}
	p.state[n] = 1
	p.stack = append(p.stack, n)
	deps, sources, err := p.resolveDeps(n)
	if err != nil {
		return nil, err
	}
	n.SourceDeps = sources
	for _, d := range deps {
		dn, err := p.visit(d.proj, d.task)
		if err != nil {
			return nil, err
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
// sorted by ID so the plan does not depend on declaration order, and
// returns the projects a "^name" entry went through because they have no
// such script (n's SourceDeps).
func (p *planner) resolveDeps(n *Node) ([]taskRef, []*workspace.Project, error) {
	var refs []taskRef
	var sources []*workspace.Project
	add := func(proj *workspace.Project, task string) {
		if _, ok := proj.Scripts[task]; ok {
			refs = append(refs, taskRef{proj, task})
		}
	}
	for _, dep := range n.Config.DependsOn {
		switch {
		case strings.HasPrefix(dep, "^"):
			task := dep[1:]
			// Through a dependency without the script, to its own
			// dependencies, transitively (vercel/turborepo#937).
			seen := map[*workspace.Project]bool{n.Project: true}
			var walk func(proj *workspace.Project) error
			walk = func(proj *workspace.Project) error {
				if len(proj.AmbiguousDeps) > 0 {
					_, err := p.ws.Lookup(proj.AmbiguousDeps[0])
					return fmt.Errorf("task %q depends on %q through %q's dependency %q: %w", n.ID, dep, proj.Name, proj.AmbiguousDeps[0], err)
				}
				for _, d := range proj.Deps {
					if seen[d] {
						continue
					}
					seen[d] = true
					if _, ok := d.Scripts[task]; ok {
						add(d, task)
						continue
					}
					sources = append(sources, d)
					if err := walk(d); err != nil {
						return err
					}
				}
				return nil
			}
			if err := walk(n.Project); err != nil {
				return nil, nil, err
			}
		case strings.Contains(dep, "#"):
			proj, task, _, err := ExactTask(p.ws, dep)
			if err != nil {
				return nil, nil, fmt.Errorf("task %q depends on %q, but %w", n.ID, dep, err)
			}
			add(proj, task)
		default:
			add(n.Project, dep)
		}
	}
	sort.Slice(refs, func(i, j int) bool {
		return TaskID(refs[i].proj, refs[i].task) < TaskID(refs[j].proj, refs[j].task)
	})
	// The root's workspace dependencies are read by every task (the
	// root's eslint config imports @hono/eslint-config): their files are
	// in every key, as turbo's root internal dependencies are in its hash.
	for _, d := range p.rootDeps() {
		if d != n.Project && !n.Project.IsRoot {
			sources = append(sources, d)
		}
	}
	// Two "^" entries (or one and the root) can go through the same project.
	sort.Slice(sources, func(i, j int) bool { return sources[i].RelDir < sources[j].RelDir })
	sources = slices.Compact(sources)
	return refs, sources, nil
}

// rootDeps returns the workspace projects the root project depends on
// (its package.json's dependencies, devDependencies, optionalDependencies
// and peerDependencies, resolved as the package manager links them:
// workspace.Project.Deps), and theirs, transitively; once per plan.
func (p *planner) rootDeps() []*workspace.Project {
	if p.roots != nil {
		return *p.roots
	}
	var out []*workspace.Project
	var root *workspace.Project
	for _, proj := range p.ws.Projects {
		if proj.IsRoot {
			root = proj
		}
	}
	if root != nil {
		seen := map[*workspace.Project]bool{root: true}
		var walk func(proj *workspace.Project)
		walk = func(proj *workspace.Project) {
			for _, d := range proj.Deps {
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
					walk(d)
				}
			}
		}
		walk(root)
	}
	p.roots = &out
	return out
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
	return fmt.Errorf("dependsOn has a cycle: %s; remove one of these dependencies in %s", strings.Join(ids, " -> "), n.configFile())
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
	seen := map[string]bool{}
	var all []string // every script name of the projects, sorted
	for _, p := range projects {
		for s := range p.Scripts {
			if !seen[s] {
				seen[s] = true
				all = append(all, s)
			}
		}
	}
	sort.Strings(all)
	hint := ""
	if best, ok := suggest.Closest(task, all); ok {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	if len(projects) == 1 {
		p := projects[0]
		if len(all) == 0 {
			return fmt.Errorf("project %q has no script %q; it has no scripts", p.Name, task)
		}
		return fmt.Errorf("project %q has no script %q%s; its scripts: %s", p.Name, task, hint, strings.Join(all, ", "))
	}
	return fmt.Errorf("none of the %d selected projects has a script %q%s", len(projects), task, hint)
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

// configFile is n.ConfigFile, or vx.json's name for a node made without
// newNode.
func (n *Node) configFile() string { return cmp.Or(n.ConfigFile, config.FileName) }

// newNode is the task node of proj's script task, with its declarations.
func newNode(cfg *config.Config, proj *workspace.Project, task string) *Node {
	key := configName(cfg, proj, task)
	n := &Node{ID: TaskID(proj, task), Project: proj, Task: task, Script: proj.Scripts[task], Config: cfg.TaskFor(key, task)}
	n.Cacheable = cfg.HasEntry(key, task) && !n.Config.NoCache && !n.Config.Persistent
	n.ConfigFile = cfg.FileFor(key, task)
	return n
}

// configName is the project name under which vx.json declares proj's
// task: for the root, a "//#<task>" entry stands for "<root name>#<task>"
// when there is none of the latter.
func configName(cfg *config.Config, proj *workspace.Project, task string) string {
	if proj.IsRoot && cfg != nil {
		if _, ok := cfg.Tasks[proj.Name+"#"+task]; !ok {
			if _, ok := cfg.Tasks[RootID+"#"+task]; ok {
				return RootID
			}
		}
	}
	return proj.Name
}
