package lockfile

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// npmLock is the part of package-lock.json vx reads. lockfileVersion 2 also
// holds the legacy "dependencies" tree; "packages" says the same, so only it
// is read.
type npmLock struct {
	LockfileVersion json.RawMessage        `json:"lockfileVersion"`
	Packages        map[string]*npmPackage `json:"packages"`
}

type npmPackage struct {
	Name                 string            `json:"name"` // set for an alias: the real name
	Version              string            `json:"version"`
	Resolved             string            `json:"resolved"`
	Integrity            string            `json:"integrity"`
	Link                 bool              `json:"link"`
	Dependencies         map[string]string `json:"dependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	Overrides            json.RawMessage   `json:"overrides"`
}

// parseNPM reads package-lock.json or npm-shrinkwrap.json (lockfileVersion 2
// and 3, from their "packages" map).
//
// Importers are the keys outside any node_modules ("" is the root "."; a
// workspace "packages/a"; a linked directory "../lib"). Entries are the
// installs, keyed by their path ("node_modules/a/node_modules/b"); a
// "link": true install is not an entry but an edge to the directory it
// resolves to. Each dependency is resolved as node loads it: from the
// dependent's directory, node_modules/<name> there, then in each directory
// above. devDependencies count for importers only (an install's are not
// installed). A dependency with no install (an optional one skipped, a peer
// nobody provides) has no edge.
func parseNPM(data []byte) (*Lockfile, error) {
	var raw npmLock
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("lockfile: \"package-lock.json\": %w", err)
	}
	version := strings.TrimSpace(string(raw.LockfileVersion))
	switch version {
	case "2", "3":
	case "":
		return nil, unsupported("package-lock.json", "no lockfileVersion")
	default:
		return nil, unsupported("package-lock.json", "lockfileVersion "+version)
	}
	if raw.Packages == nil {
		return nil, unsupported("package-lock.json", "no \"packages\"")
	}
	l := &Lockfile{Kind: NPM, Version: version, Importers: map[string]*Importer{}, Entries: map[string]*Entry{}}
	links := map[string]string{} // install path -> importer dir
	for key, p := range raw.Packages {
		if p == nil {
			continue
		}
		switch {
		case !npmInstalled(key):
			dir := npmDir(key)
			if _, dup := l.Importers[dir]; dup {
				return nil, fmt.Errorf("lockfile: \"package-lock.json\": %q and another key are the same directory", key)
			}
			l.Importers[dir] = &Importer{}
		case p.Link:
			links[key] = npmDir(p.Resolved) // relative to the root, as npm writes it
		default:
			name := p.Name
			if name == "" {
				name = npmInstallName(key)
			}
			l.Entries[key] = &Entry{Name: name, Version: p.Version, Resolution: p.Resolved, Integrity: p.Integrity}
		}
	}
	resolve := func(from, name string) (Dep, bool) {
		for dir := from; ; dir = npmParent(dir) {
			if path.Base(dir) != "node_modules" {
				cand := "node_modules/" + name
				if dir != "" {
					cand = dir + "/" + cand
				}
				if _, ok := l.Entries[cand]; ok {
					return Dep{Name: name, Entry: cand}, true
				}
				if ws, ok := links[cand]; ok {
					return Dep{Name: name, Workspace: ws}, true
				}
			}
			if dir == "" {
				return Dep{}, false
			}
		}
	}
	deps := func(from string, p *npmPackage, dev bool) []Dep {
		var names []string
		for _, m := range []map[string]string{p.Dependencies, p.OptionalDependencies, p.PeerDependencies} {
			for n := range m {
				names = append(names, n)
			}
		}
		if dev {
			for n := range p.DevDependencies {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		names = slices.Compact(names)
		out := make([]Dep, 0, len(names))
		for _, n := range names {
			if d, ok := resolve(from, n); ok {
				out = append(out, d)
			}
		}
		return out
	}
	for key, p := range raw.Packages {
		if p == nil {
			continue
		}
		if imp, ok := l.Importers[npmDir(key)]; ok && !npmInstalled(key) {
			imp.Deps = deps(key, p, true)
		} else if e := l.Entries[key]; e != nil {
			e.Deps = deps(key, p, false)
		}
	}
	if root := raw.Packages[""]; root != nil && len(root.Overrides) > 0 {
		var v any
		if err := json.Unmarshal(root.Overrides, &v); err != nil {
			return nil, fmt.Errorf("lockfile: \"package-lock.json\": overrides: %w", err)
		}
		l.Global = append(l.Global, "overrides="+canonical(v))
	}
	return l, nil
}

// npmInstalled says whether a packages key is an install under node_modules
// (rather than the root, a workspace or a linked directory).
func npmInstalled(key string) bool {
	return key == "node_modules" || strings.HasPrefix(key, "node_modules/") || strings.Contains(key, "/node_modules/") || strings.HasSuffix(key, "/node_modules")
}

// npmDir is an importer's directory as in Lockfile.Importers: "." for "".
func npmDir(key string) string {
	if key == "" {
		return "."
	}
	return path.Clean(key)
}

// npmParent is the directory above key ("" above a top-level one).
func npmParent(key string) string {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return ""
	}
	return key[:i]
}

// npmInstallName is the package name an install path ends in:
// "node_modules/a/node_modules/@s/b" -> "@s/b".
func npmInstallName(key string) string {
	i := strings.LastIndex(key, "node_modules/")
	if i < 0 {
		return key
	}
	return key[i+len("node_modules/"):]
}
