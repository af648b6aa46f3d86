package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// repoRoot is the repository's top directory, seen from this package.
var repoRoot = filepath.Join("..", "..")

// schemaCase is one vx.json found in the repository.
type schemaCase struct {
	name string // where it was found
	data []byte
}

// TestSchema checks vx.schema.json against vx itself: every vx.json in the
// docs, the examples and the test data that vx accepts validates, and every
// one vx rejects for its content (a wrong type, an unknown key, an invalid
// name) does not. Files vx cannot even parse (syntax, duplicate keys) are
// not JSON a validator can read and are left out.
func TestSchema(t *testing.T) {
	t.Parallel()
	schema := compileSchema(t)
	cases := collectSchemaCases(t)
	cases = append(cases, extraSchemaCases()...)
	accepted, rejected := 0, 0
	for _, c := range cases {
		root, serr := parseJSONC(c.data)
		if serr != nil || root == nil {
			continue // not JSON, or a file of comments only
		}
		inst, err := jsonValue(root)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_, derr := decode(root, false)
		verr := schema.Validate(inst)
		switch {
		case derr == nil:
			accepted++
			if verr != nil {
				t.Errorf("%s: vx accepts it, the schema does not:\n%s\n%v", c.name, c.data, verr)
			}
		default:
			rejected++
			if verr == nil {
				t.Errorf("%s: vx rejects it (%s), the schema accepts it:\n%s", c.name, derr.msg, c.data)
			}
		}
	}
	// The corpus must be worth something: docs, examples, scripts and the
	// fuzz seeds hold dozens of files.
	if accepted < 12 || rejected < 10 {
		t.Errorf("only %d accepted and %d rejected files checked; the corpus was not found", accepted, rejected)
	}
	t.Logf("%d files vx accepts, %d it rejects", accepted, rejected)
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(repoRoot, "vx.schema.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("vx.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("vx.schema.json")
	if err != nil {
		t.Fatalf("%s does not compile: %v", path, err)
	}
	return s
}

// collectSchemaCases gathers every vx.json of the repository: files named
// vx.json, vx.json sections of the testscript archives, json/jsonc blocks
// of the docs, and the seed corpus of FuzzParse.
func collectSchemaCases(t *testing.T) []schemaCase {
	t.Helper()
	var cases []schemaCase
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != repoRoot && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(repoRoot, path)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Name() == FileName:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			cases = append(cases, schemaCase{rel, data})
		case strings.HasSuffix(rel, ".txtar"):
			a, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if filepath.Base(f.Name) == FileName {
					cases = append(cases, schemaCase{rel + ":" + f.Name, f.Data})
				}
			}
		case strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md"), rel == "README.md":
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, block := range fencedBlocks(data, "json", "jsonc") {
				cases = append(cases, schemaCase{rel + " block " + strconv.Itoa(i+1), block})
			}
		case strings.HasPrefix(rel, "internal/config/testdata/fuzz/FuzzParse/"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b, err := fuzzBytes(data)
			if err != nil {
				return errors.New(rel + ": " + err.Error())
			}
			cases = append(cases, schemaCase{rel, b})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// fencedBlocks returns the fenced code blocks of a Markdown file in one of
// the languages (```json, ```ts).
func fencedBlocks(md []byte, langs ...string) [][]byte {
	var blocks [][]byte
	var cur *bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```") && slices.Contains(langs, trimmed[3:]):
			cur = new(bytes.Buffer)
		case cur != nil && trimmed == "```":
			blocks = append(blocks, cur.Bytes())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	return blocks
}

// fuzzBytes reads a "go test fuzz v1" file holding one []byte value.
func fuzzBytes(data []byte) ([]byte, error) {
	lines := strings.SplitN(strings.TrimSpace(string(data)), "\n", 2)
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, errors.New("not a fuzz corpus file")
	}
	v := strings.TrimSpace(lines[1])
	if !strings.HasPrefix(v, "[]byte(") || !strings.HasSuffix(v, ")") {
		return nil, errors.New("not a []byte value")
	}
	s, err := strconv.Unquote(v[len("[]byte(") : len(v)-1])
	return []byte(s), err
}

// extraSchemaCases covers what the files above may not: every key and
// type, and each kind of invalid name.
func extraSchemaCases() []schemaCase {
	in := []string{
		`{"$schema": "./vx.schema.json", "tasks": {"dev": {"persistent": true}, "web#dev": {"persistent": false, "dependsOn": ["^build"]}}}`,
		`{"tasks": {"@acme/web#build:prod": {"dependsOn": ["@acme/ui#build", "^build:lib", "gen:types"]}}}`,
		`{"tasks": {"build": {"env": {"passThrough": ["VITE_*", "X*", "Path"], "define": {"EMPTY": "", "É": "ü"}}}}}`,
		`{"tasks": {"dev": {"persistent": "true"}}}`,
		`{"tasks": {"dev": {"persistent": 1}}}`,
		`{"tasks": {"dev": {"persistent": null}}}`,
		`{"tasks": {"dev": {"Persistent": true}}}`,
		`{"tasks": {"build": {"env": {"passThrough": ["A", "*"]}}}}`,
		`{"tasks": {"build": {"env": {"passThrough": ["A*B"]}}}}`,
		`{"tasks": {"build": {"env": {"define": {"A": "x\u0000"}}}}}`,
		`{"tasks": {"build": {"dependsOn": ["^a#b"]}}}`,
		`{"tasks": {"a#^b": {}}}`,
		`{"tasks": {"build": {"dependsOn": ["a#b#c"]}}}`,
		`{"tasks": {"bu\tild": {}}}`,
		`{"tasks": {"build": {"env": null}}}`,
		`{"tasks": null}`,
		`"tasks"`,
		`{"tasks": {"build": {"outputs": ["dist/**", "!dist/**/*.map"], "inputs": ["src/**", "//tsconfig.base.json", "!**/*.test.ts"], "cache": true}, "test": {"outputs": [], "inputs": []}, "dev": {"cache": false}}}`,
		`{"tasks": {"build": {"outputs": "dist/**"}}}`,
		`{"tasks": {"build": {"outputs": ["/abs/dist"]}}}`,
		`{"tasks": {"build": {"outputs": ["//dist"]}}}`,
		`{"tasks": {"build": {"outputs": ["dist\\**"]}}}`,
		`{"tasks": {"build": {"outputs": [""]}}}`,
		`{"tasks": {"build": {"inputs": ["/etc/passwd"]}}}`,
		`{"tasks": {"build": {"inputs": [1]}}}`,
		`{"tasks": {"build": {"cache": "false"}}}`,
		`{"tasks": {"test": {"timeout": "10m", "retries": 2}, "e2e": {"timeout": "1h30m", "retries": 0}, "lint": {"timeout": "0"}}}`,
		`{"tasks": {"test": {"timeout": "1.5s"}}}`,
		`{"tasks": {"test": {"timeout": 600}}}`,
		`{"tasks": {"test": {"timeout": "ten"}}}`,
		`{"tasks": {"test": {"timeout": "-1s"}}}`,
		`{"tasks": {"test": {"timeout": "10"}}}`,
		`{"tasks": {"test": {"retries": "2"}}}`,
		`{"tasks": {"test": {"retries": -1}}}`,
		`{"tasks": {"test": {"retries": 11}}}`,
		`{"tasks": {"test": {"retries": 1.5}}}`,
		`{"tasks": {"dev": {"persistent": true, "retries": 1}}}`,
		`{"tasks": {"dev": {"persistent": true, "timeout": "1m"}}}`,
		`{"tasks": {"dev": {"persistent": false, "timeout": "1m", "retries": 1}}}`,
		`{"remoteCache": {"url": "grpcs://cache.example.com", "instance": "main"}, "tasks": {}}`,
		`{"remoteCache": {"url": "https://turbo.example.com/api", "instance": "team_1"}, "tasks": {}}`,
		`{"remoteCache": {}}`,
		`{"remoteCache": "grpcs://cache.example.com"}`,
		`{"remoteCache": {"url": 443}}`,
		`{"remoteCache": {"url": "grpcs://cache.example.com", "headers": {"Authorization": "Bearer x"}}}`,
	}
	cases := make([]schemaCase, len(in))
	for i, s := range in {
		cases[i] = schemaCase{"extra case " + strconv.Itoa(i+1), []byte(s)}
	}
	return cases
}

// jsonValue converts a parsed tree to the values the validator takes, with
// numbers kept exact.
func jsonValue(n *node) (any, error) {
	if n == nil {
		return nil, errors.New("empty document")
	}
	switch n.kind {
	case kindObject:
		m := make(map[string]any, len(n.members))
		for _, mem := range n.members {
			v, err := jsonValue(mem.val)
			if err != nil {
				return nil, err
			}
			m[mem.key] = v
		}
		return m, nil
	case kindArray:
		a := make([]any, len(n.elems))
		for i, e := range n.elems {
			v, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			a[i] = v
		}
		return a, nil
	case kindString:
		return n.str, nil
	case kindNumber:
		return json.Number(n.str), nil
	case kindBool:
		return n.boolean, nil
	case kindNull:
		return nil, nil
	}
	return nil, errors.New("unknown node kind")
}
