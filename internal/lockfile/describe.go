package lockfile

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
)

// Resolved is what a closure holds of one package name.
type Resolved struct {
	Name     string   // the package's real name
	Versions []string // the versions installed, sorted, each once
	// Digest is the SHA-256 (hex) of all that was resolved for the name:
	// each install's version, integrity, resolution and dependencies (by
	// the name they are loaded by and the name and version they resolve
	// to), and the edges from the projects to it (which project loads
	// which version under which name). Two closures with the same Digest
	// for a name load the same code for it the same way.
	Digest string
}

// Describe returns what the projects in dirs can load ([Lockfile.Closure]),
// by package name, sorted by name, and links, the digest of the edges from
// the projects walked to other workspace projects. ok is false when the
// first of dirs has no importer: the lockfile says nothing of that project
// and the caller must not trust a closure of it.
//
// The closure's entries are described by what they are, not by their ids
// (an npm install path moves when another project's install is hoisted
// differently): a change elsewhere in the lockfile changes nothing here.
func (l *Lockfile) Describe(dirs ...string) (pkgs []Resolved, links string, ok bool) {
	return l.NewDescriber().Describe(dirs...)
}

// A Describer answers [Lockfile.Describe] for many projects of one
// lockfile, making what it says of each entry once. It is safe for
// concurrent use; the lockfile must not change while it is used.
type Describer struct {
	l     *Lockfile
	mu    sync.Mutex
	lines map[string]string // entry id → its line
}

// NewDescriber returns a Describer of l.
func (l *Lockfile) NewDescriber() *Describer {
	return &Describer{l: l, lines: make(map[string]string, len(l.Entries))}
}

// Lockfile returns the lockfile dr describes.
func (dr *Describer) Lockfile() *Lockfile { return dr.l }

// Describe is [Lockfile.Describe].
func (dr *Describer) Describe(dirs ...string) (pkgs []Resolved, links string, ok bool) {
	l := dr.l
	if len(dirs) == 0 || l.Importers[dirs[0]] == nil {
		return nil, "", false
	}
	target := func(d Dep) string {
		if d.Workspace != "" {
			return "link:" + d.Workspace
		}
		if e := l.Entries[d.Entry]; e != nil {
			return e.Name + "@" + e.Version
		}
		return "missing"
	}
	byName := map[string][]string{}   // name -> lines of its installs and incoming project edges
	versions := map[string][]string{} // name -> versions
	var linkLines []string
	seenDir := map[string]bool{}
	seenEntry := map[string]bool{}
	var dirStack []string
	var entryStack []string
	for _, d := range dirs {
		if _, stale := l.Stale[d]; stale {
			return nil, "", false
		}
		if !seenDir[d] && l.Importers[d] != nil {
			seenDir[d] = true
			dirStack = append(dirStack, d)
		}
	}
	for len(dirStack) > 0 || len(entryStack) > 0 {
		if n := len(dirStack); n > 0 {
			dir := dirStack[n-1]
			dirStack = dirStack[:n-1]
			for _, d := range l.Importers[dir].Deps {
				switch {
				case d.Workspace != "":
					if _, stale := l.Stale[d.Workspace]; stale {
						return nil, "", false
					}
					linkLines = append(linkLines, dir+"\x00"+d.Name+"\x00"+d.Workspace)
					if !seenDir[d.Workspace] && l.Importers[d.Workspace] != nil {
						seenDir[d.Workspace] = true
						dirStack = append(dirStack, d.Workspace)
					}
				case d.Entry != "":
					if e := l.Entries[d.Entry]; e != nil {
						byName[e.Name] = append(byName[e.Name], "from "+dir+" as "+d.Name+": "+e.Version)
					}
					if !seenEntry[d.Entry] {
						seenEntry[d.Entry] = true
						entryStack = append(entryStack, d.Entry)
					}
				}
			}
			continue
		}
		id := entryStack[len(entryStack)-1]
		entryStack = entryStack[:len(entryStack)-1]
		e := l.Entries[id]
		if e == nil {
			continue
		}
		for _, d := range e.Deps {
			switch {
			case d.Workspace != "":
				if _, stale := l.Stale[d.Workspace]; stale {
					return nil, "", false
				}
				if !seenDir[d.Workspace] && l.Importers[d.Workspace] != nil {
					seenDir[d.Workspace] = true
					dirStack = append(dirStack, d.Workspace)
				}
			case d.Entry != "" && !seenEntry[d.Entry]:
				seenEntry[d.Entry] = true
				entryStack = append(entryStack, d.Entry)
			}
		}
		byName[e.Name] = append(byName[e.Name], dr.entryLine(id, e, target))
		versions[e.Name] = append(versions[e.Name], e.Version)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		if len(versions[n]) > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	pkgs = make([]Resolved, 0, len(names))
	for _, n := range names {
		lines := byName[n]
		slices.Sort(lines)
		lines = slices.Compact(lines)
		h := sha256.New()
		for _, s := range lines {
			h.Write([]byte(s))
			h.Write([]byte{'\n'})
		}
		vs := versions[n]
		slices.Sort(vs)
		pkgs = append(pkgs, Resolved{Name: n, Versions: slices.Compact(vs), Digest: hex.EncodeToString(h.Sum(nil))})
	}
	slices.Sort(linkLines)
	h := sha256.New()
	for _, s := range slices.Compact(linkLines) {
		h.Write([]byte(s))
		h.Write([]byte{'\n'})
	}
	return pkgs, hex.EncodeToString(h.Sum(nil)), true
}

// entryLine is what Describe says of one entry: its version, integrity,
// resolution and dependencies; made once per entry.
func (dr *Describer) entryLine(id string, e *Entry, target func(Dep) string) string {
	dr.mu.Lock()
	line, ok := dr.lines[id]
	dr.mu.Unlock()
	if ok {
		return line
	}
	var b strings.Builder
	b.WriteString(e.Version)
	b.WriteByte(0)
	b.WriteString(e.Integrity)
	b.WriteByte(0)
	b.WriteString(e.Resolution)
	for _, d := range e.Deps {
		b.WriteByte(0)
		b.WriteString(d.Name)
		b.WriteByte('=')
		b.WriteString(target(d))
	}
	line = b.String()
	dr.mu.Lock()
	dr.lines[id] = line
	dr.mu.Unlock()
	return line
}

// Same reports whether a and b are the same kind and version of lockfile,
// hold the same global settings, and resolve the same for the projects in
// dirs ([Lockfile.Describe]); false when either has no importer for the
// first of dirs.
func Same(a, b *Lockfile, dirs ...string) bool {
	if a.Kind != b.Kind || a.Version != b.Version || !slices.Equal(a.Global, b.Global) {
		return false
	}
	pa, la, oka := a.Describe(dirs...)
	pb, lb, okb := b.Describe(dirs...)
	if !oka || !okb || la != lb || len(pa) != len(pb) {
		return false
	}
	for i := range pa {
		if pa[i].Name != pb[i].Name || pa[i].Digest != pb[i].Digest || !slices.Equal(pa[i].Versions, pb[i].Versions) {
			return false
		}
	}
	return true
}
