package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
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
	// directory is the root. Never nil.
	Current *Project
	// Projects lists every project, the root included and first, ordered by
	// RelDir compared element by element ("a", "a/b", "a-b"): the same
	// order on every OS.
	Projects []*Project

	index  sync.Once
	byName map[string]*Project // Projects by Name, built on the first call of Project
}

// A Project is one package.json directory of the workspace.
type Project struct {
	// Name is the package.json "name" or, when it has none (absent, null or
	// ""), RelDir: "." for the root.
	Name string
	// Dir is the project's absolute directory: Root joined with RelDir. For
	// a project reached through a symbolically linked directory it is the
	// link's path inside the workspace, not the link's target.
	Dir string
	// RelDir is Dir relative to the root, slash-separated; "." for the root.
	RelDir string
	// Version is the package.json "version"; "" when absent.
	Version string
	// Manifest is the absolute path of the project's package.json. "" only
	// for a pnpm root that has a pnpm-workspace.yaml and no package.json.
	Manifest string
	// Scripts are the package.json "scripts"; empty, not nil, when none.
	Scripts map[string]string
	// Deps names the other workspace projects this one depends on, through
	// "dependencies", "devDependencies", "optionalDependencies" or
	// "peerDependencies", whatever the version spec ("workspace:*",
	// "^1.0.0", "*"); sorted, unique, nil when none.
	Deps []string
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
// by a small fixed pool of goroutines. A malformed or unreadable file is a
// *diag.Error naming it (absolute), with the line and column where known;
// two projects with the same name, a name that is not valid UTF-8 or holds
// "=" or NUL, an unreadable directory are errors too.
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

// Project returns the project named name, or nil if there is none. The
// first call indexes Projects, which must not change after it.
func (w *Workspace) Project(name string) *Project {
	w.index.Do(func() {
		w.byName = make(map[string]*Project, len(w.Projects))
		for _, p := range w.Projects {
			w.byName[p.Name] = p
		}
	})
	return w.byName[name]
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
	cur, err := d.nearestProject(abs)
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
		f = &found{real: curReal, manifest: d.manifests[filepath.Join(cur, "package.json")]}
	}
	return d.build(f, curKey, d.manifests[filepath.Join(cur, "package.json")])
}

// nearestProject returns the nearest directory from abs upward that holds a
// package.json file.
func (d *discoverer) nearestProject(abs string) (string, error) {
	for dir := abs; ; {
		fi, err := d.fsys.Stat(filepath.Join(dir, "package.json"))
		switch {
		case err == nil && fi.Mode().IsRegular():
			return dir, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("workspace: cannot read directory %q: %w", dir, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("workspace: %w in %q or any directory above it: run vx inside a JavaScript project, or create a package.json (npm init)", ErrNoPackageJSON, abs)
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
		pats, declared, err := parsePnpmWorkspace(data)
		if err != nil {
			return nil, fileError(yamlPath, err)
		}
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
	byName := make(map[string]*Project, 1+len(f.members))
	manifests := make([]*manifest, 0, 1+len(f.members))
	add := func(rel string, m *manifest, real string) error {
		p := &Project{RelDir: rel, Dir: f.real, IsRoot: rel == "."}
		if !p.IsRoot {
			p.Dir = filepath.Join(f.real, filepath.FromSlash(rel))
		}
		if m != nil {
			p.Manifest = filepath.Join(p.Dir, "package.json")
			p.Name, p.Version, p.Scripts = m.name, m.version, m.scripts
		} else {
			m = &manifest{}
			p.Scripts = map[string]string{}
		}
		if p.Name == "" {
			if err := checkName(rel); err != nil {
				return fmt.Errorf("workspace: project %q has no \"name\" and its directory cannot stand in for one: the name %s", rel, err)
			}
			p.Name = rel
		}
		if other := byName[p.Name]; other != nil {
			return fmt.Errorf("workspace: projects %q and %q have the same name %q: names must be unique", other.RelDir, rel, p.Name)
		}
		byName[p.Name] = p
		w.Projects = append(w.Projects, p)
		manifests = append(manifests, m)
		if pathKey(d.goos, real) == curKey {
			w.Current = p
		}
		return nil
	}
	if err := add(".", f.manifest, f.real); err != nil {
		return nil, err
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
	if w.Current == nil {
		return nil, errors.New("workspace: internal error: the current project is not among the projects")
	}
	for i, p := range w.Projects {
		for _, dep := range manifests[i].deps { // sorted and unique
			if dep != p.Name && byName[dep] != nil {
				p.Deps = append(p.Deps, dep)
			}
		}
	}
	// The walk already lists members in this order; sorting keeps the
	// promise whatever the walk becomes.
	slices.SortFunc(w.Projects, func(a, b *Project) int { return compareRel(a.RelDir, b.RelDir) })
	return w, nil
}
