package lockfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Project is a workspace project as seen by a lockfile that does not record
// the workspace's projects itself: yarn classic's yarn.lock holds only the
// external packages, so the projects' own package.json files say what each
// one depends on. [ParseWorkspace] takes them.
type Project struct {
	Dir     string // slash-separated, relative to the root; "." for the root
	Name    string // the package.json "name"
	Version string // the package.json "version"
	// Deps are the package.json "dependencies", "devDependencies" and
	// "optionalDependencies" merged (name -> range; a later field wins, as
	// yarn installs it). "peerDependencies" are not in it: yarn 1 does not
	// install them (it warns of an unmet peer).
	Deps map[string]string
	// Also holds the other ranges of a name that several of those fields
	// name with different ranges (nil when none): each is resolved too, so
	// that a closure holds what either field installs.
	Also map[string][]string
}

// ManifestProject reads the package.json data of the project in dir (as
// in [Project].Dir) as yarn classic installs it: its name, version and the
// ranges of its "dependencies", "optionalDependencies" and
// "devDependencies" (a later field wins in Deps; a different range in an
// earlier one is kept in Also). A range that is not a string is left out.
func ManifestProject(dir string, data []byte) (Project, error) {
	var m struct {
		Name, Version                                       any
		Dependencies, OptionalDependencies, DevDependencies map[string]any
	}
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), &m); err != nil {
		return Project{}, fmt.Errorf("lockfile: %s: %v", strconv.Quote(path.Join(dir, "package.json")), err)
	}
	p := Project{Dir: dir, Deps: map[string]string{}}
	p.Name, _ = m.Name.(string)
	p.Version, _ = m.Version.(string)
	for _, deps := range []map[string]any{m.Dependencies, m.OptionalDependencies, m.DevDependencies} {
		for _, name := range sortedKeys(deps) {
			rng, ok := deps[name].(string)
			if !ok {
				continue
			}
			if was, ok := p.Deps[name]; ok && was != rng && !slices.Contains(p.Also[name], was) {
				if p.Also == nil {
					p.Also = map[string][]string{}
				}
				p.Also[name] = append(p.Also[name], was)
			}
			p.Deps[name] = rng
		}
	}
	return p, nil
}

// ParseWorkspace is [Parse] for a lockfile with the workspace's projects.
// Only yarn classic's yarn.lock needs them (its importers come from them; a
// project's dependency on another project is a link when the lockfile has no
// entry for its range, as yarn 1 resolves it); every other format records
// its projects and ignores projects. [Parse] of a yarn classic lockfile,
// without projects, wraps [ErrUnsupported]: an importer-less answer would
// give every project an empty closure.
func ParseWorkspace(name string, data []byte, projects []Project) (*Lockfile, error) {
	if isYarnLock(name) && !isBerry(data) {
		return parseYarnClassic(data, projects, false)
	}
	return Parse(name, data)
}

// ParseWorkspacePartial is [ParseWorkspace], but a yarn classic project
// whose manifest names a range the lockfile has no entry for (the lockfile
// was not installed since the manifest changed) is no error: it has no
// importer and [Lockfile.Stale] says why, so that a closure that reaches it
// is not trusted ([Lockfile.Describe] is not ok) while the other projects'
// are. The task cache reads yarn classic's lockfile so.
func ParseWorkspacePartial(name string, data []byte, projects []Project) (*Lockfile, error) {
	if isYarnLock(name) && !isBerry(data) {
		return parseYarnClassic(data, projects, true)
	}
	return Parse(name, data)
}

// NeedsProjects reports whether the lockfile called name, with content
// data, is read with the workspace's projects ([ParseWorkspace]): yarn
// classic's yarn.lock.
func NeedsProjects(name string, data []byte) bool {
	return isYarnLock(name) && !isBerry(data)
}

func isYarnLock(name string) bool {
	i := strings.LastIndexAny(name, `/\`)
	return name[i+1:] == "yarn.lock"
}

// isBerry reports a yarn.lock of yarn 2 or later: it has a top-level
// __metadata key.
func isBerry(data []byte) bool {
	return bytes.HasPrefix(data, []byte("__metadata:")) || bytes.Contains(data, []byte("\n__metadata:"))
}

// parseYarn reads yarn.lock: yarn berry's by itself; yarn classic's needs the
// projects (see ParseWorkspace).
func parseYarn(data []byte) (*Lockfile, error) {
	if isBerry(data) {
		return parseBerry(data)
	}
	if _, err := splitClassic(data); err != nil {
		return nil, err
	}
	return nil, unsupported("yarn.lock", "yarn classic lists no workspace projects: read it with the projects' manifests (ParseWorkspace)")
}

// yarnBlock is one top-level entry of a yarn.lock: its specs (the
// comma-separated keys, unquoted) and the lines it spans.
type yarnBlock struct {
	specs      []string
	start, end int // lines [start, end) of the file, the key line first
}

// maxLockfile bounds what the readers accept.
const maxLockfile = 512 << 20

// splitLines splits data into lines without their "\n" (and "\r").
func splitLines(data []byte) []string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// topLevelBlocks splits a yarn.lock (either kind) into its top-level
// entries: a line starting at column 0 that is not a comment or blank starts
// one, indented lines continue it.
func topLevelBlocks(lines []string) ([]yarnBlock, error) {
	var blocks []yarnBlock
	for i, ln := range lines {
		if ln == "" || strings.HasPrefix(ln, "#") {
			if len(blocks) > 0 && blocks[len(blocks)-1].end == 0 {
				blocks[len(blocks)-1].end = i
			}
			continue
		}
		if ln[0] == ' ' || ln[0] == '\t' {
			if len(blocks) == 0 {
				return nil, fmt.Errorf("line %d: indented line before any entry", i+1)
			}
			if blocks[len(blocks)-1].end != 0 {
				return nil, fmt.Errorf("line %d: indented line after a blank line", i+1)
			}
			continue
		}
		if len(blocks) > 0 && blocks[len(blocks)-1].end == 0 {
			blocks[len(blocks)-1].end = i
		}
		if !strings.HasSuffix(ln, ":") {
			// yarn classic writes "key value" lines at the top level only
			// for nothing it has today; refuse rather than guess.
			if !strings.Contains(ln, ":") {
				return nil, fmt.Errorf("line %d: %s is not an entry", i+1, strconv.Quote(trimShow(ln)))
			}
		}
		blocks = append(blocks, yarnBlock{start: i})
	}
	if len(blocks) > 0 && blocks[len(blocks)-1].end == 0 {
		blocks[len(blocks)-1].end = len(lines)
	}
	return blocks, nil
}

func trimShow(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}

// splitSpecs splits a key line ("a@^1, \"b@npm:c@2\":") into its specs.
func splitSpecs(key string) ([]string, error) {
	key = strings.TrimSuffix(key, ":")
	var specs []string
	for _, part := range splitOutsideQuotes(key) {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, `"`) {
			u, err := strconv.Unquote(part)
			if err != nil {
				return nil, fmt.Errorf("bad quoted key %s", strconv.Quote(trimShow(part)))
			}
			part = u
		}
		if part == "" {
			return nil, fmt.Errorf("empty key")
		}
		specs = append(specs, part)
	}
	return specs, nil
}

// splitOutsideQuotes splits s at commas outside double quotes.
func splitOutsideQuotes(s string) []string {
	var out []string
	in := false
	start := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if in {
				i++
			}
		case '"':
			in = !in
		case ',':
			if !in {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// specName returns the package name of a spec "name@range" (a scoped name
// keeps its leading "@").
func specName(spec string) (name, rng string) {
	i := strings.Index(spec[min(1, len(spec)):], "@")
	if i < 0 {
		return spec, ""
	}
	i++
	return spec[:i], spec[i+1:]
}

// ---- yarn classic ----

// classicEntry is a yarn classic entry's fields.
type classicEntry struct {
	yarnBlock
	fields map[string]string            // version, resolved, integrity, ...
	maps   map[string]map[string]string // dependencies, optionalDependencies
}

// splitClassic parses a yarn classic lockfile into its entries.
func splitClassic(data []byte) ([]*classicEntry, error) {
	if len(data) > maxLockfile {
		return nil, unsupported("yarn.lock", "larger than 512 MiB")
	}
	lines := splitLines(data)
	if !bytes.Contains(data, []byte("# yarn lockfile v1")) {
		return nil, unsupported("yarn.lock", "neither \"# yarn lockfile v1\" nor __metadata (a yarn version vx does not know)")
	}
	blocks, err := topLevelBlocks(lines)
	if err != nil {
		return nil, fmt.Errorf("lockfile: \"yarn.lock\": %w", err)
	}
	var out []*classicEntry
	for _, b := range blocks {
		e := &classicEntry{yarnBlock: b, fields: map[string]string{}, maps: map[string]map[string]string{}}
		specs, err := splitSpecs(lines[b.start])
		if err != nil {
			return nil, fmt.Errorf("lockfile: \"yarn.lock\": line %d: %v", b.start+1, err)
		}
		e.specs = specs
		var cur map[string]string
		for i := b.start + 1; i < b.end; i++ {
			ln := lines[i]
			indent := len(ln) - len(strings.TrimLeft(ln, " "))
			body := strings.TrimSpace(ln)
			if body == "" || strings.HasPrefix(body, "#") {
				continue
			}
			k, v, err := classicKV(body)
			if err != nil {
				return nil, fmt.Errorf("lockfile: \"yarn.lock\": line %d: %v", i+1, err)
			}
			switch {
			case indent <= 2 && strings.HasSuffix(body, ":") && v == "":
				cur = map[string]string{}
				e.maps[strings.TrimSuffix(k, ":")] = cur
			case indent <= 2:
				cur = nil
				e.fields[k] = v
			case cur != nil:
				cur[k] = v
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// classicKV splits `key "value"`, `"key" value` or `key:` into key and value.
func classicKV(s string) (string, string, error) {
	var key, rest string
	if strings.HasPrefix(s, `"`) {
		end := closingQuote(s)
		if end < 0 {
			return "", "", fmt.Errorf("unterminated quote")
		}
		k, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return "", "", fmt.Errorf("bad quoted key")
		}
		key, rest = k, strings.TrimSpace(s[end+1:])
		if rest == ":" {
			return key + ":", "", nil
		}
	} else {
		var ok bool
		key, rest, ok = strings.Cut(s, " ")
		if !ok {
			return key, "", nil
		}
		rest = strings.TrimSpace(rest)
	}
	if strings.HasPrefix(rest, `"`) {
		v, err := strconv.Unquote(rest)
		if err != nil {
			return "", "", fmt.Errorf("bad quoted value")
		}
		return key, v, nil
	}
	return key, rest, nil
}

// closingQuote returns the index of the quote closing the one at s[0], -1
// when there is none.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// classicID is a yarn classic entry's id in Lockfile.Entries: its specs,
// joined as on its key line.
func classicID(specs []string) string { return strings.Join(specs, ", ") }

func parseYarnClassic(data []byte, projects []Project, partial bool) (*Lockfile, error) {
	entries, err := splitClassic(data)
	if err != nil {
		return nil, err
	}
	l := &Lockfile{Kind: Yarn, Version: "1", Importers: map[string]*Importer{}, Entries: map[string]*Entry{}}
	bySpec := map[string]string{}
	for _, e := range entries {
		id := classicID(e.specs)
		for _, s := range e.specs {
			bySpec[s] = id
		}
		name, _ := specName(e.specs[0])
		if r := e.fields["resolved"]; strings.Contains(r, "/-/") {
			// an alias ("ms-old@npm:ms@2"): the real name is in the tarball URL
			if _, rng := specName(e.specs[0]); strings.HasPrefix(rng, "npm:") {
				name, _ = specName(strings.TrimPrefix(rng, "npm:"))
			}
		}
		l.Entries[id] = &Entry{Name: name, Version: e.fields["version"], Resolution: e.fields["resolved"], Integrity: e.fields["integrity"]}
	}
	byName := map[string]string{}
	for _, p := range projects {
		if p.Name != "" {
			byName[p.Name] = p.Dir
		}
	}
	resolve := func(name, rng string) (Dep, bool) {
		if id, ok := bySpec[name+"@"+rng]; ok {
			return Dep{Name: name, Entry: id}, true
		}
		if dir, ok := byName[name]; ok {
			return Dep{Name: name, Workspace: dir}, true
		}
		return Dep{}, false
	}
	for _, e := range entries {
		ent := l.Entries[classicID(e.specs)]
		for _, field := range []string{"dependencies", "optionalDependencies"} {
			for _, name := range sortedKeys(e.maps[field]) {
				d, ok := resolve(name, e.maps[field][name])
				if !ok {
					if field == "optionalDependencies" {
						continue
					}
					return nil, unsupported("yarn.lock", fmt.Sprintf("%s needs %s, which it has no entry for (run yarn install)", strconv.Quote(e.specs[0]), strconv.Quote(name+"@"+e.maps[field][name])))
				}
				ent.Deps = append(ent.Deps, d)
			}
		}
	}
projects:
	for _, p := range projects {
		imp := &Importer{}
		for _, name := range sortedKeys(p.Deps) {
			for i, rng := range append([]string{p.Deps[name]}, p.Also[name]...) {
				d, ok := resolve(name, rng)
				if !ok {
					why := fmt.Sprintf("%s depends on %s, which the lockfile has no entry for (run yarn install)", strconv.Quote(p.Dir), strconv.Quote(name+"@"+rng))
					if !partial {
						return nil, unsupported("yarn.lock", why)
					}
					if l.Stale == nil {
						l.Stale = map[string]string{}
					}
					l.Stale[p.Dir] = why
					continue projects
				}
				if i == 0 || !slices.Contains(imp.Deps, d) {
					imp.Deps = append(imp.Deps, d)
				}
			}
		}
		l.Importers[p.Dir] = imp
	}
	return l, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ---- yarn berry ----

// berryEntry is the part of a yarn berry entry vx reads.
type berryEntry struct {
	Version              string            `yaml:"version"`
	Resolution           string            `yaml:"resolution"`
	Checksum             string            `yaml:"checksum"`
	Dependencies         map[string]string `yaml:"dependencies"`
	PeerDependencies     map[string]string `yaml:"peerDependencies"`
	OptionalDependencies map[string]string `yaml:"optionalDependencies"`
	LinkType             string            `yaml:"linkType"`
}

type berryBlock struct {
	yarnBlock
	meta  bool
	entry berryEntry
	raw   map[string]any // __metadata only
}

// Berry lockfile versions vx reads: __metadata.version 4 (yarn 2) to 10
// (yarn 4.x today).
const berryMinVersion, berryMaxVersion = 4, 10

func splitBerry(data []byte) ([]string, []*berryBlock, string, error) {
	if len(data) > maxLockfile {
		return nil, nil, "", unsupported("yarn.lock", "larger than 512 MiB")
	}
	lines := splitLines(data)
	blocks, err := topLevelBlocks(lines)
	if err != nil {
		return nil, nil, "", fmt.Errorf("lockfile: \"yarn.lock\": %w", err)
	}
	var out []*berryBlock
	version := ""
	for _, b := range blocks {
		bb := &berryBlock{yarnBlock: b}
		if key, ok := berryKey(lines[b.start]); berryFast && ok && key != "__metadata" && fastBerryEntry(lines[b.start+1:b.end], &bb.entry) {
			for _, s := range strings.Split(key, ",") {
				s = strings.TrimSpace(s)
				if s == "" {
					return nil, nil, "", fmt.Errorf("lockfile: \"yarn.lock\": line %d: empty key", b.start+1)
				}
				bb.specs = append(bb.specs, s)
			}
			out = append(out, bb)
			continue
		}
		bb.entry = berryEntry{}
		text := strings.Join(lines[b.start:b.end], "\n")
		var doc map[string]yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc) != 1 {
			return nil, nil, "", fmt.Errorf("lockfile: \"yarn.lock\": line %d: not a YAML entry", b.start+1)
		}
		for key, node := range doc {
			if key == "__metadata" {
				bb.meta = true
				var m struct {
					Version any `yaml:"version"`
				}
				if err := node.Decode(&m); err != nil {
					return nil, nil, "", fmt.Errorf("lockfile: \"yarn.lock\": line %d: bad __metadata", b.start+1)
				}
				version = fmt.Sprint(m.Version)
				continue
			}
			if err := node.Decode(&bb.entry); err != nil {
				return nil, nil, "", fmt.Errorf("lockfile: \"yarn.lock\": line %d: bad entry %s", b.start+1, strconv.Quote(trimShow(key)))
			}
			for _, s := range strings.Split(key, ",") {
				s = strings.TrimSpace(s)
				if s == "" {
					return nil, nil, "", fmt.Errorf("lockfile: \"yarn.lock\": line %d: empty key", b.start+1)
				}
				bb.specs = append(bb.specs, s)
			}
		}
		out = append(out, bb)
	}
	n, err := strconv.Atoi(version)
	if err != nil || n < berryMinVersion || n > berryMaxVersion {
		return nil, nil, "", unsupported("yarn.lock", fmt.Sprintf("__metadata version %s (vx reads %d to %d)", strconv.Quote(version), berryMinVersion, berryMaxVersion))
	}
	return lines, out, version, nil
}

// berryFast enables fastBerryEntry (tests compare it with the YAML reading).
var berryFast = true

// berryKey reads a berry entry's key line: "key:" or "\"key\":".
func berryKey(line string) (string, bool) {
	k, ok := strings.CutSuffix(line, ":")
	if !ok || k == "" {
		return "", false
	}
	if k[0] == '"' {
		u, err := strconv.Unquote(k)
		return u, err == nil
	}
	if strings.ContainsAny(k[:1], "'{[&*!|>%@`#-?") || strings.Contains(k, ": ") || strings.Contains(k, " #") {
		return "", false
	}
	return k, true
}

// fastBerryEntry reads an entry's body as yarn writes it (two spaces for
// its fields, four for a map's members, double-quoted or plain scalars)
// without a YAML parser: a large yarn.lock has thousands of entries. Any
// other shape returns false and the entry is read as YAML.
func fastBerryEntry(lines []string, e *berryEntry) bool {
	var cur map[string]string
	ignore := map[string]string{} // a map vx does not read (bin, dependenciesMeta, conditions' maps)
	for _, ln := range lines {
		body := strings.TrimLeft(ln, " ")
		if body == "" || body[0] == '#' {
			continue
		}
		indent := len(ln) - len(body)
		if indent > 4 {
			if cur == nil {
				return false
			}
			continue // deeper: dependenciesMeta's members' fields
		}
		k, v, ok := berryKV(body)
		if !ok {
			return false
		}
		switch indent {
		case 2:
			cur = nil
			if v == "" {
				switch k {
				case "dependencies":
					e.Dependencies = map[string]string{}
					cur = e.Dependencies
				case "peerDependencies":
					e.PeerDependencies = map[string]string{}
					cur = e.PeerDependencies
				case "optionalDependencies":
					e.OptionalDependencies = map[string]string{}
					cur = e.OptionalDependencies
				default:
					cur = ignore
				}
				continue
			}
			switch k {
			case "version":
				e.Version = v
			case "resolution":
				e.Resolution = v
			case "checksum":
				e.Checksum = v
			case "linkType":
				e.LinkType = v
			}
		case 4:
			if cur == nil {
				return false
			}
			cur[k] = v
		default:
			return false
		}
	}
	return true
}

// berryKV splits `key: value`, `"key": "value"` or `key:`; false for any
// YAML beyond that (flow collections, single quotes, anchors, block
// scalars).
func berryKV(body string) (string, string, bool) {
	var key, rest string
	if body[0] == '"' {
		end := closingQuote(body)
		if end < 0 {
			return "", "", false
		}
		k, err := strconv.Unquote(body[:end+1])
		if err != nil {
			return "", "", false
		}
		key, rest = k, body[end+1:]
		if !strings.HasPrefix(rest, ":") {
			return "", "", false
		}
		rest = rest[1:]
	} else {
		i := strings.Index(body, ":")
		if i <= 0 {
			return "", "", false
		}
		key, rest = body[:i], body[i+1:]
		if strings.ContainsAny(key[:1], "'{[&*!|>%@`-?") {
			return "", "", false
		}
	}
	if rest == "" {
		return key, "", true
	}
	if rest[0] != ' ' {
		return "", "", false
	}
	v := strings.TrimSpace(rest)
	if v == "" {
		return key, "", true
	}
	switch v[0] {
	case '"':
		u, err := strconv.Unquote(v)
		if err != nil {
			return "", "", false
		}
		return key, u, true
	case '\'', '{', '[', '&', '*', '!', '|', '>', '%', '@', '`', '#':
		return "", "", false
	}
	if strings.Contains(v, " #") || strings.Contains(v, ": ") || strings.HasSuffix(v, ":") || strings.ContainsAny(v[:1], "-?:,]}") || v == "~" || v == "null" {
		return "", "", false
	}
	return key, v, true
}

func parseBerry(data []byte) (*Lockfile, error) {
	_, blocks, version, err := splitBerry(data)
	if err != nil {
		return nil, err
	}
	l := &Lockfile{Kind: Berry, Version: version, Importers: map[string]*Importer{}, Entries: map[string]*Entry{}}
	bySpec := map[string]string{}
	wsDir := map[string]string{} // entry id -> workspace dir
	var ids []string
	for _, b := range blocks {
		if b.meta {
			continue
		}
		id := classicID(b.specs)
		ids = append(ids, id)
		for _, s := range b.specs {
			bySpec[s] = id
		}
		name, rng := specName(b.entry.Resolution)
		if strings.HasPrefix(rng, "workspace:") {
			wsDir[id] = strings.TrimPrefix(rng, "workspace:")
			continue
		}
		l.Entries[id] = &Entry{Name: name, Version: b.entry.Version, Resolution: b.entry.Resolution, Integrity: b.entry.Checksum}
	}
	byName := map[string][]string{} // package name -> the ids of its entries
	for _, id := range ids {
		if _, ws := wsDir[id]; !ws {
			name, _ := specName(bySpecFirst(id))
			byName[name] = append(byName[name], id)
		}
	}
	dep := func(name, rng string) (Dep, bool) {
		id, ok := bySpec[name+"@"+rng]
		if !ok {
			// A "resolutions" override in the root package.json: the
			// dependent still lists its own range, the lockfile has only
			// the overriding one. One entry of that name is the one;
			// with several, vx cannot tell which (the caller falls back).
			if ids := byName[name]; len(ids) == 1 {
				id, ok = ids[0], true
			}
		}
		if !ok {
			return Dep{}, false
		}
		if dir, ok := wsDir[id]; ok {
			return Dep{Name: name, Workspace: dir}, true
		}
		return Dep{Name: name, Entry: id}, true
	}
	for _, b := range blocks {
		if b.meta {
			continue
		}
		id := classicID(b.specs)
		var deps []Dep
		for _, name := range sortedKeys(b.entry.Dependencies) {
			d, ok := dep(name, b.entry.Dependencies[name])
			if !ok {
				return nil, unsupported("yarn.lock", fmt.Sprintf("%s needs %s, which it has no entry for (run yarn install)", strconv.Quote(b.specs[0]), strconv.Quote(name+"@"+b.entry.Dependencies[name])))
			}
			deps = append(deps, d)
		}
		// A patch: entry builds on the entry it patches (both are in the
		// lockfile, and yarn resolves both): each reaches the other.
		for _, s := range b.specs {
			if inner, ok := patchInner(s); ok {
				if d, ok := dep(specName(inner)); ok {
					deps = append(deps, d)
					if e := l.Entries[d.Entry]; e != nil {
						e.Deps = append(e.Deps, Dep{Name: d.Name, Entry: id})
					}
				}
			}
		}
		if dir, ok := wsDir[id]; ok {
			l.Importers[dir] = &Importer{Deps: append(l.importerDeps(dir), deps...)}
			continue
		}
		l.Entries[id].Deps = append(l.Entries[id].Deps, deps...)
	}
	return l, nil
}

func (l *Lockfile) importerDeps(dir string) []Dep {
	if imp := l.Importers[dir]; imp != nil {
		return imp.Deps
	}
	return nil
}

// bySpecFirst returns the first spec of an entry id.
func bySpecFirst(id string) string {
	first, _, _ := strings.Cut(id, ", ")
	return first
}

// patchInner returns the descriptor a berry patch: spec patches:
// "a@patch:a@npm%3A1.0.0#./x.patch::locator=..." -> "a@npm:1.0.0".
func patchInner(spec string) (string, bool) {
	_, rng := specName(spec)
	rest, ok := strings.CutPrefix(rng, "patch:")
	if !ok {
		return "", false
	}
	inner, _, _ := strings.Cut(rest, "#")
	u, err := url.PathUnescape(inner)
	if err != nil {
		return "", false
	}
	return u, true
}

func yamlUnmarshal(data []byte, v any) error { return yaml.Unmarshal(data, v) }
