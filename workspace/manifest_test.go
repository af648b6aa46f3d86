package workspace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var cmpManifest = cmp.AllowUnexported(manifest{}, dep{})

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
			deps:    []dep{{"a", "workspace:*"}, {"b", "^1"}, {"c", "*"}, {"d", "*"}, {"e", "*"}},
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
		want string // the error as fileError("p.json") shows it, after "p.json:"
	}{
		{"empty", ``, `1:1: invalid JSON: unexpected end of JSON input`},
		{"truncated", "{\n  \"name\": \"a\",\n", `3:1: invalid JSON: unexpected end of JSON input`},
		{"trailing comma", "{\n  \"a\": 1,\n}", `3:1: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"bad value", "{\"a\": x}", `1:7: invalid JSON: invalid character 'x' looking for beginning of value`},
		{"columns count characters", "{\"é\": x}", `1:7: invalid JSON: invalid character 'x' looking for beginning of value`},
		{"after the BOM", "\xef\xbb\xbf{x}", `1:2: invalid JSON: invalid character 'x' looking for beginning of object key string`},
		{"trailing garbage", "{} x", `1:4: invalid JSON: invalid character 'x' after top-level value`},
		{"array", "\n  [1]", `2:3: package.json must hold a JSON object, got an array`},
		{"string", `"x"`, `1:1: package.json must hold a JSON object, got a string`},
		{"null", `null`, `1:1: package.json must hold a JSON object, got null`},
		{"name number", "{\n  \"name\": 12\n}", `2:11: "name" must be a string, got a number`},
		{"name with =", `{"name": "a=b"}`, `1:10: "name" must not contain "="`},
		{"name with NUL", `{"name": "a\u0000"}`, `1:10: "name" must not contain a NUL character`},
		{"name invalid UTF-8", "{\"name\": \"\xff\"}", `1:10: "name" is not valid UTF-8`},
		{"name lone surrogate", `{"name": "\ud800"}`, `1:10: "name" is not valid UTF-8`},
		{"position of the last duplicate", "{\"name\": \"ok\",\n \"name\": 1}", `2:10: "name" must be a string, got a number`},
		{"version", `{"version": 1}`, `1:13: "version" must be a string, got a number`},
		{"version with NUL", `{"version": "1\u0000"}`, `1:13: "version" must not contain a NUL character`},
		{"script with NUL", `{"scripts": {"b": "x\u0000", "a": "ok"}}`, `1:13: "scripts" holds script "b", which must not contain a NUL character`},
		{"script name with NUL", `{"scripts": {"b\u0000": "x"}}`, "1:13: \"scripts\" holds script \"b\\x00\", which must not contain a NUL character"},
		{"first bad script in order", `{"scripts": {"z": 1, "c": "\u0000"}}`, `1:13: "scripts" holds script "c", which must not contain a NUL character`},
		{"scripts array", `{"scripts": []}`, `1:13: "scripts" must be an object, got an array`},
		{"script number", `{"scripts": {"z": 1, "b": true, "a": "ok"}}`, `1:13: "scripts" holds script "b", which must be a string, got a boolean`},
		{"dependencies array", `{"devDependencies": ["a"]}`, `1:21: "devDependencies" must be an object, got an array`},
		{"workspaces string", `{"workspaces": "p/*"}`, `1:16: "workspaces" must be an array of patterns or an object with a "packages" array, got a string`},
		{"workspaces true", `{"workspaces": true}`, `1:16: "workspaces" must be an array of patterns or an object with a "packages" array, got a boolean`},
		{"workspaces numbers", `{"workspaces": [1]}`, `1:16: "workspaces" must be an array of patterns or an object with a "packages" array, got an array holding something other than strings`},
		{"workspaces packages string", `{"workspaces": {"packages": "p"}}`, `1:16: "workspaces" must be an array of patterns or an object with a "packages" array, got "packages": a string`},
		{"workspaces packages of objects", `{"workspaces": {"packages": [{}]}}`, `1:16: "workspaces" must be an array of patterns or an object with a "packages" array, got "packages": an array holding something other than strings`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseManifest([]byte(tt.in))
			if err == nil {
				t.Fatalf("parseManifest() = %+v, want an error", m)
			}
			got := strings.TrimPrefix(fileError("p.json", err).Error(), "p.json:")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseManifest() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
