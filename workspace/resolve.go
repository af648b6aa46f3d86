package workspace

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// resolver decides which workspace project, if any, a dependency entry
// names, as the workspace's package manager does when it builds its
// workspace graph (pnpm's createPkgGraph, npm's arborist, yarn, bun). The
// rules, spec by spec:
//
//   - "workspace:<range>" (also "workspace:*", "^", "~", ""): the project
//     with the dependency's name, if its version satisfies the range ("*",
//     "^", "~" and "" match any version, pre-releases included; a project
//     without a version matches any). "workspace:<alias>@<range>" names the
//     project <alias> instead of the key. "workspace:<path>" (../lib) is
//     none: pnpm links it at install but leaves it out of its graph.
//   - "file:<path>" and bare paths ("../lib", "./lib", "/abs"): the project
//     whose directory is that path, relative to the depending project,
//     whatever its name; a tarball (.tgz, .tar.gz, .tar) is none.
//   - "link:<path>": none. pnpm and yarn link the directory but order
//     nothing by it; npm does not know the protocol.
//   - "npm:<name>@<range>": never a workspace project (an alias of a
//     registry package).
//   - a plain version or range ("^1.2.0", "1.x", "*"): for npm, yarn and
//     bun, the project with the key's name when its version satisfies the
//     range; for pnpm only with link-workspace-packages (off by default
//     since pnpm 9).
//   - anything else (dist-tags such as "latest", git and URL specs): none.
//
// A name that two or more projects share is ambiguous wherever a rule picks
// a project by name.
type resolver struct {
	w     *Workspace
	byDir map[string]*Project // pathKey of each project's Dir and real directory
	plain bool                // plain ranges link workspace projects
	goos  string
}

func newResolver(w *Workspace, reals []string, goos string) *resolver {
	w.Lookup("") // index the names
	r := &resolver{w: w, byDir: make(map[string]*Project, 2*len(w.Projects)), plain: w.PackageManager.linksPlainRanges(), goos: goos}
	for i, p := range w.Projects {
		r.byDir[pathKey(goos, p.Dir)] = p
		if i < len(reals) {
			if _, ok := r.byDir[pathKey(goos, reals[i])]; !ok {
				r.byDir[pathKey(goos, reals[i])] = p
			}
		}
	}
	return r
}

// workspaceSpec splits what follows "workspace:" into an optional alias and
// the version part, as pnpm's WorkspaceSpec does.
var workspaceSpec = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:([^._/][^@]*)@)?(.*)$`) })

// resolve returns the project dependency d of from names (nil for none), or
// ambiguous when it names by name a project whose name is shared. fromReal
// is from's real directory.
func (r *resolver) resolve(from *Project, fromReal string, d dep) (to *Project, ambiguous bool) {
	name, spec := d.name, d.spec
	isWorkspace := false
	if rest, ok := strings.CutPrefix(spec, "workspace:"); ok {
		isWorkspace = true
		m := workspaceSpec().FindStringSubmatch(rest)
		if m == nil {
			return nil, false
		}
		if m[1] != "" {
			name = m[1]
		}
		spec = m[2]
		switch spec {
		case "^", "~", "":
			spec = "*"
		}
	} else {
		switch {
		case strings.HasPrefix(spec, "npm:"), strings.HasPrefix(spec, "link:"):
			return nil, false
		case strings.HasPrefix(spec, "file:"):
			p := strings.ReplaceAll(spec[len("file:"):], `\`, "/")
			if strings.HasPrefix(p, "/") { // file:///abs, file://../x
				p = "/" + strings.TrimLeft(p, "/")
				if len(p) > 2 && (p[1] == '.' || p[1] == '~') || len(p) > 3 && p[2] == ':' {
					p = p[1:]
				}
			}
			return r.byPath(from, fromReal, p), false
		case isPathSpec(spec, r.goos):
			return r.byPath(from, fromReal, spec), false
		}
		if !r.plain {
			return nil, false
		}
	}
	rng, ok := parseRange(spec)
	if !ok {
		return nil, false // a dist-tag, a URL, a git spec
	}
	ps := r.w.byName[name]
	switch {
	case len(ps) == 0 || ps[0].Name != name:
		return nil, false
	case len(ps) > 1:
		return nil, true
	}
	p := ps[0]
	if spec == "*" && (isWorkspace || p.Version == "") {
		return p, false
	}
	v, ok := parseVersion(p.Version)
	if !ok {
		return nil, false
	}
	if rng.satisfies(v, spec == "*") {
		return p, false
	}
	return nil, false
}

// isPathSpec reports a spec that npm-package-arg reads as a path: starting
// with ".", "/", "~/" or a drive letter (and "\" on Windows).
func isPathSpec(spec, goos string) bool {
	switch {
	case spec == "":
		return false
	case spec[0] == '.' || spec[0] == '/' || strings.HasPrefix(spec, "~/"):
		return true
	case goos == "windows" && spec[0] == '\\':
		return true
	case len(spec) >= 2 && spec[1] == ':' && (spec[0] >= 'a' && spec[0] <= 'z' || spec[0] >= 'A' && spec[0] <= 'Z'):
		return true
	}
	return false
}

// byPath returns the project whose directory is p, relative to from's
// directory as the workspace shows it or as it really is.
func (r *resolver) byPath(from *Project, fromReal, p string) *Project {
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" || strings.HasPrefix(p, "~/") {
		return nil
	}
	if lower := strings.ToLower(p); strings.HasSuffix(lower, ".tgz") || strings.HasSuffix(lower, ".tar.gz") || strings.HasSuffix(lower, ".tar") {
		return nil
	}
	abs := p[0] == '/' || len(p) >= 2 && p[1] == ':'
	for _, base := range []string{from.Dir, fromReal} {
		if base == "" {
			continue
		}
		target := filepath.FromSlash(p)
		if !abs {
			target = filepath.Join(base, target)
		}
		if to := r.byDir[pathKey(r.goos, filepath.Clean(target))]; to != nil {
			return to
		}
		if abs {
			break
		}
	}
	return nil
}
