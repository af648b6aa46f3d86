package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The three descriptions of a configuration: the TypeScript types of
// vx.config.ts (internal/release/npm/index.d.ts, shipped in @vxrun/vx),
// the JSON Schema of vx.json (vx.schema.json) and vx's own checks (this
// package). TestTypesAgree keeps them from drifting: the same keys at every
// level, each of the same type. (TestTypesCompile runs
// tsc on typed examples.)

// level is one object of the configuration in the three descriptions.
type level struct {
	iface  string   // the interface of index.d.ts
	schema []string // the path to its object schema in vx.schema.json
	keys   []string // the keys decode.go accepts
}

var levels = []level{
	{"Config", nil, topKeys},
	{"Task", []string{"$defs", "task"}, taskKeys},
	{"TaskEnv", []string{"$defs", "task", "properties", "env"}, envKeys},
	{"RemoteCache", []string{"properties", "remoteCache"}, rcKeys},
	{"ReadyWhen", []string{"$defs", "task", "properties", "readyWhen"}, readyKeys},
}

// TestTypesAgree: every key of every level is in the types, the schema
// and decode.go, with one type: the types' member type, the schema's, and
// decode.go accepting a value of that type and refusing one of another.
func TestTypesAgree(t *testing.T) {
	t.Parallel()
	ifaces := parseTypes(t, filepath.Join(repoRoot, "internal", "release", "npm", "index.d.ts"))
	var schema map[string]any
	data, err := os.ReadFile(filepath.Join(repoRoot, "vx.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	for _, l := range levels {
		members, ok := ifaces[l.iface]
		if !ok {
			t.Fatalf("index.d.ts has no interface %s", l.iface)
		}
		obj := dig(t, schema, l.schema)
		props, _ := obj["properties"].(map[string]any)
		typeKeys := slices.Sorted(mapKeys(members))
		if diff := cmp.Diff(slices.Sorted(slices.Values(l.keys)), typeKeys); diff != "" {
			t.Errorf("%s: decode.go's keys (-) and index.d.ts's (+):\n%s", l.iface, diff)
		}
		if diff := cmp.Diff(slices.Sorted(mapKeys(props)), typeKeys); diff != "" {
			t.Errorf("%s: vx.schema.json's keys (-) and index.d.ts's (+):\n%s", l.iface, diff)
		}
		for _, key := range typeKeys {
			// JSON has no undefined: a value of a map that may be undefined
			// is a key left out (as JSON.stringify leaves it out), so
			// Record<string, string | undefined> is JSON's Record<string,
			// string> (define: parseEnv's values may be undefined).
			tsType := strings.ReplaceAll(members[key], " | undefined>", ">")
			if got := schemaType(schema, props[key]); got != tsType {
				t.Errorf("%s.%s: index.d.ts says %s, vx.schema.json %s", l.iface, key, tsType, got)
			}
			probe(t, l.iface, key, tsType)
		}
	}
	// A project's file holds tasks only.
	if diff := cmp.Diff(map[string]string{"tasks": "Record<string, Task>"}, ifaces["ProjectConfig"]); diff != "" {
		t.Errorf("ProjectConfig (-want +got):\n%s", diff)
	}
	if _, err := DecodeValue("x", []byte(`{"tasks": {"build": {}}}`), true); err != nil {
		t.Errorf("a project's tasks: %v", err)
	}
	for _, other := range []string{"remoteCache", "$schema"} {
		if _, err := DecodeValue("x", []byte(`{"`+other+`": {}}`), true); err == nil {
			t.Errorf("a project's config accepts %q, ProjectConfig has no such key", other)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

var (
	ifaceRe  = regexp.MustCompile(`(?m)^export interface (\w+) \{$`)
	memberRe = regexp.MustCompile(`(?m)^  (\$?\w+)\?: (.+);$`)
)

// parseTypes reads the interfaces of a .d.ts: name -> member -> type.
func parseTypes(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	out := map[string]map[string]string{}
	for _, m := range ifaceRe.FindAllStringSubmatchIndex(src, -1) {
		name := src[m[2]:m[3]]
		end := strings.Index(src[m[1]:], "\n}")
		body := src[m[1] : m[1]+end]
		members := map[string]string{}
		for _, mm := range memberRe.FindAllStringSubmatch(body, -1) {
			members[mm[1]] = mm[2]
		}
		out[name] = members
	}
	return out
}

func dig(t *testing.T, v map[string]any, path []string) map[string]any {
	t.Helper()
	obj, ok := lookup(v, path)
	if !ok {
		t.Fatalf("vx.schema.json has no %s", strings.Join(path, "."))
	}
	return obj
}

func lookup(v map[string]any, path []string) (map[string]any, bool) {
	for _, p := range path {
		next, ok := v[p].(map[string]any)
		if !ok {
			return nil, false
		}
		v = next
	}
	return v, true
}

// schemaType spells a property's schema as index.d.ts would.
func schemaType(root map[string]any, prop any) string {
	p, _ := prop.(map[string]any)
	if ref, ok := p["$ref"].(string); ok {
		switch ref {
		case "#/$defs/task":
			return "Task"
		}
		return ref
	}
	if e, ok := p["enum"].([]any); ok {
		if len(e) == 1 {
			if v, ok := e[0].(string); ok {
				return `"` + v + `"` // a literal type: "trace": "strict"
			}
		}
		return "OutputLogs" // the one enumeration: index.d.ts names it
	}
	switch p["type"] {
	case "string":
		if _, ok := p["pattern"]; ok && p["description"] != nil && strings.Contains(p["description"].(string), "Go duration") {
			return "Duration" // index.d.ts names it
		}
		return "string"
	case "boolean":
		return "boolean"
	case "integer":
		return "number"
	case "array":
		items, _ := p["items"].(map[string]any)
		return "readonly " + schemaType(root, items) + "[]"
	case "object":
		if add, ok := p["additionalProperties"].(map[string]any); ok {
			return "Record<string, " + schemaType(root, add) + ">"
		}
		// An object of fixed keys: the interface of that level.
		for _, l := range levels {
			if obj, ok := lookup(root, l.schema); ok && l.schema != nil && equalJSON(obj, p) {
				return l.iface
			}
		}
	}
	return "?"
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// samples are a valid and an invalid value of each type of index.d.ts.
var samples = map[string][2]string{
	"string":                 {`"grpc://x:1"`, `1`},
	"boolean":                {`true`, `"true"`},
	"readonly string[]":      {`["a"]`, `"a"`},
	"Record<string, string>": {`{"A": "1"}`, `{"A": 1}`},
	"Record<string, Task>":   {`{"build": {}}`, `{"build": []}`},
	"Task":                   {`{}`, `[]`},
	"TaskEnv":                {`{"define": {}}`, `{"bogus": 1}`},
	"OutputLogs":             {`"new-only"`, `"quiet"`},
	`"strict"`:               {`"strict"`, `"loose"`},
	"RemoteCache":            {`{"url": "grpc://x:1"}`, `{"bogus": 1}`},
	"Duration":               {`"1h30m"`, `"ten minutes"`},
	"number":                 {`2`, `"2"`},
	"ReadyWhen":              {`{"port": 3000}`, `{"bogus": 1}`},
}

// keySamples replace samples for keys whose strings have a form of their own.
var keySamples = map[string][2]string{
	"ReadyWhen.url":     {`"http://localhost:3000/health"`, `3000`},
	"ReadyWhen.timeout": {`"5s"`, `5`},
}

// probe checks that decode.go accepts a value of the key's type at its
// level and refuses one of another type.
func probe(t *testing.T, iface, key, tsType string) {
	t.Helper()
	s, ok := samples[tsType]
	if ks, found := keySamples[iface+"."+key]; found {
		s, ok = ks, true
	}
	if !ok {
		t.Errorf("%s.%s: no sample of type %s", iface, key, tsType)
		return
	}
	wrap := func(v string) string {
		inner := `{"` + key + `": ` + v + `}`
		switch iface {
		case "Task":
			if key == "readyWhen" {
				inner = `{"persistent": true, "readyWhen": ` + v + `}`
			}
			return `{"tasks": {"t": ` + inner + `}}`
		case "ReadyWhen":
			if key == "timeout" {
				inner = `{"port": 1, "timeout": ` + v + `}`
			}
			return `{"tasks": {"t": {"persistent": true, "readyWhen": ` + inner + `}}}`
		case "TaskEnv":
			return `{"tasks": {"t": {"env": ` + inner + `}}}`
		case "RemoteCache":
			return `{"remoteCache": ` + inner + `}`
		}
		return inner
	}
	if _, err := DecodeValue("x", []byte(wrap(s[0])), false); err != nil {
		t.Errorf("%s.%s: decode.go refuses a %s: %v", iface, key, tsType, err)
	}
	if key == "$schema" {
		return // any string, and only a string: checked above and below
	}
	if _, err := DecodeValue("x", []byte(wrap(s[1])), false); err == nil {
		t.Errorf("%s.%s: decode.go accepts %s, not a %s", iface, key, s[1], tsType)
	}
}
