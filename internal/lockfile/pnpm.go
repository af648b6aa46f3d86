package lockfile

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

type pnpmRef struct {
	Specifier string `yaml:"specifier"`
	Version   string `yaml:"version"`
}

type pnpmImporter struct {
	Dependencies         map[string]pnpmRef `yaml:"dependencies"`
	DevDependencies      map[string]pnpmRef `yaml:"devDependencies"`
	OptionalDependencies map[string]pnpmRef `yaml:"optionalDependencies"`
}

// pnpmPackage is an entry of "packages" (v6: resolution and dependencies;
// v9: resolution only) or of "snapshots" (v9: dependencies only).
type pnpmPackage struct {
	Name                 string            `yaml:"name"`
	Version              string            `yaml:"version"`
	Resolution           any               `yaml:"resolution"`
	Dependencies         map[string]string `yaml:"dependencies"`
	OptionalDependencies map[string]string `yaml:"optionalDependencies"`
}

// pnpmNotGlobal are the top-level keys of pnpm-lock.yaml that are not
// global settings: every other key (overrides, settings,
// patchedDependencies, packageExtensionsChecksum, pnpmfileChecksum, and any
// key a later pnpm adds) goes into Lockfile.Global, so that a change to it
// misses every project. Catalogs are reflected in the importers that use
// them (their resolved versions), so a catalog change misses only those.
var pnpmNotGlobal = map[string]bool{
	"lockfileVersion": true, "importers": true, "packages": true, "snapshots": true,
	"catalogs": true, "time": true,
	// a lockfile without workspace (v6): the root's dependencies at top level
	"dependencies": true, "devDependencies": true, "optionalDependencies": true,
}

// parsePNPM reads pnpm-lock.yaml, lockfileVersion '6.0', '6.1' and '9.0'.
//
// Importers are the "importers" (or, for a v6 lockfile without a workspace,
// the top-level dependencies as the root "."); a "link:" version is an edge
// to the directory it names, relative to the importer's. Entries are the
// snapshots (v9) or packages (v6), keyed as the lockfile keys them, peer
// suffixes included ("a@1.0.0(react@18.2.0)"), with the resolution and
// integrity of their package; an alias ("old: lodash@4.17.15") resolves to
// the real package's key.
func parsePNPM(data []byte) (*Lockfile, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("lockfile: \"pnpm-lock.yaml\": %w", err)
	}
	// A second document (pnpm keeps its own dependencies in one before
	// the project's, in some versions): vx would read the wrong one.
	var more yaml.Node
	if err := dec.Decode(&more); err != io.EOF {
		return nil, unsupported("pnpm-lock.yaml", "more than one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, unsupported("pnpm-lock.yaml", "not a mapping")
	}
	top := doc.Content[0]
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		fields[top.Content[i].Value] = top.Content[i+1]
	}
	vn := fields["lockfileVersion"]
	if vn == nil || vn.Kind != yaml.ScalarNode {
		return nil, unsupported("pnpm-lock.yaml", "no lockfileVersion")
	}
	version := vn.Value
	var v9 bool
	switch version {
	case "6.0", "6.1":
	case "9.0":
		v9 = true
	default:
		return nil, unsupported("pnpm-lock.yaml", "lockfileVersion "+strconv.Quote(version))
	}
	l := &Lockfile{Kind: PNPM, Version: version, Importers: map[string]*Importer{}, Entries: map[string]*Entry{}}

	decode := func(key string, out any) error {
		if n := fields[key]; n != nil {
			if err := n.Decode(out); err != nil {
				return fmt.Errorf("lockfile: \"pnpm-lock.yaml\": %s: %w", key, err)
			}
		}
		return nil
	}
	importers := map[string]*pnpmImporter{}
	var packages, snapshots map[string]*pnpmPackage
	if err := decode("importers", &importers); err != nil {
		return nil, err
	}
	if fields["importers"] == nil {
		var root pnpmImporter
		if err := top.Decode(&root); err != nil {
			return nil, fmt.Errorf("lockfile: \"pnpm-lock.yaml\": %w", err)
		}
		importers["."] = &root
	}
	if err := decode("packages", &packages); err != nil {
		return nil, err
	}
	if err := decode("snapshots", &snapshots); err != nil {
		return nil, err
	}
	if !v9 {
		snapshots = packages // v6: one map holds both
	}

	// resolve turns a dependency's version as the lockfile writes it into
	// the key of its snapshot: "1.0.0" and "1.0.0(peer@2.0.0)" are the
	// dependency's own name at that version; "lodash@4.17.15" (v9) and
	// "/lodash@4.17.15" (v6) are aliases, written as the key itself.
	resolve := func(name, ref string) string {
		var cands []string
		if v9 {
			cands = []string{name + "@" + ref, ref}
		} else {
			cands = []string{"/" + name + "@" + ref, ref, "/" + ref}
		}
		for _, c := range cands {
			if _, ok := snapshots[c]; ok {
				return c
			}
		}
		return ""
	}
	edge := func(from, name, ref string) (Dep, bool) {
		if rel, ok := strings.CutPrefix(ref, "link:"); ok {
			// From an importer, relative to its directory; from a
			// package, to the lockfile's.
			return Dep{Name: name, Workspace: path.Join(cmp.Or(from, "."), rel)}, true
		}
		if id := resolve(name, ref); id != "" {
			return Dep{Name: name, Entry: id}, true
		}
		return Dep{}, false
	}
	edges := func(from string, maps ...map[string]string) []Dep {
		var names []string
		seen := map[string]string{}
		for _, m := range maps {
			for n, ref := range m {
				if _, dup := seen[n]; !dup {
					names = append(names, n)
					seen[n] = ref
				}
			}
		}
		slices.Sort(names)
		out := make([]Dep, 0, len(names))
		for _, n := range names {
			if d, ok := edge(from, n, seen[n]); ok {
				out = append(out, d)
			}
		}
		return out
	}
	refs := func(m map[string]pnpmRef) map[string]string {
		out := make(map[string]string, len(m))
		for n, r := range m {
			out[n] = r.Version
		}
		return out
	}
	for dir, imp := range importers {
		if imp == nil {
			imp = &pnpmImporter{}
		}
		dir = path.Clean(dir)
		l.Importers[dir] = &Importer{Deps: edges(dir, refs(imp.Dependencies), refs(imp.DevDependencies), refs(imp.OptionalDependencies))}
	}
	for id, snap := range snapshots {
		if snap == nil {
			snap = &pnpmPackage{}
		}
		base := pnpmBase(id)
		pkg := snap
		if v9 {
			pkg = packages[base]
			if pkg == nil {
				pkg = &pnpmPackage{}
			}
		}
		name, ver := pnpmNameVersion(base)
		if pkg.Name != "" {
			name = pkg.Name
		}
		if pkg.Version != "" {
			ver = pkg.Version
		}
		integrity, resolution := pnpmResolution(pkg.Resolution)
		l.Entries[id] = &Entry{Name: name, Version: ver, Integrity: integrity, Resolution: resolution,
			Deps: edges("", snap.Dependencies, snap.OptionalDependencies)}
	}

	// Without the links between workspace projects, a project's closure
	// would miss those of the projects it loads.
	var settings struct {
		ExcludeLinks bool `yaml:"excludeLinksFromLockfile"`
	}
	if n := fields["settings"]; n != nil && n.Decode(&settings) == nil && settings.ExcludeLinks {
		return nil, unsupported("pnpm-lock.yaml", "excludeLinksFromLockfile: the links between projects are not in it")
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k := top.Content[i].Value
		if pnpmNotGlobal[k] {
			continue
		}
		var v any
		if err := top.Content[i+1].Decode(&v); err != nil {
			return nil, fmt.Errorf("lockfile: \"pnpm-lock.yaml\": %s: %w", k, err)
		}
		l.Global = append(l.Global, k+"="+canonical(v))
	}
	slices.Sort(l.Global)
	return l, nil
}

// pnpmBase is a snapshot key without its peer (and patch) suffix: the key
// of its package.
func pnpmBase(id string) string {
	if i := strings.IndexByte(id, '('); i > 0 {
		return id[:i]
	}
	return id
}

// pnpmNameVersion splits "name@version", "@scope/name@version" or, v6,
// "/name@version".
func pnpmNameVersion(key string) (name, version string) {
	key = strings.TrimPrefix(key, "/")
	from := 0
	if strings.HasPrefix(key, "@") {
		from = 1
	}
	i := strings.IndexByte(key[from:], '@')
	if i < 0 {
		return key, ""
	}
	return key[:from+i], key[from+i+1:]
}

// pnpmResolution splits a package's resolution into its integrity and the
// rest, written canonically ("" for a registry package with only an
// integrity).
func pnpmResolution(r any) (integrity, rest string) {
	m, ok := r.(map[string]any)
	if !ok {
		if r == nil {
			return "", ""
		}
		return "", canonical(r)
	}
	if s, ok := m["integrity"].(string); ok {
		integrity = s
	}
	if len(m) == 1 && integrity != "" {
		return integrity, ""
	}
	other := make(map[string]any, len(m))
	for k, v := range m {
		if k != "integrity" {
			other[k] = v
		}
	}
	return integrity, canonical(other)
}

// canonical writes a decoded YAML or JSON value with sorted keys, so that
// the same value is always the same text.
func canonical(v any) string {
	var b strings.Builder
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Quote(k))
				b.WriteByte(':')
				write(v[k])
			}
			b.WriteByte('}')
		case map[any]any:
			m := make(map[string]any, len(v))
			for k, x := range v {
				m[fmt.Sprint(k)] = x
			}
			write(m)
		case []any:
			b.WriteByte('[')
			for i, x := range v {
				if i > 0 {
					b.WriteByte(',')
				}
				write(x)
			}
			b.WriteByte(']')
		case string:
			b.WriteString(strconv.Quote(v))
		case nil:
			b.WriteString("null")
		default:
			fmt.Fprint(&b, v)
		}
	}
	write(v)
	return b.String()
}
