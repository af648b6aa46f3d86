package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var cmpManifest = cmp.AllowUnexported(manifest{})

func TestParseManifest(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *manifest
	}{
		{"empty object", `{}`, &manifest{scripts: map[string]string{}}},
		{"fields", `{
			"name": "@s/web", "version": "1.0.0",
			"scripts": {"build": "tsc", "test": ""},
			"dependencies": {"b": "^1", "a": "workspace:*"},
			"devDependencies": {"c": "*", "a": "1"},
			"optionalDependencies": {"d": "*"},
			"peerDependencies": {"e": "*"},
			"bundleDependencies": ["f"]
		}`, &manifest{
			name: "@s/web", version: "1.0.0",
			scripts: map[string]string{"build": "tsc", "test": ""},
			deps:    []string{"a", "b", "c", "d", "e"},
		}},
		{"nulls are absent", `{"name": null, "version": null, "scripts": null, "dependencies": null, "workspaces": null}`,
			&manifest{scripts: map[string]string{}}},
		{"exact keys only", `{"Name": "x", "SCRIPTS": {"a": 1}}`, &manifest{scripts: map[string]string{}}},
		{"last duplicate key wins", `{"name": "a", "name": "b"}`, &manifest{name: "b", scripts: map[string]string{}}},
		{"byte order mark", "\xef\xbb\xbf{\"name\": \"bom\"}", &manifest{name: "bom", scripts: map[string]string{}}},
		{"workspaces array", `{"workspaces": ["a/*", "!a/b"]}`,
			&manifest{scripts: map[string]string{}, hasWorkspaces: true, workspaces: []string{"a/*", "!a/b"}}},
		{"workspaces empty array", `{"workspaces": []}`,
			&manifest{scripts: map[string]string{}, hasWorkspaces: true, workspaces: []string{}}},
		{"workspaces object", `{"workspaces": {"packages": ["p/*"], "nohoist": ["x"]}}`,
			&manifest{scripts: map[string]string{}, hasWorkspaces: true, workspaces: []string{"p/*"}}},
		{"workspaces object without packages", `{"workspaces": {"nohoist": ["x"]}}`,
			&manifest{scripts: map[string]string{}, hasWorkspaces: true}},
		{"unicode name", `{"name": "caf\u00e9-\u0442"}`, &manifest{name: "café-т", scripts: map[string]string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseManifest([]byte(tt.in))
			if err != nil {
				t.Fatalf("parseManifest() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, got, cmpManifest); diff != "" {
				t.Errorf("parseManifest() mismatch (-want +got):\n%s", diff)
			}
			slow, err := parseManifestJSON([]byte(strings.TrimPrefix(tt.in, "\xef\xbb\xbf")))
			if err != nil {
				t.Fatalf("parseManifestJSON() error: %v", err)
			}
			if diff := cmp.Diff(tt.want, slow, cmpManifest); diff != "" {
				t.Errorf("parseManifestJSON() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseManifestFastPath checks which inputs the fast scanner takes: the
// usual ones, so that it pays off, and not those it must leave to
// encoding/json.
func TestParseManifestFastPath(t *testing.T) {
	tests := []struct {
		name string
		in   string
		fast bool
	}{
		{"typical", `{"name": "@s/a", "version": "1.0.0", "private": true, "scripts": {"build": "tsc -p .", "x": "a \"q\" \u00e9\n"},
			"dependencies": {"b": "workspace:*"}, "devDependencies": {}, "peerDependencies": {"c": "*"},
			"workspaces": {"packages": ["p/*"], "nohoist": ["**/x"]}, "n": [1, -2.5e+3, 0, null, false, {"a": [[]]}]}`, true},
		{"array workspaces", `{"workspaces": ["a", "b"]}`, true},
		{"nulls", `{"name": null, "scripts": null, "workspaces": null}`, true},
		{"unicode", `{"name": "café"}`, true},
		{"duplicate field", `{"name": "a", "name": "b"}`, false},
		{"duplicate packages", `{"workspaces": {"packages": [], "packages": []}}`, false},
		{"surrogate escape", `{"description": "\ud83d\ude00"}`, false},
		{"invalid UTF-8", "{\"x\": \"\xff\"}", false},
		{"wrong type", `{"name": 1}`, false},
		{"bad name", `{"name": "a=b"}`, false},
		{"NUL in version", `{"version": "\u0000"}`, false},
		{"NUL in script", `{"scripts": {"a": "\u0000"}}`, false},
		{"trailing comma", `{"a": 1,}`, false},
		{"leading zero", `{"a": 01}`, false},
		{"bare minus", `{"a": -}`, false},
		{"trailing garbage", `{} x`, false},
		{"deep", `{"a": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, false},
		{"control character", "{\"a\": \"\x01\"}", false},
		{"not an object", `[]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, ok := parseManifestFast([]byte(tt.in))
			if ok != tt.fast {
				t.Fatalf("parseManifestFast() ok = %v, want %v", ok, tt.fast)
			}
			if !ok {
				return
			}
			slow, err := parseManifestJSON([]byte(tt.in))
			if err != nil {
				t.Fatalf("parseManifestJSON() error: %v", err)
			}
			if diff := cmp.Diff(slow, fast, cmpManifest); diff != "" {
				t.Errorf("parseManifestFast() mismatch (-json +fast):\n%s", diff)
			}
		})
	}
}

func TestParseManifestErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the error as a FileError for "p.json" shows it
	}{
		{"empty", ``, `invalid JSON at line 1, column 1: unexpected end of JSON input`},
		{"truncated", "{\n  \"name\": \"a\",\n", `invalid JSON at line 3, column 1: unexpected end of JSON input`},
		{"trailing comma", "{\n  \"a\": 1,\n}", `invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string`},
		{"bad value", "{\"a\": x}", `invalid JSON at line 1, column 7: invalid character 'x' looking for beginning of value`},
		{"columns count characters", "{\"é\": x}", `invalid JSON at line 1, column 7: invalid character 'x' looking for beginning of value`},
		{"after the BOM", "\xef\xbb\xbf{x}", `invalid JSON at line 1, column 2: invalid character 'x' looking for beginning of object key string`},
		{"trailing garbage", "{} x", `invalid JSON at line 1, column 4: invalid character 'x' after top-level value`},
		{"array", "\n  [1]", `package.json must hold a JSON object, got an array at line 2, column 3`},
		{"string", `"x"`, `package.json must hold a JSON object, got a string at line 1, column 1`},
		{"null", `null`, `package.json must hold a JSON object, got null at line 1, column 1`},
		{"name number", "{\n  \"name\": 12\n}", `"name" must be a string, got a number at line 2, column 11`},
		{"name with =", `{"name": "a=b"}`, `"name" must not contain "=" at line 1, column 10`},
		{"name with NUL", `{"name": "a\u0000"}`, `"name" must not contain a NUL character at line 1, column 10`},
		{"name invalid UTF-8", "{\"name\": \"\xff\"}", `"name" is not valid UTF-8 at line 1, column 10`},
		{"name lone surrogate", `{"name": "\ud800"}`, `"name" is not valid UTF-8 at line 1, column 10`},
		{"position of the last duplicate", "{\"name\": \"ok\",\n \"name\": 1}", `"name" must be a string, got a number at line 2, column 10`},
		{"version", `{"version": 1}`, `"version" must be a string, got a number at line 1, column 13`},
		{"version with NUL", `{"version": "1\u0000"}`, `"version" must not contain a NUL character at line 1, column 13`},
		{"script with NUL", `{"scripts": {"b": "x\u0000", "a": "ok"}}`, `"scripts" holds script "b", which must not contain a NUL character at line 1, column 13`},
		{"script name with NUL", `{"scripts": {"b\u0000": "x"}}`, "\"scripts\" holds script \"b\\x00\", which must not contain a NUL character at line 1, column 13"},
		{"first bad script in order", `{"scripts": {"z": 1, "c": "\u0000"}}`, `"scripts" holds script "c", which must not contain a NUL character at line 1, column 13`},
		{"scripts array", `{"scripts": []}`, `"scripts" must be an object, got an array at line 1, column 13`},
		{"script number", `{"scripts": {"z": 1, "b": true, "a": "ok"}}`, `"scripts" holds script "b", which must be a string, got a boolean at line 1, column 13`},
		{"dependencies array", `{"devDependencies": ["a"]}`, `"devDependencies" must be an object, got an array at line 1, column 21`},
		{"workspaces string", `{"workspaces": "p/*"}`, `"workspaces" must be an array of patterns or an object with a "packages" array, got a string at line 1, column 16`},
		{"workspaces true", `{"workspaces": true}`, `"workspaces" must be an array of patterns or an object with a "packages" array, got a boolean at line 1, column 16`},
		{"workspaces numbers", `{"workspaces": [1]}`, `"workspaces" must be an array of patterns or an object with a "packages" array, got an array holding something other than strings at line 1, column 16`},
		{"workspaces packages string", `{"workspaces": {"packages": "p"}}`, `"workspaces" must be an array of patterns or an object with a "packages" array, got "packages": a string at line 1, column 16`},
		{"workspaces packages of objects", `{"workspaces": {"packages": [{}]}}`, `"workspaces" must be an array of patterns or an object with a "packages" array, got "packages": an array holding something other than strings at line 1, column 16`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseManifest([]byte(tt.in))
			if err == nil {
				t.Fatalf("parseManifest() = %+v, want an error", m)
			}
			got := strings.TrimPrefix(fileError("p.json", err).Error(), `workspace: "p.json": `)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseManifest() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLineCol(t *testing.T) {
	data := []byte("ab\nçd\n\nx")
	tests := []struct {
		off, line, col int
	}{
		{-5, 1, 1}, {0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1},
		{5, 2, 2}, // after "ç" (2 bytes): the second character
		{7, 3, 1}, {8, 4, 1}, {9, 4, 2}, {100, 4, 2},
	}
	for _, tt := range tests {
		line, col := lineCol(data, tt.off)
		if line != tt.line || col != tt.col {
			t.Errorf("lineCol(%d) = %d, %d; want %d, %d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

func TestFileErrorFormat(t *testing.T) {
	cause := errors.New("boom")
	tests := []struct {
		e    *FileError
		want string
	}{
		{&FileError{Path: "a/package.json", Line: 3, Column: 9, Msg: "invalid JSON", Err: cause}, `workspace: "a/package.json": invalid JSON at line 3, column 9: boom`},
		{&FileError{Path: "p.yaml", Line: 2, Msg: "invalid YAML", Err: cause}, `workspace: "p.yaml": invalid YAML at line 2: boom`},
		{&FileError{Path: "x", Msg: "bad"}, `workspace: "x": bad`},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.e.Error()); diff != "" {
			t.Errorf("FileError.Error() mismatch (-want +got):\n%s", diff)
		}
	}
	if !errors.Is(tests[0].e, cause) {
		t.Error("FileError does not unwrap to its cause")
	}
}
