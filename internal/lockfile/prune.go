package lockfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Prune returns the lockfile called name, with content data, cut to the
// workspace projects in keep (directories as in [Lockfile.Importers]; the
// root "." is always kept) and the entries they can load: what a package
// manager's frozen install of the pruned workspace reads. projects are as
// for [ParseWorkspace] (yarn classic needs them; keep's projects and the
// root must be among them).
//
// The result is in the format's own text: the entries kept are copied as
// they were, byte for byte, so fields vx does not know survive; what goes
// is whole entries, and in yarn's keys the ranges only dropped projects
// asked for. A lockfile vx cannot read wraps [ErrUnsupported].
func Prune(name string, data []byte, projects []Project, keep []string) ([]byte, error) {
	l, err := ParseWorkspace(name, data, projects)
	if err != nil {
		return nil, err
	}
	dirs := append([]string{"."}, keep...)
	for _, d := range dirs {
		if l.Importers[d] == nil && d != "." {
			return nil, fmt.Errorf("lockfile: %s has no project %s (run the package manager's install)", strconv.Quote(name), strconv.Quote(d))
		}
	}
	dirs = l.WorkspaceClosure(dirs...)
	var out []byte
	switch l.Kind {
	case Yarn:
		out, err = pruneClassic(data, l, projects, dirs)
	case Berry:
		out, err = pruneBerry(data, l, dirs)
	case Bun:
		out, err = pruneBun(data, l, dirs)
	case NPM:
		out, err = pruneNPM(data, l, dirs)
	case PNPM:
		out, err = prunePNPM(data, l, dirs)
	default:
		return nil, unsupported(name, "pruning not supported")
	}
	if err != nil {
		return nil, err
	}
	if err := checkPruned(name, l, out, projects, dirs); err != nil {
		return nil, err
	}
	return out, nil
}

// checkPruned reads the pruned lockfile back: it must hold the projects
// kept and no other, and give each the same packages as the whole file did
// (name and version). Anything else is a layout vx misread, refused.
func checkPruned(name string, full *Lockfile, out []byte, projects []Project, dirs []string) error {
	keep := setOf(dirs)
	var kept []Project
	for _, p := range projects {
		if keep[p.Dir] {
			kept = append(kept, p)
		}
	}
	l, err := ParseWorkspace(name, out, kept)
	if err != nil {
		return unsupported(name, fmt.Sprintf("the pruned lockfile does not read back (%v)", err))
	}
	for d := range l.Importers {
		if !keep[d] {
			return unsupported(name, fmt.Sprintf("the pruned lockfile still holds the project %s", strconv.Quote(d)))
		}
	}
	for _, d := range dirs {
		if full.Importers[d] != nil && l.Importers[d] == nil {
			return unsupported(name, fmt.Sprintf("the pruned lockfile lost the project %s", strconv.Quote(d)))
		}
		want, got := closureVersions(full, d), closureVersions(l, d)
		if !slices.Equal(want, got) {
			return unsupported(name, fmt.Sprintf("the pruned lockfile resolves %s otherwise", strconv.Quote(d)))
		}
	}
	if n, m := len(full.Closure(dirs...)), len(l.Entries); m > n {
		return unsupported(name, fmt.Sprintf("the pruned lockfile keeps %d packages, %d are reached", m, n))
	}
	return nil
}

// closureVersions is a project's closure as sorted "name@version" (ids may
// differ between a full and a pruned yarn lockfile, whose keys lose specs).
func closureVersions(l *Lockfile, dir string) []string {
	var out []string
	for _, id := range l.Closure(dir) {
		if e := l.Entries[id]; e != nil {
			out = append(out, e.Name+"@"+e.Version)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// WorkspaceClosure returns dirs and every workspace project they depend on,
// transitively, sorted.
func (l *Lockfile) WorkspaceClosure(dirs ...string) []string {
	seen := map[string]bool{}
	stack := slices.Clone(dirs)
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[d] {
			continue
		}
		seen[d] = true
		imp := l.Importers[d]
		if imp == nil {
			continue
		}
		for _, dep := range imp.Deps {
			if dep.Workspace != "" {
				stack = append(stack, dep.Workspace)
			}
		}
		// entries can link back to projects too (a registry package
		// depending on a workspace one is rare, but bun and berry record it)
		for _, id := range l.Closure(d) {
			if e := l.Entries[id]; e != nil {
				for _, dep := range e.Deps {
					if dep.Workspace != "" {
						stack = append(stack, dep.Workspace)
					}
				}
			}
		}
	}
	return sortedKeys(seen)
}

// keepSpecs decides, for yarn's keys, which specs stay: a spec goes only
// when the projects and entries that go asked for it and none that stay
// did (a spec nobody names, such as one a resolution or a patch made, stays).
func keepSpecs(kept, dropped map[string]bool) func(string) bool {
	return func(s string) bool { return kept[s] || !dropped[s] }
}

// rewriteKey returns a yarn key line holding only the specs keep accepts,
// each written as it was; "" when none is left.
func rewriteKey(line string, berry bool, keep func(string) bool) (string, error) {
	key := strings.TrimSuffix(line, ":")
	if berry {
		quoted := strings.HasPrefix(key, `"`)
		if quoted {
			u, err := strconv.Unquote(key)
			if err != nil {
				return "", err
			}
			key = u
		}
		var out []string
		for _, s := range strings.Split(key, ",") {
			if s = strings.TrimSpace(s); keep(s) {
				out = append(out, s)
			}
		}
		if len(out) == 0 {
			return "", nil
		}
		k := strings.Join(out, ", ")
		if quoted {
			k = strconv.Quote(k)
		}
		return k + ":", nil
	}
	var out []string
	for _, raw := range splitOutsideQuotes(key) {
		raw = strings.TrimSpace(raw)
		s := raw
		if strings.HasPrefix(raw, `"`) {
			u, err := strconv.Unquote(raw)
			if err != nil {
				return "", err
			}
			s = u
		}
		if keep(s) {
			out = append(out, raw)
		}
	}
	if len(out) == 0 {
		return "", nil
	}
	return strings.Join(out, ", ") + ":", nil
}

// writeBlocks writes lines, the header (what comes before the first
// block) kept, then each block keepBlock returns a key line for, one blank
// line between blocks, as yarn writes them.
func writeBlocks(lines []string, blocks []yarnBlock, keyLine func(i int) (string, bool, error), sep string) ([]byte, error) {
	var b strings.Builder
	first := len(lines)
	if len(blocks) > 0 {
		first = blocks[0].start
	}
	header := strings.TrimRight(strings.Join(lines[:first], "\n"), "\n")
	b.WriteString(header)
	wrote := header != ""
	for i, bl := range blocks {
		key, ok, err := keyLine(i)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if wrote {
			b.WriteString("\n" + sep)
		}
		b.WriteString(key)
		for _, ln := range lines[bl.start+1 : bl.end] {
			b.WriteString("\n" + ln)
		}
		wrote = true
	}
	b.WriteString("\n")
	return []byte(b.String()), nil
}

func pruneClassic(data []byte, l *Lockfile, projects []Project, dirs []string) ([]byte, error) {
	entries, err := splitClassic(data)
	if err != nil {
		return nil, err
	}
	keepEntry := setOf(l.Closure(dirs...))
	keepDir := setOf(dirs)
	kept, dropped := map[string]bool{}, map[string]bool{}
	for _, p := range projects {
		m := dropped
		if keepDir[p.Dir] {
			m = kept
		}
		for name, rng := range p.Deps {
			m[name+"@"+rng] = true
		}
	}
	for _, e := range entries {
		m := dropped
		if keepEntry[classicID(e.specs)] {
			m = kept
		}
		for _, field := range []string{"dependencies", "optionalDependencies"} {
			for name, rng := range e.maps[field] {
				m[name+"@"+rng] = true
			}
		}
	}
	lines := splitLines(data)
	blocks := make([]yarnBlock, len(entries))
	for i, e := range entries {
		blocks[i] = e.yarnBlock
	}
	// Yarn classic writes two blank lines after its header comments and
	// one between entries.
	out, err := writeBlocks(lines, blocks, func(i int) (string, bool, error) {
		if !keepEntry[classicID(entries[i].specs)] {
			return "", false, nil
		}
		k, err := rewriteKey(lines[entries[i].start], false, keepSpecs(kept, dropped))
		return k, k != "", err
	}, "\n")
	if err != nil {
		return nil, err
	}
	return fixClassicHeader(out), nil
}

// fixClassicHeader puts back the two blank lines yarn classic writes after
// its header comments.
func fixClassicHeader(out []byte) []byte {
	i := bytes.Index(out, []byte("# yarn lockfile v1\n"))
	if i < 0 {
		return out
	}
	j := i + len("# yarn lockfile v1\n")
	rest := bytes.TrimLeft(out[j:], "\n")
	if len(rest) == 0 {
		return out
	}
	return append(append(append([]byte{}, out[:j]...), "\n\n"...), rest...)
}

func pruneBerry(data []byte, l *Lockfile, dirs []string) ([]byte, error) {
	lines, blocks, _, err := splitBerry(data)
	if err != nil {
		return nil, err
	}
	keepEntry := setOf(l.Closure(dirs...))
	keepDir := setOf(dirs)
	keepBlock := make([]bool, len(blocks))
	kept, dropped := map[string]bool{}, map[string]bool{}
	for i, b := range blocks {
		if b.meta {
			keepBlock[i] = true
			continue
		}
		id := classicID(b.specs)
		_, rng := specName(b.entry.Resolution)
		dir, isWS := strings.CutPrefix(rng, "workspace:")
		keepBlock[i] = keepEntry[id] || isWS && keepDir[dir]
		m := dropped
		if keepBlock[i] {
			m = kept
		}
		for name, r := range b.entry.Dependencies {
			m[name+"@"+r] = true
		}
		if isWS {
			kept[b.entry.Resolution] = true // a project's own spec stays while its entry does
		}
	}
	plain := make([]yarnBlock, len(blocks))
	for i, b := range blocks {
		plain[i] = b.yarnBlock
	}
	return writeBlocks(lines, plain, func(i int) (string, bool, error) {
		if !keepBlock[i] {
			return "", false, nil
		}
		if blocks[i].meta {
			return lines[blocks[i].start], true, nil
		}
		k, err := rewriteKey(lines[blocks[i].start], true, keepSpecs(kept, dropped))
		return k, k != "", err
	}, "\n")
}

func setOf(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

// pruneBun cuts bun.lock's text: the "workspaces" members and the
// "packages" members that go are removed, line by line, as bun lays them
// out (one member of "workspaces" per block at four spaces, one package per
// line at four spaces); any other layout is refused.
func pruneBun(data []byte, l *Lockfile, dirs []string) ([]byte, error) {
	keepEntry := setOf(l.Closure(dirs...))
	keepDir := setOf(dirs)
	f, err := readBun(data)
	if err != nil {
		return nil, err
	}
	keepPkg := map[string]bool{}
	for key, raw := range f.Packages {
		if keepEntry[key] {
			keepPkg[key] = true
			continue
		}
		p, err := decodeBunPackage(raw)
		if err != nil {
			return nil, err
		}
		if _, v := specName(p.ident); strings.HasPrefix(v, "workspace:") && keepDir[strings.TrimPrefix(v, "workspace:")] {
			keepPkg[key] = true
		}
	}
	lines := splitLines(data)
	var out []string
	section := ""
	memberKept := true
	notBun := func(i int) error {
		return unsupported("bun.lock", fmt.Sprintf("line %d is not laid out as bun writes it (run bun install to rewrite it)", i+1))
	}
	for i, ln := range lines {
		indent := len(ln) - len(strings.TrimLeft(ln, " "))
		body := strings.TrimSpace(ln)
		if body == "" {
			if section == "packages" {
				continue // written back between members below
			}
			if memberKept {
				out = append(out, ln)
			}
			continue
		}
		switch {
		case indent == 2 && strings.HasPrefix(body, `"`):
			key, err := lineKey(body)
			if err != nil {
				return nil, notBun(i)
			}
			section, memberKept = key, true
			out = append(out, ln)
			continue
		case indent <= 2:
			section, memberKept = "", true
			out = append(out, ln)
			continue
		}
		if section != "workspaces" && section != "packages" {
			out = append(out, ln)
			continue
		}
		if indent == 4 && strings.HasPrefix(body, `"`) {
			key, err := lineKey(body)
			if err != nil {
				return nil, notBun(i)
			}
			if section == "workspaces" {
				d := key
				if d == "" {
					d = "."
				}
				memberKept = keepDir[d]
			} else {
				if _, ok := f.Packages[key]; !ok {
					return nil, notBun(i)
				}
				memberKept = keepPkg[key]
				if memberKept && len(out) > 0 && !strings.HasSuffix(out[len(out)-1], "{") {
					out = append(out, "")
				}
			}
		} else if indent < 4 {
			return nil, notBun(i)
		}
		if memberKept {
			out = append(out, ln)
		}
	}
	return []byte(strings.Join(out, "\n") + "\n"), nil
}

// lineKey reads the JSON string a line starts with.
func lineKey(body string) (string, error) {
	end := closingQuote(body)
	if end < 0 {
		return "", fmt.Errorf("no key")
	}
	var s string
	err := json.Unmarshal([]byte(body[:end+1]), &s)
	return s, err
}

// pruneNPM cuts package-lock.json's "packages" to the root, the projects
// kept, their links under node_modules, and the entries they reach; every
// other member, and every kept member's fields, stay as they were. It is
// written as npm writes it (two-space indent, a final newline).
func pruneNPM(data []byte, l *Lockfile, dirs []string) ([]byte, error) {
	keepEntry := setOf(l.Closure(dirs...))
	keepDir := setOf(dirs)
	top, err := orderedMembers(data)
	if err != nil {
		return nil, fmt.Errorf("lockfile: \"package-lock.json\": %v", err)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range top {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m.key)
		b.WriteByte(':')
		if string(m.name) == "dependencies" {
			// lockfileVersion 2's tree for npm 6, the same installs nested
			v, err := pruneNPMTree(m.value, "", keepEntry, keepDir)
			if err != nil {
				return nil, fmt.Errorf("lockfile: \"package-lock.json\": dependencies: %v", err)
			}
			b.Write(v)
			continue
		}
		if string(m.name) != "packages" {
			b.Write(m.value)
			continue
		}
		pkgs, err := orderedMembers(m.value)
		if err != nil {
			return nil, fmt.Errorf("lockfile: \"package-lock.json\": packages: %v", err)
		}
		b.WriteByte('{')
		n := 0
		for _, p := range pkgs {
			key := string(p.name)
			keep := key == "" || keepDir[key] || keepEntry[key]
			if !keep {
				var link struct {
					Link     bool   `json:"link"`
					Resolved string `json:"resolved"`
				}
				if json.Unmarshal(p.value, &link) == nil && link.Link && keepDir[link.Resolved] {
					keep = true
				}
			}
			if !keep {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			b.Write(p.key)
			b.WriteByte(':')
			b.Write(p.value)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("lockfile: \"package-lock.json\": %v", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// pruneNPMTree cuts lockfileVersion 2's "dependencies" tree (name ->
// {version, requires, dependencies}) to the installs kept: the member a
// under prefix is the install prefix+"node_modules/a"; a workspace project's
// link ("version": "file:apps/web") stays when its project does.
func pruneNPMTree(data []byte, prefix string, keepEntry, keepDir map[string]bool) ([]byte, error) {
	members, err := orderedMembers(data)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, m := range members {
		path := prefix + "node_modules/" + string(m.name)
		var dep struct {
			Version string `json:"version"`
		}
		json.Unmarshal(m.value, &dep)
		dir, link := strings.CutPrefix(dep.Version, "file:")
		if !keepEntry[path] && !(link && keepDir[dir]) {
			continue
		}
		fields, err := orderedMembers(m.value)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(m.key)
		b.WriteString(":{")
		for i, f := range fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(f.key)
			b.WriteByte(':')
			if string(f.name) == "dependencies" {
				sub := path + "/"
				if link {
					sub = dir + "/" // a project's own installs are under its directory
				}
				v, err := pruneNPMTree(f.value, sub, keepEntry, keepDir)
				if err != nil {
					return nil, err
				}
				b.Write(v)
				continue
			}
			b.Write(f.value)
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// member is one member of a JSON object: its key as written, the key
// decoded, and its value, compacted.
type member struct {
	key, name, value []byte
}

// orderedMembers returns the members of the JSON object data, in order.
func orderedMembers(data []byte) ([]member, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			return nil, err
		}
		k, _ := json.Marshal(name)
		out = append(out, member{key: k, name: []byte(name), value: c.Bytes()})
	}
	return out, nil
}

// prunePNPM cuts pnpm-lock.yaml's text: in "importers" the projects that
// go, in "snapshots" (v9) the entries nothing kept reaches, and in
// "packages" those no kept entry is an instance of. Each member is a line
// at two spaces with its body below it; the members kept are copied as
// they were.
func prunePNPM(data []byte, l *Lockfile, dirs []string) ([]byte, error) {
	keepDir := setOf(dirs)
	keepEntry := map[string]bool{}
	for _, id := range l.Closure(dirs...) {
		keepEntry[id] = true
		keepEntry[strings.TrimPrefix(id, "/")] = true
		keepEntry[stripPeers(id)] = true
		keepEntry[strings.TrimPrefix(stripPeers(id), "/")] = true
	}
	lines := splitLines(data)
	var out []string
	section := ""
	memberKept := true
	pending := 0 // blank lines seen, written before the next kept line
	for i, ln := range lines {
		indent := len(ln) - len(strings.TrimLeft(ln, " "))
		body := strings.TrimSpace(ln)
		if body == "" {
			pending++
			continue
		}
		flush := func() {
			for ; pending > 0; pending-- {
				out = append(out, "")
			}
		}
		if indent == 0 {
			section, memberKept = strings.TrimSuffix(body, ":"), true
			flush()
			out = append(out, ln)
			continue
		}
		if section != "importers" && section != "packages" && section != "snapshots" {
			flush()
			out = append(out, ln)
			continue
		}
		if indent == 2 {
			key, err := yamlKey(body)
			if err != nil {
				return nil, unsupported("pnpm-lock.yaml", fmt.Sprintf("line %d is not laid out as pnpm writes it", i+1))
			}
			if section == "importers" {
				memberKept = keepDir[key]
			} else {
				memberKept = keepEntry[key]
			}
		}
		if memberKept {
			flush()
			out = append(out, ln)
		} else {
			pending = 0
		}
	}
	return []byte(strings.Join(out, "\n") + "\n"), nil
}

// yamlKey reads the mapping key of a line "key: ..." or "'key': ...".
func yamlKey(body string) (string, error) {
	var m map[string]any
	// "key:", "key: {…}" or "'key': value": the line is a one-key mapping
	if err := yamlUnmarshal([]byte(body), &m); err != nil || len(m) != 1 {
		return "", fmt.Errorf("not a key")
	}
	for key := range m {
		return key, nil
	}
	return "", fmt.Errorf("not a key")
}

// stripPeers drops pnpm's peer suffix: "a@1.0.0(b@2.0.0)" -> "a@1.0.0".
func stripPeers(id string) string {
	if i := strings.Index(id, "("); i > 0 {
		return id[:i]
	}
	return id
}
