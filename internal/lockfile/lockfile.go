package lockfile

import (
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/vxrun/vx/internal/quote"
)

// Kind names a lockfile format.
type Kind string

// The formats vx reads.
const (
	NPM   Kind = "npm"   // package-lock.json, npm-shrinkwrap.json (lockfileVersion 2 and 3)
	PNPM  Kind = "pnpm"  // pnpm-lock.yaml (lockfileVersion 6 and 9)
	Yarn  Kind = "yarn"  // yarn.lock of yarn classic (v1)
	Berry Kind = "berry" // yarn.lock of yarn 2+ (__metadata version 6 to 8)
	Bun   Kind = "bun"   // bun.lock (text)
)

// Names are the lockfile names a workspace root may hold, in the order a
// package manager would pick them (npm-shrinkwrap.json wins over
// package-lock.json, as npm does).
var Names = []string{"npm-shrinkwrap.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"}

// ErrUnsupported is wrapped by [Parse] for a lockfile vx cannot read
// precisely (bun.lockb, an unknown format version): the caller keys on the
// whole file and says so once.
var ErrUnsupported = errors.New("lockfile: format not supported")

// Lockfile is a parsed lockfile.
type Lockfile struct {
	Kind    Kind
	Version string // the format's own version ("3", "9.0", "8", "1")
	// Global holds, as sorted "name=value" lines, the settings recorded in
	// the lockfile that can change any project's install: overrides,
	// resolutions, patchedDependencies, packageExtensions, catalogs where
	// they are global, pnpm's settings block. A change to any of them
	// changes every project's closure.
	Global []string
	// Importers maps a workspace project's directory (slash-separated,
	// relative to the root; "." for the root) to its direct dependencies.
	Importers map[string]*Importer
	// Entries maps the lockfile's own id of a resolved external package
	// (npm: its install path "node_modules/a/node_modules/b"; pnpm: the
	// snapshot key "a@1.0.0(peer@2.0.0)"; yarn: the entry's key) to it.
	Entries map[string]*Entry
	// Stale maps a project's directory to why the lockfile does not say
	// what it resolves: yarn classic's, read by [ParseWorkspacePartial],
	// when the project's manifest names a range the lockfile has no entry
	// for. Such a project has no importer, and [Lockfile.Describe] of a
	// closure that reaches it is not ok. nil for every other reading.
	Stale map[string]string
}

// StaleReason returns why the closure of the projects in dirs cannot be
// trusted: the reason ([Lockfile.Stale]) of the first project, by
// directory, that they reach (through their workspace dependencies) and
// the lockfile does not resolve; "" when none.
func (l *Lockfile) StaleReason(dirs ...string) string {
	if len(l.Stale) == 0 {
		return ""
	}
	for _, d := range l.WorkspaceClosure(dirs...) {
		if why, ok := l.Stale[d]; ok {
			return why
		}
	}
	return ""
}

// Importer is one workspace project in the lockfile.
type Importer struct {
	Deps []Dep
}

// Dep is an edge: from an importer or an entry to an entry or to another
// workspace project.
type Dep struct {
	Name string // the name it is loaded by (an alias's own name for an alias)
	// Entry is the id in Lockfile.Entries it resolves to, or "" for a link
	// to a workspace project.
	Entry string
	// Workspace is the directory (as in Lockfile.Importers) of the
	// workspace project it links to, or "".
	Workspace string
}

// Entry is one resolved external package.
type Entry struct {
	Name       string // the package's real name (not an alias)
	Version    string
	Resolution string // tarball URL, git URL with commit, path, or the registry's: what was installed
	Integrity  string // "sha512-..." or "" when the lockfile has none
	Deps       []Dep  // its dependencies, optional and peer ones included, as resolved
}

// Closure returns the ids of every entry the projects in dirs can load,
// transitively, through the workspace projects they depend on too, sorted.
// A dir with no importer contributes nothing.
func (l *Lockfile) Closure(dirs ...string) []string {
	seenEntry := map[string]bool{}
	seenDir := map[string]bool{}
	var walk func(deps []Dep)
	var stack []Dep
	walk = func(deps []Dep) { stack = append(stack, deps...) }
	for _, d := range dirs {
		if imp := l.Importers[d]; imp != nil && !seenDir[d] {
			seenDir[d] = true
			walk(imp.Deps)
		}
	}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case d.Workspace != "":
			if seenDir[d.Workspace] {
				continue
			}
			seenDir[d.Workspace] = true
			if imp := l.Importers[d.Workspace]; imp != nil {
				walk(imp.Deps)
			}
		case d.Entry != "":
			if seenEntry[d.Entry] {
				continue
			}
			seenEntry[d.Entry] = true
			if e := l.Entries[d.Entry]; e != nil {
				walk(e.Deps)
			}
		}
	}
	out := make([]string, 0, len(seenEntry))
	for id := range seenEntry {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// Parse reads the lockfile called name (a base name from [Names]) with the
// given content. An unknown name, bun.lockb or an unknown format version
// wraps [ErrUnsupported].
func Parse(name string, data []byte) (*Lockfile, error) {
	switch base := path.Base(name); base {
	case "package-lock.json", "npm-shrinkwrap.json":
		return parseNPM(data)
	case "pnpm-lock.yaml":
		return parsePNPM(data)
	case "yarn.lock":
		return parseYarn(data) // classic or berry, by its content
	case "bun.lock":
		return parseBun(data)
	default:
		return nil, unsupported(base, "format not supported")
	}
}

// unsupported is the error for a lockfile vx does not read precisely.
func unsupported(name, why string) error {
	return fmt.Errorf("lockfile: %s: %s: %w", quote.Q(name), why, ErrUnsupported)
}
