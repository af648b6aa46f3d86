package lockfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// bun.lock is JSON with trailing commas (JSONC without comments in what bun
// writes; comments are accepted too). lockfileVersion 0, 1 and 2 are read.
const bunMaxVersion = 2

// bunFile is the part of bun.lock vx reads.
type bunFile struct {
	LockfileVersion *int                       `json:"lockfileVersion"`
	Workspaces      map[string]bunWorkspace    `json:"workspaces"`
	Packages        map[string]json.RawMessage `json:"packages"`
	Overrides       json.RawMessage            `json:"overrides"`
	Patched         json.RawMessage            `json:"patchedDependencies"`
	Catalog         json.RawMessage            `json:"catalog"`
	Catalogs        json.RawMessage            `json:"catalogs"`
	Trusted         json.RawMessage            `json:"trustedDependencies"`
}

type bunWorkspace struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Dependencies         map[string]string `json:"dependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
}

// bunMeta is the object in a package's array: its own dependencies.
type bunMeta struct {
	Dependencies         map[string]string `json:"dependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
}

// bunPackage is one "packages" value: ["name@version", registry, {meta}, "integrity"]
// for a registry package, ["name@workspace:dir"] for a project, other
// shapes for git, tarball and folder dependencies.
type bunPackage struct {
	ident     string
	meta      bunMeta
	integrity string
	strs      []string
}

func decodeBunPackage(raw json.RawMessage) (*bunPackage, error) {
	var arr []json.RawMessage
	if err := json.Unmarshal(raw, &arr); err != nil || len(arr) == 0 {
		return nil, fmt.Errorf("not an array")
	}
	p := &bunPackage{}
	if err := json.Unmarshal(arr[0], &p.ident); err != nil || p.ident == "" {
		return nil, fmt.Errorf("no \"name@version\" first")
	}
	for _, el := range arr[1:] {
		t := bytes.TrimSpace(el)
		switch {
		case len(t) > 0 && t[0] == '{':
			if err := json.Unmarshal(t, &p.meta); err != nil {
				return nil, fmt.Errorf("bad dependencies")
			}
		case len(t) > 0 && t[0] == '"':
			var s string
			if err := json.Unmarshal(t, &s); err != nil {
				return nil, err
			}
			p.strs = append(p.strs, s)
			if strings.HasPrefix(s, "sha") && strings.Contains(s, "-") {
				p.integrity = s
			}
		}
	}
	return p, nil
}

// jsoncToJSON removes the comments and trailing commas of JSONC, outside
// strings, keeping every other byte (and so offsets within lines).
func jsoncToJSON(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(data) {
				j = len(data) - 1
			}
			out = append(out, data[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ',':
			j := i + 1
			for j < len(data) {
				if d := data[j]; d == ' ' || d == '\t' || d == '\n' || d == '\r' {
					j++
					continue
				}
				if data[j] == '/' && j+1 < len(data) && (data[j+1] == '/' || data[j+1] == '*') {
					// a comment after the comma: look past it
					if data[j+1] == '/' {
						for j < len(data) && data[j] != '\n' {
							j++
						}
					} else if end := bytes.Index(data[j+2:], []byte("*/")); end >= 0 {
						j += end + 4
					} else {
						j = len(data)
					}
					continue
				}
				break
			}
			if j < len(data) && (data[j] == '}' || data[j] == ']') {
				continue // a trailing comma
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

func readBun(data []byte) (*bunFile, error) {
	if len(data) > maxLockfile {
		return nil, unsupported("bun.lock", "larger than 512 MiB")
	}
	var f bunFile
	if err := json.Unmarshal(jsoncToJSON(data), &f); err != nil {
		return nil, fmt.Errorf("lockfile: \"bun.lock\": %v", err)
	}
	if f.LockfileVersion == nil || *f.LockfileVersion < 0 || *f.LockfileVersion > bunMaxVersion {
		v := "none"
		if f.LockfileVersion != nil {
			v = strconv.Itoa(*f.LockfileVersion)
		}
		return nil, unsupported("bun.lock", fmt.Sprintf("lockfileVersion %s (vx reads 0 to %d)", v, bunMaxVersion))
	}
	return &f, nil
}

// bunSegments splits a packages key ("a/@s/b/c") into package names
// (["a", "@s/b", "c"]).
func bunSegments(key string) []string {
	parts := strings.Split(key, "/")
	var out []string
	for i := 0; i < len(parts); i++ {
		if strings.HasPrefix(parts[i], "@") && i+1 < len(parts) {
			out = append(out, parts[i]+"/"+parts[i+1])
			i++
			continue
		}
		out = append(out, parts[i])
	}
	return out
}

func parseBun(data []byte) (*Lockfile, error) {
	f, err := readBun(data)
	if err != nil {
		return nil, err
	}
	l := &Lockfile{Kind: Bun, Version: strconv.Itoa(*f.LockfileVersion), Importers: map[string]*Importer{}, Entries: map[string]*Entry{}}
	for _, g := range []struct {
		name string
		raw  json.RawMessage
	}{{"overrides", f.Overrides}, {"patchedDependencies", f.Patched}, {"catalog", f.Catalog}, {"catalogs", f.Catalogs}, {"trustedDependencies", f.Trusted}} {
		if len(g.raw) > 0 && string(g.raw) != "null" {
			var b bytes.Buffer
			if json.Compact(&b, g.raw) == nil {
				l.Global = append(l.Global, g.name+"="+b.String())
			}
		}
	}
	pkgs := map[string]*bunPackage{}
	wsByName := map[string]string{} // a project's name -> its dir
	for dir, w := range f.Workspaces {
		d := dir
		if d == "" {
			d = "."
		}
		if w.Name != "" {
			wsByName[w.Name] = d
		}
	}
	for key, raw := range f.Packages {
		p, err := decodeBunPackage(raw)
		if err != nil {
			return nil, fmt.Errorf("lockfile: \"bun.lock\": package %s: %v", strconv.Quote(trimShow(key)), err)
		}
		pkgs[key] = p
		name, ver := specName(p.ident)
		if strings.HasPrefix(ver, "workspace:") {
			continue
		}
		res := p.ident
		if len(p.strs) > 0 && p.strs[0] != "" && p.strs[0] != p.integrity {
			res += " " + p.strs[0]
		}
		l.Entries[key] = &Entry{Name: name, Version: ver, Resolution: res, Integrity: p.integrity}
	}
	// resolve finds the package a dependency name means from the package
	// key "from" (its own nested copy first, then each ancestor's, then the
	// hoisted one), as node's lookup does in the tree bun lays out.
	resolve := func(from []string, name, rng string) (Dep, bool) {
		if strings.HasPrefix(rng, "workspace:") {
			if dir, ok := wsByName[name]; ok {
				return Dep{Name: name, Workspace: dir}, true
			}
		}
		for i := len(from); i >= 0; i-- {
			key := strings.Join(append(append([]string{}, from[:i]...), name), "/")
			p, ok := pkgs[key]
			if !ok {
				continue
			}
			if _, ver := specName(p.ident); strings.HasPrefix(ver, "workspace:") {
				return Dep{Name: name, Workspace: strings.TrimPrefix(ver, "workspace:")}, true
			}
			return Dep{Name: name, Entry: key}, true
		}
		return Dep{}, false
	}
	// depsOf resolves the required maps' dependencies (each must be in the
	// lockfile) and the optional ones' (optional and peer: absent when not
	// installed).
	var missing error
	depsOf := func(from []string, required, optional []map[string]string) []Dep {
		var out []Dep
		for i, m := range append(required, optional...) {
			for _, name := range sortedKeys(m) {
				d, ok := resolve(from, name, m[name])
				if ok {
					out = append(out, d)
				} else if i < len(required) && missing == nil {
					missing = unsupported("bun.lock", fmt.Sprintf("%s needs %s, which it has no entry for (run bun install)", strconv.Quote(strings.Join(from, "/")), strconv.Quote(name+"@"+m[name])))
				}
			}
		}
		return out
	}
	for key, p := range pkgs {
		e := l.Entries[key]
		if e == nil {
			continue
		}
		e.Deps = depsOf(bunSegments(key), []map[string]string{p.meta.Dependencies}, []map[string]string{p.meta.OptionalDependencies, p.meta.PeerDependencies})
	}
	for dir, w := range f.Workspaces {
		d := dir
		if d == "" {
			d = "."
		}
		var from []string
		if w.Name != "" && dir != "" {
			from = []string{w.Name}
		}
		l.Importers[d] = &Importer{Deps: depsOf(from, []map[string]string{w.Dependencies, w.DevDependencies}, []map[string]string{w.OptionalDependencies, w.PeerDependencies})}
	}
	if missing != nil {
		return nil, missing
	}
	return l, nil
}
