package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vxrun/vx/internal/diag"
)

// manifest is what vx needs from one package.json.
type manifest struct {
	name    string // "" when absent or null
	version string
	scripts map[string]string
	// deps are the entries of dependencies, devDependencies,
	// optionalDependencies and peerDependencies, sorted by name, one per
	// name: for a name in several fields, the spec of the field pnpm
	// reads last (dependencies over optionalDependencies over
	// devDependencies over peerDependencies). An entry whose spec is not a
	// string is left out.
	deps []dep
	// packageManager is the "packageManager" field ("pnpm@9.1.0+sha..."),
	// "" when absent or not a string.
	packageManager string
	// hasWorkspaces reports a "workspaces" field that is neither absent nor
	// null; workspaces holds its patterns (possibly none).
	hasWorkspaces bool
	workspaces    []string
}

// depFields are the package.json fields whose keys name dependencies.
var depFields = [...]string{"dependencies", "devDependencies", "optionalDependencies", "peerDependencies"}

// depRank is the precedence of each of depFields when a name appears in
// several: pnpm merges peerDependencies, devDependencies,
// optionalDependencies and dependencies in that order, the last winning.
var depRank = [...]uint8{3, 1, 2, 0}

// A dep is one dependency entry: the key and its version spec as written.
type dep struct {
	name, spec string
}

// rawDep is a dep as read, before merging the fields.
type rawDep struct {
	dep
	rank uint8
	seq  int
}

// mergeDeps sorts raw entries by name and keeps, for each name, the one of
// the highest-ranked field, the last written within a field.
func mergeDeps(raw []rawDep) []dep {
	if len(raw) == 0 {
		return nil
	}
	sort.Slice(raw, func(i, j int) bool {
		a, b := raw[i], raw[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		return a.seq < b.seq
	})
	out := make([]dep, 0, len(raw))
	for i, r := range raw {
		if i+1 < len(raw) && raw[i+1].name == r.name {
			continue
		}
		out = append(out, r.dep)
	}
	return out
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseManifest reads a package.json's bytes. Field names are matched
// exactly (JSON is case-sensitive; npm ignores "Name"), a repeated key keeps
// its last value, and null counts as absent. Problems are *posError values.
//
// The common case goes through a lean scanner (parseManifestFast) that
// gives up on anything unusual; encoding/json then decides and words the
// errors. FuzzParseManifest checks that the two agree.
func parseManifest(data []byte) (*manifest, error) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if m, ok := parseManifestFast(data); ok {
		return m, nil
	}
	return parseManifestJSON(data)
}

// parseManifestJSON is parseManifest through encoding/json, for every input.
func parseManifestJSON(data []byte) (*manifest, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(data, err)
	}
	if top == nil {
		return nil, &posError{line: 1, col: 1, msg: "package.json must hold a JSON object, got null"}
	}
	m := &manifest{}
	field := func(key string) json.RawMessage {
		raw := top[key]
		if isNull(raw) {
			return nil
		}
		return raw
	}
	fieldErr := func(key, format string, args ...any) error {
		line, col := diag.Position(data, valueOffset(data, key))
		return &posError{line: line, col: col, msg: fmt.Sprintf("%q ", key) + fmt.Sprintf(format, args...)}
	}

	if raw := field("name"); raw != nil {
		if !utf8.Valid(raw) {
			return nil, fieldErr("name", "is not valid UTF-8")
		}
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, fieldErr("name", "must be a string, got %s", kindOf(raw))
		}
		if err := checkName(name); err != nil {
			return nil, fieldErr("name", "%s", err)
		}
		m.name = name
	}
	if raw := field("version"); raw != nil {
		if err := json.Unmarshal(raw, &m.version); err != nil {
			return nil, fieldErr("version", "must be a string, got %s", kindOf(raw))
		}
		if strings.ContainsRune(m.version, 0) {
			// It becomes npm_package_version in tasks' environments.
			return nil, fieldErr("version", "must not contain a NUL character")
		}
	}
	m.scripts = map[string]string{}
	if raw := field("scripts"); raw != nil {
		var scripts map[string]json.RawMessage
		if err := json.Unmarshal(raw, &scripts); err != nil {
			return nil, fieldErr("scripts", "must be an object, got %s", kindOf(raw))
		}
		bad, why := "", ""
		for k, v := range scripts {
			var s string
			problem := ""
			if err := json.Unmarshal(v, &s); err != nil {
				problem = "must be a string, got " + kindOf(v)
			} else if strings.ContainsRune(k, 0) || strings.ContainsRune(s, 0) {
				// Scripts run through a shell and land in the environment.
				problem = "must not contain a NUL character"
			}
			if problem != "" {
				if why == "" || k < bad { // report the first in order, whatever the map's order
					bad, why = k, problem
				}
				continue
			}
			m.scripts[k] = s
		}
		if why != "" {
			return nil, fieldErr("scripts", "holds script %q, which %s", bad, why)
		}
	}
	var deps []rawDep
	for i, key := range depFields {
		raw := field(key)
		if raw == nil {
			continue
		}
		var fd map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fd); err != nil {
			return nil, fieldErr(key, "must be an object, got %s", kindOf(raw))
		}
		for k, v := range fd {
			var spec string
			if json.Unmarshal(v, &spec) != nil {
				continue // not a string: no package manager reads it as a dependency
			}
			deps = append(deps, rawDep{dep: dep{k, spec}, rank: depRank[i]})
		}
	}
	m.deps = mergeDeps(deps)
	if raw := field("packageManager"); raw != nil {
		_ = json.Unmarshal(raw, &m.packageManager) // not a string: ignored, as corepack warns and goes on
	}
	if raw := field("workspaces"); raw != nil {
		const want = "must be an array of patterns or an object with a \"packages\" array"
		m.hasWorkspaces = true
		switch raw[0] {
		case '[':
			if err := json.Unmarshal(raw, &m.workspaces); err != nil {
				return nil, fieldErr("workspaces", "%s, got an array holding something other than strings", want)
			}
		case '{':
			var obj map[string]json.RawMessage
			_ = json.Unmarshal(raw, &obj) // valid: it was parsed above
			if pk := obj["packages"]; !isNull(pk) {
				if err := json.Unmarshal(pk, &m.workspaces); err != nil {
					return nil, fieldErr("workspaces", "%s, got \"packages\": %s", want, describeArray(pk))
				}
			}
		default:
			return nil, fieldErr("workspaces", "%s, got %s", want, kindOf(raw))
		}
	}
	return m, nil
}

// checkName rejects project names vx cannot carry safely into environment
// variables and command lines.
func checkName(name string) error {
	switch {
	case !utf8.ValidString(name) || strings.ContainsRune(name, utf8.RuneError):
		return errors.New("is not valid UTF-8")
	case strings.ContainsRune(name, 0):
		return errors.New("must not contain a NUL character")
	case strings.ContainsRune(name, '='):
		return errors.New("must not contain \"=\"")
	case strings.ContainsRune(name, '#'):
		// Task ids are "<project>#<task>": with no "#" in a project name,
		// the first "#" of an id always ends the project.
		return errors.New("must not contain \"#\" (vx task ids are <project>#<task>)")
	case name == "//":
		return errors.New("must not be \"//\" (vx's id of the workspace root)")
	}
	return nil
}

// jsonError turns an encoding/json error into a *posError with a position.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included; at the
		// end of the input there is no offending byte: point past the last.
		off := int(se.Offset) - 1
		if strings.HasPrefix(se.Error(), "unexpected end") {
			off = len(data)
		}
		line, col := diag.Position(data, off)
		return &posError{line: line, col: col, msg: "invalid JSON", err: se}
	case errors.As(err, &te):
		// Only the top-level value can have the wrong type: point at it.
		start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		line, col := diag.Position(data, start)
		return &posError{line: line, col: col, msg: "package.json must hold a JSON object, got " + article(te.Value)}
	}
	return &posError{msg: "invalid JSON", err: err}
}

// valueOffset returns the byte offset of the value of the last top-level key
// in data (a valid JSON object), or 0 when it cannot be found. Only error
// paths call it, so the second pass costs nothing on valid input.
func valueOffset(data []byte, key string) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0
	}
	off := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return off
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return off
		}
		if k, _ := t.(string); k == key {
			off = int(dec.InputOffset()) - len(raw)
		}
	}
	return off
}

func isNull(raw json.RawMessage) bool {
	return raw == nil || string(raw) == "null"
}

// kindOf names the JSON type of a raw value with its article.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// describeArray says what a value that should be an array of strings is.
func describeArray(raw json.RawMessage) string {
	if k := kindOf(raw); k != "an array" {
		return k
	}
	return "an array holding something other than strings"
}

// article prefixes an encoding/json type name ("array", "string", "number")
// with "a" or "an".
func article(s string) string {
	if s == "" {
		return "something else"
	}
	if strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

func sortUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}
