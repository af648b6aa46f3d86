package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vxrun/vx/internal/diag"
)

// A Workspace is the answer to "where am I": the workspace root, the project
// holding the start directory, and every project the root declares.
type Workspace struct {
	// Root is the workspace root: absolute, with symbolic links resolved, so
	// the same workspace reached through a link or a relative path has the
	// same Root.
	Root string
	// Current is the project holding the start directory (the nearest
	// directory upward with a package.json); the root project when the start
	// directory is the root. nil only at (or below, outside any project) a
	// pnpm root that has a pnpm-workspace.yaml and no package.json.
	Current *Project
	// Projects lists every project, the root first when it is one, ordered
	// by RelDir compared element by element ("a", "a/b", "a-b"): the same
	// order on every OS. The root is a project unless it is a pnpm root
	// without a package.json.
	Projects []*Project
	// PackageManager is the package manager the workspace is managed with.
	PackageManager PackageManager
	// StartDir is the directory Discover started from, absolute, as given
	// (symbolic links kept): where the user ran vx. Tasks do not see it (their
	// INIT_CWD is their project's directory).
	StartDir string
	// PnP is the absolute path of the root's Yarn Plug'n'Play loader
	// (.pnp.cjs, or .pnp.js from yarn 2), "" when there is none. With
	// Plug'n'Play, packages have no node_modules/.bin for vx to put on PATH.
	PnP string

	index  sync.Once
	byName map[string][]*Project // Projects by Name, built on the first call of Lookup
}

// A Project is one package.json directory of the workspace.
type Project struct {
	// Name is the package.json "name" or, when it has none (absent, null or
	// ""), RelDir: "." for the root. Two projects may share a name (pnpm
	// tolerates it): see [Workspace.Lookup].
	Name string
	// ID names the project in task ids ("<ID>#<task>"): its Name, or its
	// RelDir when another project has the same name, so that every task
	// id of a workspace is unique. Discover sets it; "" stands for Name.
	ID string
	// Unnamed reports that the package.json has no "name", so that Name is
	// RelDir standing in for one (npm_package_name is then left unset).
	Unnamed bool
	// Dir is the project's absolute directory: Root joined with RelDir. For
	// a project reached through a symbolically linked directory it is the
	// link's path inside the workspace, not the link's target.
	Dir string
	// RelDir is Dir relative to the root, slash-separated; "." for the root.
	RelDir string
	// Version is the package.json "version"; "" when absent.
	Version string
	// Manifest is the absolute path of the project's package.json.
	Manifest string
	// Scripts are the package.json "scripts"; empty, not nil, when none.
	Scripts map[string]string
	// Deps are the other workspace projects this one depends on, through
	// "dependencies", "devDependencies", "optionalDependencies" or
	// "peerDependencies", resolved as the workspace's package manager
	// resolves them (see resolve.go and docs/workspace.md); in Projects
	// order, unique, nil when none.
	Deps []*Project
	// AmbiguousDeps are the dependency names that would be edges to a
	// workspace project but name two or more projects (duplicate names):
	// sorted, nil when none. Whoever follows this project's dependencies
	// reports them; see [Workspace.Lookup].
	AmbiguousDeps []string
	// IsRoot reports the workspace root's project.
	IsRoot bool
}

// Discover finds the workspace that dir belongs to.
//
// A relative dir is taken from the process's working directory. The current
// project is the nearest directory, from dir upward, holding a package.json;
// with none, the error wraps ErrNoPackageJSON.
//
// The root is the nearest directory, from the current project upward (the
// project itself included), that declares workspaces and whose patterns
// match the current project, or that is the current project. A directory
// declares workspaces with a pnpm-workspace.yaml holding a "packages" key,
// which takes precedence, or with a package.json "workspaces" field: an
// array of patterns, or an object whose "packages" array holds them (the
// yarn and bun form). An ancestor whose patterns do not match the project
// (or exclude it with "!") is passed over and the search goes on upward, as
// npm's does. With no such ancestor the workspace is the current project
// alone. The search first climbs dir as given, then, if that finds no
// workspace and dir's real path differs, the real path: a project linked
// into a workspace is seen as part of it when reached through the link.
//
// The projects are the root and every directory below it that the root's
// patterns match and that holds a package.json file. Patterns are
// slash-separated globs relative to the root: "*" and "?" (within one
// path element), "[...]" classes ("[!...]" or "[^...]" to negate),
// "{a,b}" alternatives, "**" for any number of directories, "\" to escape.
// A leading "!" excludes what the pattern matches; patterns apply in order,
// the last one matching a directory deciding (a later pattern may
// re-include). Wildcards never match a name starting with "." unless the
// pattern spells the dot; matching is case-sensitive on every OS.
// node_modules directories are never searched. A symbolically linked
// directory is followed, each real directory once, so link cycles end; a
// directory reached by two paths is one project, listed under the first
// path in Projects order.
//
// Discover reads the package.json and pnpm-workspace.yaml of the
// directories from the current project up to the root, and the package.json
// of each directory the root's patterns match; nothing else (an ancestor
// passed over costs a directory walk, no file reads). The manifests are read
// by a small fixed pool of goroutines; and at the root, which lockfile
// exists (the first 512 bytes of pnpm-lock.yaml or yarn.lock) and a pnpm
// root's .npmrc. A malformed or unreadable file is a *diag.Error naming it
// (absolute), with the line and column where known; a name that is not
// valid UTF-8 or holds "=", "#" or NUL, an unreadable directory are errors
// too. Two projects with the same name are not: see [Workspace.Lookup].
//
// A directory holding a pnpm-workspace.yaml and no package.json stops the
// search for the current project: it is a pnpm root, never a project, and
// a package.json above it is never taken for the current project.
func Discover(dir string) (*Workspace, error) {
	return discover(osFS{}, runtime.GOOS, dir)
}

// BinPaths returns the node_modules/.bin directories that go on the PATH of
// p's tasks, first wins: p's own, then the root's; only the root's when p is
// the root (or nil). Never a sibling's or any other ancestor's (npm and bun
// add every ancestor up to the file-system root; vx does not). The
// directories need not exist yet: an install may create them. Paths use the
// OS's separator.
func (w *Workspace) BinPaths(p *Project) []string {
	rootBin := filepath.Join(w.Root, "node_modules", ".bin")
	if p == nil || p.IsRoot || p.Dir == w.Root {
		return []string{rootBin}
	}
	return []string{filepath.Join(p.Dir, "node_modules", ".bin"), rootBin}
}

// Project returns the project named name, or nil if there is none or if
// two or more projects share the name (use [Workspace.Lookup] to tell). The
// first call indexes Projects, which must not change after it.
func (w *Workspace) Project(name string) *Project {
	p, _ := w.Lookup(name)
	return p
}

// Lookup returns the project named name: nil, nil when there is none; a
// *DuplicateError naming every directory that holds the name when two or
// more projects share it. Duplicate names are allowed in a workspace (pnpm
// tolerates them: Vite's playground has several), and are an error only
// where a name has to pick one project. The first call indexes Projects,
// which must not change after it.
func (w *Workspace) Lookup(name string) (*Project, error) {
	w.index.Do(func() {
		w.byName = make(map[string][]*Project, len(w.Projects))
		for _, p := range w.Projects {
			w.byName[p.Name] = append(w.byName[p.Name], p)
		}
	})
	switch ps := w.byName[name]; len(ps) {
	case 0:
		return nil, nil
	case 1:
		return ps[0], nil
	default:
		return nil, &DuplicateError{Name: name, Projects: ps}
	}
}

// Duplicates returns the names two or more projects share, each with its
// projects in Projects order; nil when names are unique.
func (w *Workspace) Duplicates() map[string][]*Project {
	w.Lookup("")
	var out map[string][]*Project
	for name, ps := range w.byName {
		if len(ps) > 1 {
			if out == nil {
				out = map[string][]*Project{}
			}
			out[name] = ps
		}
	}
	return out
}

// A DuplicateError reports a name that two or more projects share, where
// the name had to pick one.
type DuplicateError struct {
	Name     string
	Projects []*Project // in Projects order
}

func (e *DuplicateError) Error() string {
	dirs := make([]string, len(e.Projects))
	for i, p := range e.Projects {
		dirs[i] = strconv.Quote(p.RelDir)
	}
	list := strings.Join(dirs[:len(dirs)-1], ", ") + " and " + dirs[len(dirs)-1]
	return fmt.Sprintf("workspace: projects %s have the same name %q: give them different names, or select one by its directory (--filter ./%s)",
		list, e.Name, e.Projects[0].RelDir)
}

// discoverer holds one Discover call's state.
type discoverer struct {
	fsys fileSystem
	goos string
	// manifests caches the package.json files read while climbing, by
	// path, so that none is read twice.
	manifests map[string]*manifest
}

// found is a workspace root the climb settled on.
type found struct {
	real       string    // the root, real path
	manifest   *manifest // the root's package.json; nil if it has none
	declaredIn string
	patterns   []string
	members    []member
	yaml       bool       // the root has a pnpm-workspace.yaml
	settings   PMSettings // what its pnpm-workspace.yaml sets
}

func discover(fsys fileSystem, goos, dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: cannot find the absolute path of %q: %w", dir, err)
	}
	fi, err := fsys.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: cannot use %q as the start directory: %w", abs, err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace: start directory %q is not a directory", abs)
	}
	d := &discoverer{fsys: fsys, goos: goos, manifests: map[string]*manifest{}}
	cur, hasManifest, err := d.nearestProject(abs)
	if err != nil {
		return nil, err
	}
	curReal, err := fsys.EvalSymlinks(cur)
	if err != nil {
		return nil, fmt.Errorf("workspace: cannot resolve %q: %w", cur, err)
	}
	curKey := pathKey(goos, curReal)
	f, err := d.climb(cur, curKey)
	if err == nil && f == nil && pathKey(goos, cur) != curKey {
		// Seen through its real path, the project may belong elsewhere.
		if m, ok := d.manifests[filepath.Join(cur, "package.json")]; ok {
			d.manifests[filepath.Join(curReal, "package.json")] = m
		}
		f, err = d.climb(curReal, curKey)
	}
	if err != nil {
		return nil, err
	}
	if f == nil {
		if !hasManifest {
			return nil, &diag.Error{Path: filepath.Join(cur, pnpmWorkspaceFile), Msg: "declares no \"packages\" and its directory has no package.json: add packages: [...] to it, or create a package.json"}
		}
		f = &found{real: curReal, manifest: d.manifests[filepath.Join(cur, "package.json")]}
		if data, err := d.fsys.ReadFile(filepath.Join(cur, pnpmWorkspaceFile)); err == nil {
			f.yaml = true
			_, _, f.settings, _ = parsePnpmWorkspaceSettings(data)
		}
	}
	w, err := d.build(f, curKey, d.manifests[filepath.Join(cur, "package.json")])
	if err != nil {
		return nil, err
	}
	w.StartDir = abs
	for _, name := range [...]string{".pnp.cjs", ".pnp.js"} {
		if fi, err := fsys.Stat(filepath.Join(w.Root, name)); err == nil && fi.Mode().IsRegular() {
			w.PnP = filepath.Join(w.Root, name)
			break
		}
	}
	return w, nil
}

// nearestProject returns the nearest directory from abs upward that holds a
// package.json file (hasManifest) or, failing that, a pnpm-workspace.yaml:
// a pnpm root without package.json, above which no package.json is ever
// the current project.
func (d *discoverer) nearestProject(abs string) (dir string, hasManifest bool, err error) {
	for dir := abs; ; {
		fi, err := d.fsys.Stat(filepath.Join(dir, "package.json"))
		switch {
		case err == nil && fi.Mode().IsRegular():
			return dir, true, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", false, fmt.Errorf("workspace: cannot read directory %q: %w", dir, err)
		}
		if fi, err := d.fsys.Stat(filepath.Join(dir, pnpmWorkspaceFile)); err == nil && fi.Mode().IsRegular() {
			return dir, false, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, fmt.Errorf("workspace: %w in %q or any directory above it: run vx inside a JavaScript project, or create a package.json (npm init)", ErrNoPackageJSON, abs)
		}
		dir = parent
	}
}

// climb walks from the project directory start upward to the first
// directory that declares workspaces and either is the project (its real
// path's key is curKey) or has it among its members. nil when there is none.
func (d *discoverer) climb(start, curKey string) (*found, error) {
	for dir := start; ; {
		f, err := d.declaration(dir)
		if err != nil {
			return nil, err
		}
		if f != nil {
			pats, err := compilePatterns(f.patterns)
			if err != nil {
				return nil, &diag.Error{Path: f.declaredIn, Msg: err.Error()}
			}
			if f.real, err = d.fsys.EvalSymlinks(dir); err != nil {
				return nil, fmt.Errorf("workspace: cannot resolve %q: %w", dir, err)
			}
			if f.members, err = walk(d.fsys, d.goos, f.real, pats); err != nil {
				return nil, err
			}
			// The project holds a package.json, so matching its directory
			// makes it a member; no file needs reading to know.
			if pathKey(d.goos, f.real) == curKey {
				return f, nil
			}
			for _, m := range f.members {
				if pathKey(d.goos, m.real) == curKey {
					return f, nil
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, nil
		}
		dir = parent
	}
}

// declaration reads dir's pnpm-workspace.yaml and package.json. It returns
// nil when dir declares no workspaces; otherwise a found with the
// patterns, the declaring file and the package.json (nil if none), but no
// real path or members yet.
func (d *discoverer) declaration(dir string) (*found, error) {
	f := &found{}
	yamlPath := filepath.Join(dir, pnpmWorkspaceFile)
	data, err := d.fsys.ReadFile(yamlPath)
	switch {
	case err == nil:
		pats, declared, settings, err := parsePnpmWorkspaceSettings(data)
		if err != nil {
			return nil, fileError(yamlPath, err)
		}
		f.yaml, f.settings = true, settings
		if declared {
			f.declaredIn, f.patterns = yamlPath, pats
		}
	case errors.Is(err, fs.ErrNotExist):
		wrong := filepath.Join(dir, pnpmMisspelled)
		if _, err := d.fsys.Stat(wrong); err == nil {
			return nil, &diag.Error{Path: wrong, Msg: "pnpm reads only \"pnpm-workspace.yaml\": rename the file"}
		}
	default:
		return nil, readError(yamlPath, err)
	}
	m, err := d.manifest(dir, filepath.Join(dir, "package.json"))
	if err != nil {
		return nil, err
	}
	f.manifest = m
	if f.declaredIn == "" && m != nil && m.hasWorkspaces {
		f.declaredIn, f.patterns = filepath.Join(dir, "package.json"), m.workspaces
	}
	if f.declaredIn == "" {
		return nil, nil
	}
	return f, nil
}

// manifest reads and parses dir's package.json, naming it show in errors,
// through the cache. It returns nil, nil when there is no package.json file.
func (d *discoverer) manifest(dir, show string) (*manifest, error) {
	path := filepath.Join(dir, "package.json")
	if m, ok := d.manifests[path]; ok {
		return m, nil
	}
	m, err := readManifest(d.fsys, dir, show)
	if err != nil {
		return nil, err
	}
	d.manifests[path] = m
	return m, nil
}

// readManifest reads and parses dir's package.json, naming it show in
// errors. It returns nil, nil when there is no package.json file.
func readManifest(fsys fileSystem, dir, show string) (*manifest, error) {
	path := filepath.Join(dir, "package.json")
	data, err := fsys.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if fi, serr := fsys.Stat(path); serr == nil && fi.IsDir() {
			return nil, nil // a directory named package.json
		}
		return nil, readError(show, err)
	}
	m, err := parseManifest(data)
	if err != nil {
		return nil, fileError(show, err)
	}
	return m, nil
}

// readWorkers bounds the goroutines reading the members' manifests: the
// work is mostly system calls, which a few threads overlap well, and a
// fixed pool keeps a 10,000-project workspace from starting 10,000
// goroutines.
const readWorkers = 4

// readManifests reads the members' manifests, all but those for which have
// already holds one, with up to readWorkers goroutines. The error, if any,
// is that of the first failing member in order, whatever the scheduling.
func (d *discoverer) readManifests(root string, members []member, have func(member) *manifest) ([]*manifest, error) {
	out := make([]*manifest, len(members))
	errs := make([]error, len(members))
	var todo []int
	for i, mem := range members {
		if m := have(mem); m != nil {
			out[i] = m
		} else {
			todo = append(todo, i)
		}
	}
	read := func(i int) {
		out[i], errs[i] = readManifest(d.fsys, members[i].real, filepath.Join(root, filepath.FromSlash(members[i].rel), "package.json"))
	}
	if n := min(readWorkers, len(todo)/8); n <= 1 {
		for _, i := range todo {
			read(i)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				for {
					k := int(next.Add(1)) - 1
					if k >= len(todo) {
						return
					}
					read(todo[k])
				}
			})
		}
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// build turns the root the climb found into a Workspace: it reads the
// members' manifests, names the projects, checks the names and links the
// dependencies.
func (d *discoverer) build(f *found, curKey string, curManifest *manifest) (*Workspace, error) {
	w := &Workspace{Root: f.real, Projects: make([]*Project, 0, 1+len(f.members))}
	pmField := ""
	if f.manifest != nil {
		pmField = f.manifest.packageManager
	}
	w.PackageManager = detectPackageManager(d.fsys, f.real, pmField, f.yaml, f.settings)
	manifests := make([]*manifest, 0, 1+len(f.members))
	reals := make([]string, 0, 1+len(f.members))
	add := func(rel string, m *manifest, real string) error {
		p := &Project{RelDir: rel, Dir: f.real, IsRoot: rel == "."}
		if !p.IsRoot {
			p.Dir = filepath.Join(f.real, filepath.FromSlash(rel))
		}
		p.Manifest = filepath.Join(p.Dir, "package.json")
		p.Name, p.Version, p.Scripts = m.name, m.version, m.scripts
		if p.Name == "" {
			if err := checkName(rel); err != nil {
				return fmt.Errorf("workspace: project %q has no \"name\" and its directory cannot stand in for one: the name %s", rel, err)
			}
			p.Name, p.Unnamed = rel, true
		}
		w.Projects = append(w.Projects, p)
		manifests = append(manifests, m)
		reals = append(reals, real)
		if pathKey(d.goos, real) == curKey {
			w.Current = p
		}
		return nil
	}
	if f.manifest != nil { // a pnpm root without package.json is no project
		if err := add(".", f.manifest, f.real); err != nil {
			return nil, err
		}
	}
	read, err := d.readManifests(f.real, f.members, func(mem member) *manifest {
		if pathKey(d.goos, mem.real) == curKey {
			return curManifest
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, mem := range f.members {
		m := read[i]
		if m == nil { // a matched directory without package.json
			continue
		}
		if err := add(mem.rel, m, mem.real); err != nil {
			return nil, err
		}
	}
	if w.Current == nil && curManifest != nil {
		return nil, errors.New("workspace: internal error: the current project is not among the projects")
	}
	// The walk already lists members in this order; sorting keeps the
	// promise whatever the walk becomes.
	order := make([]int, len(w.Projects))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareRel(w.Projects[a].RelDir, w.Projects[b].RelDir) })
	sorted := make([]*Project, len(order))
	sortedManifests := make([]*manifest, len(order))
	sortedReals := make([]string, len(order))
	for i, k := range order {
		sorted[i], sortedManifests[i], sortedReals[i] = w.Projects[k], manifests[k], reals[k]
	}
	w.Projects = sorted
	r := newResolver(w, sortedReals, d.goos) // indexes the names
	for _, p := range w.Projects {
		p.ID = p.Name
		if len(w.byName[p.Name]) > 1 {
			p.ID = p.RelDir
		}
	}
	pos := make(map[*Project]int, len(w.Projects))
	for i, p := range w.Projects {
		pos[p] = i
	}
	for i, p := range w.Projects {
		for _, dep := range sortedManifests[i].deps { // sorted and unique
			to, ambiguous := r.resolve(p, sortedReals[i], dep)
			switch {
			case ambiguous:
				p.AmbiguousDeps = append(p.AmbiguousDeps, dep.name)
			case to != nil && to != p:
				p.Deps = append(p.Deps, to)
			}
		}
		slices.SortFunc(p.Deps, func(a, b *Project) int { return pos[a] - pos[b] })
		p.Deps = slices.Compact(p.Deps)
	}
	return w, nil
}
