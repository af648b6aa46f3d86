package config

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// exampleTasks is what the example of issue 4 declares.
var exampleTasks = map[string]Task{
	"build": {
		DependsOn:   []string{"^build", "codegen"},
		PassThrough: []string{"NODE_ENV", "NEXT_PUBLIC_*"},
		Define:      map[string]string{"BUILD_MODE": "release"},
	},
	"web#build": {PassThrough: []string{"SENTRY_DSN"}},
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want map[string]Task
	}{
		{
			name: "example of the issue, strict JSON",
			in: `{
  "tasks": {
    "build": {
      "dependsOn": ["^build", "codegen"],
      "env": { "passThrough": ["NODE_ENV", "NEXT_PUBLIC_*"], "define": { "BUILD_MODE": "release" } }
    },
    "web#build": { "env": { "passThrough": ["SENTRY_DSN"] } }
  }
}`,
			want: exampleTasks,
		},
		{
			name: "comments and trailing commas",
			in: `// leading line comment
/* block
   comment */ {
  "tasks": { // after a brace
    "build": {
      "dependsOn": ["^build", /* inline */ "codegen",],
      "env": {
        "passThrough": ["NODE_ENV", "NEXT_PUBLIC_*",],
        "define": { "BUILD_MODE": "release", },
      },
    },
    "web#build": { "env": { "passThrough": ["SENTRY_DSN"] } },
  }, /* before the end */
} // trailing`,
			want: exampleTasks,
		},
		{
			name: "comment markers inside strings are text",
			in:   `{"tasks": {"build": {"env": {"define": {"URL": "http://x/*y*/", "C": "// no"}}}}}`,
			want: map[string]Task{"build": {Define: map[string]string{"URL": "http://x/*y*/", "C": "// no"}}},
		},
		{name: "empty file", in: "", want: map[string]Task{}},
		{name: "only whitespace and comments", in: "\n  // nothing yet\n/* */\r\n", want: map[string]Task{}},
		{name: "empty object", in: "{}", want: map[string]Task{}},
		{name: "empty tasks", in: `{"tasks": {}}`, want: map[string]Task{}},
		{name: "empty task", in: `{"tasks": {"lint": {}}}`, want: map[string]Task{"lint": {}}},
		{
			name: "cache keys",
			in:   `{"tasks": {"build": {"outputs": ["dist/**", "!dist/**/*.map"], "inputs": ["src/**", "//scripts/build.mjs"]}, "dev": {"cache": false, "inputs": [], "outputs": []}}}`,
			want: map[string]Task{
				"build": {Outputs: []string{"dist/**", "!dist/**/*.map"}, Inputs: []string{"src/**", "//scripts/build.mjs"}},
				"dev":   {NoCache: true, Inputs: []string{}, Outputs: []string{}},
			},
		},
		{
			name: "globs lose their . and empty elements",
			in:   `{"tasks": {"build": {"outputs": ["./dist/**", "!./dist/./x.map", "lib/", "out//a"], "inputs": ["./src/**", "//./scripts/b.mjs", "!./a"]}}}`,
			want: map[string]Task{"build": {Outputs: []string{"dist/**", "!dist/x.map", "lib", "out/a"}, Inputs: []string{"src/**", "//scripts/b.mjs", "!a"}}},
		},
		{
			name: "empty lists and maps are nil",
			in:   `{"tasks": {"lint": {"dependsOn": [], "env": {"passThrough": [], "define": {}}}}}`,
			want: map[string]Task{"lint": {}},
		},
		{name: "$schema is accepted", in: `{"$schema": "./vx.schema.json"}`, want: map[string]Task{}},
		{
			name: "byte order mark",
			in:   "\uFEFF{\"tasks\": {\"build\": {}}}",
			want: map[string]Task{"build": {}},
		},
		{
			name: "CRLF line endings and tabs",
			in:   "{\r\n\t\"tasks\": {\r\n\t\t\"build\": {\"dependsOn\": [\"^build\"]}\r\n\t}\r\n}\r\n",
			want: map[string]Task{"build": {DependsOn: []string{"^build"}}},
		},
		{
			name: "string escapes",
			in:   `{"tasks": {"build": {"env": {"define": {"Q": "a\"b\\c\/d\b\f\n\r\t", "U": "\u00e9\u20ac\ud83d\ude00"}}}}}`,
			want: map[string]Task{"build": {Define: map[string]string{"Q": "a\"b\\c/d\b\f\n\r\t", "U": "é€😀"}}},
		},
		{
			name: "escapes in keys and names",
			in:   `{"tasks": {"w\u0065b#build": {"env": {"passThrough": ["N\u004fDE_ENV"]}}}}`,
			want: map[string]Task{"web#build": {PassThrough: []string{"NODE_ENV"}}},
		},
		{
			name: "scoped project names and script names with colons",
			in:   `{"tasks": {"@acme/web#build:prod": {"dependsOn": ["@acme/ui#build", "^build:lib", "gen:types"]}}}`,
			want: map[string]Task{"@acme/web#build:prod": {DependsOn: []string{"@acme/ui#build", "^build:lib", "gen:types"}}},
		},
		{
			name: "non-ASCII names and values",
			in:   `{"tasks": {"café#bâtir": {"env": {"define": {"GRÜSSE": "héllo wörld"}}}}}`,
			want: map[string]Task{"café#bâtir": {Define: map[string]string{"GRÜSSE": "héllo wörld"}}},
		},
		{
			name: "empty define value is kept",
			in:   `{"tasks": {"build": {"env": {"define": {"EMPTY": ""}}}}}`,
			want: map[string]Task{"build": {Define: map[string]string{"EMPTY": ""}}},
		},
		{
			name: "dependsOn and passThrough keep order and repeats",
			in:   `{"tasks": {"build": {"dependsOn": ["b", "a", "b"], "env": {"passThrough": ["Z", "A_*", "Z"]}}}}`,
			want: map[string]Task{"build": {DependsOn: []string{"b", "a", "b"}, PassThrough: []string{"Z", "A_*", "Z"}}},
		},
		{
			name: "star inside a name is allowed at the end only",
			in:   `{"tasks": {"build": {"env": {"passThrough": ["VITE_*", "X*"]}}}}`,
			want: map[string]Task{"build": {PassThrough: []string{"VITE_*", "X*"}}},
		},
		{
			name: "persistent",
			in:   `{"tasks": {"dev": {"persistent": true}, "web#dev": {"persistent": false}}}`,
			want: map[string]Task{"dev": {Persistent: true}, "web#dev": {}},
		},
		{
			name: "keys in any order",
			in:   `{"tasks": {"build": {"env": {"define": {"A": "1"}, "passThrough": ["B"]}, "dependsOn": ["c"]}}, "$schema": "x"}`,
			want: map[string]Task{"build": {DependsOn: []string{"c"}, PassThrough: []string{"B"}, Define: map[string]string{"A": "1"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse("vx.json", []byte(tt.in))
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tt.in, err)
			}
			want := &Config{Path: "vx.json", Tasks: tt.want}
			if diff := cmp.Diff(want, got, ignoreOrigins); diff != "" {
				t.Errorf("Parse() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// ignoreOrigins leaves out where each entry was written (TestOrigins).
var ignoreOrigins = cmpopts.IgnoreFields(Config{}, "Origins")

// TestOrigins: Parse says where each task entry is, as vx config shows it.
func TestOrigins(t *testing.T) {
	t.Parallel()
	in := "\uFEFF{\n  \"tasks\": {\"build\": {},\n\t\"é#test\": {},\n    \"lint\": {}}, \"remoteCache\": {}}"
	got, err := Parse("vx.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Origin{
		"build":  {Path: "vx.json", Line: 2, Col: 13},
		"é#test": {Path: "vx.json", Line: 3, Col: 2},
		"lint":   {Path: "vx.json", Line: 4, Col: 5},
	}
	if diff := cmp.Diff(want, got.Origins); diff != "" {
		t.Errorf("Origins mismatch (-want +got):\n%s", diff)
	}
}

// parseErrorCases are vx.json's errors, each with the whole message: also
// the messages of an evaluated vx.config.ts (TestDecodeValueErrors).
var parseErrorCases = []struct {
	name string
	in   string
	want string // the whole message; its line and column must match the *Error fields
}{
	// Syntax.
	{
		name: "missing comma between members",
		in:   "{\n  \"tasks\": {\n    \"build\": {}\n    \"lint\": {}\n  }\n}",
		want: `vx.json:4:5: unexpected string; expected "," or "}"`,
	},
	{
		name: "missing comma in an array",
		in:   `{"tasks": {"build": {"dependsOn": ["a" "b"]}}}`,
		want: `vx.json:1:40: unexpected string; expected "," or "]"`,
	},
	{
		name: "missing colon",
		in:   "{\n  \"tasks\" {}\n}",
		want: `vx.json:2:11: unexpected "{"; expected ":" after key "tasks"`,
	},
	{
		name: "unquoted key",
		in:   "{ tasks: {} }",
		want: `vx.json:1:3: unexpected "tasks"; keys must be strings in double quotes`,
	},
	{
		name: "single-quoted key",
		in:   "{'tasks': {}}",
		want: `vx.json:1:2: unexpected "'"; keys must be strings in double quotes`,
	},
	{
		name: "single-quoted value",
		in:   `{"tasks": {"build": {"dependsOn": ['x']}}}`,
		want: `vx.json:1:36: unexpected "'"; strings must be in double quotes`,
	},
	{
		name: "bare word value",
		in:   `{"tasks": {"build": {"dependsOn": [build]}}}`,
		want: `vx.json:1:36: unexpected "build"; strings must be in double quotes`,
	},
	{
		name: "lone comma in an array",
		in:   `{"tasks": {"build": {"dependsOn": [,]}}}`,
		want: `vx.json:1:36: unexpected ","; expected a value or "]"`,
	},
	{
		name: "double comma in an array",
		in:   `{"tasks": {"build": {"dependsOn": ["a",,"b"]}}}`,
		want: `vx.json:1:40: unexpected ","; expected a value or "]"`,
	},
	{
		name: "lone comma in an object",
		in:   `{,}`,
		want: `vx.json:1:2: unexpected ","; expected a key or "}"`,
	},
	{
		name: "unterminated object",
		in:   "{\n  \"tasks\": {}\n",
		want: `vx.json:3:1: unexpected end of file; expected "," or "}"`,
	},
	{
		name: "missing value at end of file",
		in:   `{"tasks":`,
		want: `vx.json:1:10: unexpected end of file; expected a value`,
	},
	{
		name: "unterminated string",
		in:   "{\n  \"tasks\": {\"build\n}",
		want: `vx.json:2:13: unterminated string`,
	},
	{
		name: "unterminated string at end of file",
		in:   `{"tas`,
		want: `vx.json:1:2: unterminated string`,
	},
	{
		name: "unterminated block comment",
		in:   "{\n  /* never closed\n}",
		want: `vx.json:2:3: unterminated /* comment`,
	},
	{
		name: "content after the top-level object",
		in:   "{}\n}",
		want: `vx.json:2:1: unexpected "}" after the end of the top-level value`,
	},
	{
		name: "two top-level objects",
		in:   "{} {}",
		want: `vx.json:1:4: unexpected "{" after the end of the top-level value`,
	},
	{
		name: "invalid escape",
		in:   `{"tasks": {"build": {"env": {"define": {"P": "C:\path"}}}}}`,
		want: `vx.json:1:49: invalid escape "\p"; valid escapes are \" \\ \/ \b \f \n \r \t \uXXXX`,
	},
	{
		name: "short unicode escape",
		in:   `{"a\u12": 1}`,
		want: `vx.json:1:4: invalid escape; "\u" needs four hexadecimal digits`,
	},
	{
		name: "lone surrogate escape",
		in:   `{"a\ud800b": 1}`,
		want: `vx.json:1:4: invalid escape; "\ud800" is half of a UTF-16 surrogate pair`,
	},
	{
		name: "raw tab in a string",
		in:   "{\"a\tb\": 1}",
		want: `vx.json:1:4: control character U+0009 in a string; write it as an escape such as "\u0009"`,
	},
	{
		name: "leading zero",
		in:   `{"tasks": {"build": {"dependsOn": [01]}}}`,
		want: `vx.json:1:36: invalid number "01"`,
	},
	{
		name: "number without digits after the point",
		in:   `{"a": 1.}`,
		want: `vx.json:1:7: invalid number "1."`,
	},
	{
		name: "misspelled literal",
		in:   `{"a": ture}`,
		want: `vx.json:1:7: unexpected "ture"; strings must be in double quotes`,
	},
	{
		name: "stray character",
		in:   `{"a": @}`,
		want: `vx.json:1:7: unexpected "@"; expected a value`,
	},
	{
		name: "invalid UTF-8",
		in:   "{\n  \"tasks\": {\"b\xffuild\": {}}\n}",
		want: `vx.json:2:15: invalid UTF-8 byte 0xff; the file must be UTF-8`,
	},
	{
		name: "invalid UTF-8 after multi-byte characters counts characters",
		in:   "{\"éé\xc3\": 1}",
		want: `vx.json:1:5: invalid UTF-8 byte 0xc3; the file must be UTF-8`,
	},
	{
		name: "invalid UTF-8 in a comment",
		in:   "// caf\xe9\n{}",
		want: `vx.json:1:7: invalid UTF-8 byte 0xe9; the file must be UTF-8`,
	},
	{
		name: "column after a byte order mark",
		in:   "\uFEFF{\"x\": 1}",
		want: `vx.json:1:2: unknown top-level key "x"; tasks go inside "tasks": {...}`,
	},
	{
		name: "nesting too deep",
		in:   `{"x": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}",
		want: `vx.json:1:70: values nested deeper than 64 levels`,
	},
	{
		name: "duplicate task",
		in:   "{\n  \"tasks\": {\n    \"build\": {},\n    \"build\": {}\n  }\n}",
		want: `vx.json:4:5: duplicate key "build" (first at 3:5)`,
	},
	{
		name: "duplicate define",
		in:   `{"tasks": {"b": {"env": {"define": {"A": "1", "A": "2"}}}}}`,
		want: `vx.json:1:47: duplicate key "A" (first at 1:37)`,
	},
	{
		name: "duplicate after escapes",
		in:   `{"tasks": {}, "t\u0061sks": {}}`,
		want: `vx.json:1:15: duplicate key "tasks" (first at 1:2)`,
	},

	// Schema: unknown keys.
	{
		name: "remoteCache holds no secrets",
		in:   "{\n  \"remoteCache\": {\"url\": \"grpcs://c\", \"header\": \"Authorization=x\"}\n}",
		want: `vx.json:2:39: unknown key "header" in "remoteCache" (it takes url and instance); secrets never go in the configuration: set VX_REMOTE_HEADER or VX_REMOTE_SIGNING_KEY in the environment`,
	},
	{
		name: "remoteCache url must be a string",
		in:   `{"remoteCache": {"url": 9092}}`,
		want: `vx.json:1:25: "remoteCache.url" must be a string, found a number`,
	},
	{
		name: "top level typo",
		in:   "{\n  \"task\": {}\n}",
		want: `vx.json:2:3: unknown top-level key "task"; did you mean "tasks"?`,
	},
	{
		name: "task entry at the top level",
		in:   `{"build": {"dependsOn": ["^build"]}}`,
		want: `vx.json:1:2: unknown top-level key "build"; tasks go inside "tasks": {...}`,
	},
	{
		name: "passthrough typo in env",
		in:   "{\n  \"tasks\": {\n    \"build\": {\n      \"env\": { \"passthrough\": [\"NODE_ENV\"] }\n    }\n  }\n}",
		want: `vx.json:4:16: unknown key "passthrough" in task "build"; did you mean "passThrough"?`,
	},
	{
		name: "passThrough outside env",
		in:   "{\n  \"tasks\": {\n    \"build\": { \"passThrough\": [\"NODE_ENV\"] }\n  }\n}",
		want: `vx.json:3:16: unknown key "passThrough" in task "build"; it belongs inside "env": {...}`,
	},
	{
		name: "define outside env",
		in:   `{"tasks": {"build": {"define": {}}}}`,
		want: `vx.json:1:22: unknown key "define" in task "build"; it belongs inside "env": {...}`,
	},
	{
		name: "dependsOn inside env",
		in:   `{"tasks": {"build": {"env": {"dependsOn": []}}}}`,
		want: `vx.json:1:30: unknown key "dependsOn" in task "build"; it belongs in the task, outside "env"`,
	},
	{
		name: "dependsOn spelled with a dash",
		in:   `{"tasks": {"build": {"depends-on": []}}}`,
		want: `vx.json:1:22: unknown key "depends-on" in task "build"; did you mean "dependsOn"?`,
	},
	{
		name: "dependsOn in lower case",
		in:   `{"tasks": {"build": {"dependson": []}}}`,
		want: `vx.json:1:22: unknown key "dependson" in task "build"; did you mean "dependsOn"?`,
	},
	{
		name: "key from another tool",
		in:   `{"tasks": {"build": {"executor": "nx:run-script"}}}`,
		want: `vx.json:1:22: unknown key "executor" in task "build"; known keys are "dependsOn", "env", "persistent", "outputs", "inputs", "cache", "outputLogs", "trace", "timeout", "retries" and "readyWhen"`,
	},
	{
		name: "turbo 1.x's outputMode",
		in:   `{"tasks": {"build": {"outputMode": "full"}}}`,
		want: `vx.json:1:22: unknown key "outputMode" in task "build"; did you mean "outputLogs"?`,
	},
	{
		name: "outputs is a string",
		in:   `{"tasks": {"build": {"outputs": "dist/**"}}}`,
		want: `vx.json:1:33: "outputs" of task "build" must be an array of strings, found a string; did you mean ["dist/**"]?`,
	},
	{
		name: "outputs outside the project",
		in:   `{"tasks": {"build": {"outputs": ["dist/**", "../shared/**"]}}}`,
		want: `vx.json:1:45: invalid outputs glob "../shared/**" in task "build": ".." is not allowed: outputs stay inside the project`,
	},
	{
		name: "outputs from the root",
		in:   `{"tasks": {"build": {"outputs": ["//dist/**"]}}}`,
		want: `vx.json:1:34: invalid outputs glob "//dist/**" in task "build": outputs are relative to the project; "//" (from the workspace root) is for inputs`,
	},
	{
		name: "absolute input",
		in:   `{"tasks": {"build": {"inputs": ["/etc/hosts"]}}}`,
		want: `vx.json:1:33: invalid inputs glob "/etc/hosts" in task "build": globs are relative to the project; write "//path" for a path from the workspace root`,
	},
	{
		name: "input with ..",
		in:   `{"tasks": {"build": {"inputs": ["!../x"]}}}`,
		want: `vx.json:1:33: invalid inputs glob "!../x" in task "build": ".." is not allowed; write "//path" for a path from the workspace root`,
	},
	{
		name: "bad glob",
		in:   `{"tasks": {"build": {"inputs": ["src/[a"]}}}`,
		want: `vx.json:1:33: invalid inputs glob "src/[a" in task "build": not a valid glob (an unclosed [ or {?)`,
	},
	{
		name: "glob of the project's directory",
		in:   `{"tasks": {"build": {"outputs": ["./"]}}}`,
		want: `vx.json:1:34: invalid outputs glob "./" in task "build": it names a directory, not its files; write "**"`,
	},
	{
		name: "glob of the root's directory",
		in:   `{"tasks": {"build": {"inputs": ["//."]}}}`,
		want: `vx.json:1:33: invalid inputs glob "//." in task "build": it names a directory, not its files; write "//**"`,
	},
	{
		name: "backslash",
		in:   `{"tasks": {"build": {"outputs": ["dist\\x"]}}}`,
		want: `vx.json:1:34: invalid outputs glob "dist\\x" in task "build": write paths with "/", not "\"`,
	},
	{
		name: "cache is a string",
		in:   `{"tasks": {"build": {"cache": "false"}}}`,
		want: `vx.json:1:31: "cache" of task "build" must be true or false, found a string; did you mean false?`,
	},
	{
		name: "unknown env key",
		in:   `{"tasks": {"build": {"env": {"vars": {}}}}}`,
		want: `vx.json:1:30: unknown key "vars" in task "build"; known keys are "passThrough" and "define"`,
	},
	{
		name: "defines typo",
		in:   `{"tasks": {"web#build": {"env": {"defines": {}}}}}`,
		want: `vx.json:1:34: unknown key "defines" in task "web#build"; did you mean "define"?`,
	},

	// Schema: wrong types.
	{
		name: "top level is an array",
		in:   "[]",
		want: `vx.json:1:1: the top level must be an object, found an array`,
	},
	{
		name: "top level is null",
		in:   "\n null",
		want: `vx.json:2:2: the top level must be an object, found null`,
	},
	{
		name: "tasks is an array",
		in:   `{"tasks": []}`,
		want: `vx.json:1:11: "tasks" must be an object, found an array`,
	},
	{
		name: "$schema is a number",
		in:   `{"$schema": 1}`,
		want: `vx.json:1:13: "$schema" must be a string, found a number`,
	},
	{
		name: "task is a string",
		in:   `{"tasks": {"build": "tsc"}}`,
		want: `vx.json:1:21: task "build" must be an object, found a string`,
	},
	{
		name: "task is an array",
		in:   `{"tasks": {"build": ["^build"]}}`,
		want: `vx.json:1:21: task "build" must be an object, found an array; did you mean {"dependsOn": [...]}?`,
	},
	{
		name: "dependsOn is a string",
		in:   "{\n  \"tasks\": {\n    \"build\": { \"dependsOn\": \"build\" }\n  }\n}",
		want: `vx.json:3:29: "dependsOn" of task "build" must be an array of strings, found a string; did you mean ["build"]?`,
	},
	{
		name: "dependsOn is null",
		in:   `{"tasks": {"build": {"dependsOn": null}}}`,
		want: `vx.json:1:35: "dependsOn" of task "build" must be an array of strings, found null`,
	},
	{
		name: "dependsOn entry is a number",
		in:   `{"tasks": {"build": {"dependsOn": ["a", 2]}}}`,
		want: `vx.json:1:41: "dependsOn" of task "build": entry 2 must be a string, found a number`,
	},
	{
		name: "env is an array",
		in:   `{"tasks": {"build": {"env": ["NODE_ENV"]}}}`,
		want: `vx.json:1:29: "env" of task "build" must be an object, found an array`,
	},
	{
		name: "passThrough is a string",
		in:   `{"tasks": {"build": {"env": {"passThrough": "NODE_ENV"}}}}`,
		want: `vx.json:1:45: "passThrough" of task "build" must be an array of strings, found a string; did you mean ["NODE_ENV"]?`,
	},
	{
		name: "passThrough entry is an object",
		in:   `{"tasks": {"build": {"env": {"passThrough": [{}]}}}}`,
		want: `vx.json:1:46: "passThrough" of task "build": entry 1 must be a string, found an object`,
	},
	{
		name: "define is an array",
		in:   `{"tasks": {"build": {"env": {"define": ["A=1"]}}}}`,
		want: `vx.json:1:40: "define" of task "build" must be an object of strings, found an array`,
	},
	{
		name: "define value is a number",
		in:   "{\"tasks\": {\"build\": {\"env\": {\"define\": {\n  \"PORT\": 3000\n}}}}}",
		want: `vx.json:2:11: define "PORT" in task "build" must be a string, found a number; did you mean "3000"?`,
	},
	{
		name: "define value is a boolean",
		in:   `{"tasks": {"build": {"env": {"define": {"CI": true}}}}}`,
		want: `vx.json:1:47: define "CI" in task "build" must be a string, found a boolean; did you mean "true"?`,
	},
	{
		name: "persistent is a string",
		in:   `{"tasks": {"dev": {"persistent": "true"}}}`,
		want: `vx.json:1:34: "persistent" of task "dev" must be true or false, found a string; did you mean true?`,
	},
	{
		name: "persistent is a number",
		in:   `{"tasks": {"dev": {"persistent": 1}}}`,
		want: `vx.json:1:34: "persistent" of task "dev" must be true or false, found a number`,
	},
	{
		name: "define value is null",
		in:   `{"tasks": {"build": {"env": {"define": {"CI": null}}}}}`,
		want: `vx.json:1:47: define "CI" in task "build" must be a string, found null`,
	},

	// Schema: invalid names.
	{
		name: "empty task key",
		in:   `{"tasks": {"": {}}}`,
		want: `vx.json:1:12: invalid task key "": a task name cannot be empty`,
	},
	{
		name: "task key without project",
		in:   "{\"tasks\": {\n  \"#build\": {}\n}}",
		want: `vx.json:2:3: invalid task key "#build": missing project name before "#"`,
	},
	{
		name: "task key without task",
		in:   `{"tasks": {"web#": {}}}`,
		want: `vx.json:1:12: invalid task key "web#": missing task name after "#"`,
	},
	{
		name: "task key with two hashes",
		in:   `{"tasks": {"a#b#c": {}}}`,
		want: `vx.json:1:12: invalid task key "a#b#c": more than one "#"`,
	},
	{
		name: "task key with a caret",
		in:   `{"tasks": {"^build": {}}}`,
		want: `vx.json:1:12: invalid task key "^build": a task key cannot start with "^"; "^" belongs in "dependsOn"`,
	},
	{
		name: "task key with a control character",
		in:   `{"tasks": {"bu\u0000ild": {}}}`,
		want: `vx.json:1:12: invalid task key "bu\x00ild": control character U+0000 in a name`,
	},
	{
		name: "empty dependsOn entry",
		in:   `{"tasks": {"build": {"dependsOn": ["a", ""]}}}`,
		want: `vx.json:1:41: invalid dependsOn entry "" in task "build": a task name cannot be empty`,
	},
	{
		name: "caret alone",
		in:   "{\"tasks\": {\"build\": {\n  \"dependsOn\": [\"^\"]\n}}}",
		want: `vx.json:2:17: invalid dependsOn entry "^" in task "build": "^" must be followed by a task name, as in "^build"`,
	},
	{
		name: "double caret",
		in:   `{"tasks": {"build": {"dependsOn": ["^^build"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "^^build" in task "build": only one "^" is allowed`,
	},
	{
		name: "caret with a project",
		in:   `{"tasks": {"build": {"dependsOn": ["^web#build"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "^web#build" in task "build": "^" cannot be combined with a project; write "^build" or "web#build"`,
	},
	{
		name: "caret with a broken project reference",
		in:   `{"tasks": {"build": {"dependsOn": ["^#build"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "^#build" in task "build": "^" cannot be combined with a project`,
	},
	{
		name: "dependsOn without task",
		in:   `{"tasks": {"build": {"dependsOn": ["a#"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "a#" in task "build": missing task name after "#"`,
	},
	{
		name: "dependsOn without project",
		in:   `{"tasks": {"build": {"dependsOn": ["#a"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "#a" in task "build": missing project name before "#"`,
	},
	{
		name: "dependsOn with a caret after the hash",
		in:   `{"tasks": {"build": {"dependsOn": ["web#^build"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "web#^build" in task "build": a task name cannot start with "^"`,
	},
	{
		name: "dependsOn with a newline",
		in:   `{"tasks": {"build": {"dependsOn": ["a\nb"]}}}`,
		want: `vx.json:1:36: invalid dependsOn entry "a\nb" in task "build": control character U+000A in a name`,
	},
	{
		name: "passThrough with =",
		in:   "{\"tasks\": {\"build\": {\"env\": {\n  \"passThrough\": [\"NODE_ENV\", \"A=B\"]\n}}}}",
		want: `vx.json:2:31: invalid passThrough name "A=B" in task "build": a name cannot contain "="`,
	},
	{
		name: "passThrough empty",
		in:   `{"tasks": {"build": {"env": {"passThrough": [""]}}}}`,
		want: `vx.json:1:46: invalid passThrough name "" in task "build": a name cannot be empty`,
	},
	{
		name: "passThrough with NUL",
		in:   `{"tasks": {"build": {"env": {"passThrough": ["A\u0000B"]}}}}`,
		want: `vx.json:1:46: invalid passThrough name "A\x00B" in task "build": a name cannot contain NUL`,
	},
	{
		name: "passThrough star alone",
		in:   `{"tasks": {"build": {"env": {"passThrough": ["*"]}}}}`,
		want: `vx.json:1:46: invalid passThrough name "*" in task "build": "*" alone would pass vx's whole environment; list names or patterns such as "NEXT_PUBLIC_*"`,
	},
	{
		name: "passThrough stars alone",
		in:   `{"tasks": {"build": {"env": {"passThrough": ["A", "**"]}}}}`,
		want: `vx.json:1:51: invalid passThrough name "**" in task "build": "*" alone would pass vx's whole environment; list names or patterns such as "NEXT_PUBLIC_*"`,
	},
	{
		name: "passThrough exclusion of nothing",
		in:   `{"tasks": {"build": {"env": {"passThrough": ["!"]}}}}`,
		want: `vx.json:1:46: invalid passThrough name "!" in task "build": "!" must be followed by a name or a pattern, as in "!NEXT_PUBLIC_SECRET"`,
	},
	{
		name: "passThrough exclusion of everything",
		in:   `{"tasks": {"build": {"env": {"passThrough": ["!*"]}}}}`,
		want: `vx.json:1:46: invalid passThrough name "!*" in task "build": "!" must be followed by a name or a pattern, as in "!NEXT_PUBLIC_SECRET"`,
	},
	{
		name: "trace not strict",
		in:   `{"tasks": {"build": {"trace": true}}}`,
		want: `vx.json:1:31: invalid "trace" of task "build": found a boolean; it takes "strict" (vx run --trace traces the other tasks)`,
	},
	{
		name: "outputLogs not a mode",
		in:   `{"tasks": {"build": {"outputLogs": "quiet"}}}`,
		want: `vx.json:1:36: invalid "outputLogs" of task "build": found "quiet"; it takes "full", "hash-only", "new-only", "errors-only" or "none"`,
	},
	{
		name: "define name with =",
		in:   `{"tasks": {"build": {"env": {"define": {"A=B": "1"}}}}}`,
		want: `vx.json:1:41: invalid define name "A=B" in task "build": a name cannot contain "="`,
	},
	{
		name: "define name empty",
		in:   `{"tasks": {"build": {"env": {"define": {"": "1"}}}}}`,
		want: `vx.json:1:41: invalid define name "" in task "build": a name cannot be empty`,
	},
	{
		name: "define name with NUL",
		in:   `{"tasks": {"build": {"env": {"define": {"A\u0000": "1"}}}}}`,
		want: `vx.json:1:41: invalid define name "A\x00" in task "build": a name cannot contain NUL`,
	},
	{
		name: "define value with NUL",
		in:   `{"tasks": {"build": {"env": {"define": {"A": "x\u0000y"}}}}}`,
		want: `vx.json:1:46: define "A" in task "build": a value cannot contain NUL`,
	},
	{
		name: "first error in document order wins",
		in:   `{"tasks": {"a": {"dependsOn": [""]}, "b": {"bogus": 1}}}`,
		want: `vx.json:1:32: invalid dependsOn entry "" in task "a": a task name cannot be empty`,
	},
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := parseErrorCases

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse("vx.json", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want error %q", tt.in, c, tt.want)
			}
			if c != nil {
				t.Errorf("Parse(%q) returned a config with its error", tt.in)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Parse(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
			var ce *diag.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse(%q) error is %T, want *diag.Error", tt.in, err)
			}
			prefix := `vx.json:` + strconv.Itoa(ce.Line) + ":" + strconv.Itoa(ce.Col) + ": "
			if ce.Path != "vx.json" || ce.Line < 1 || ce.Col < 1 || !strings.HasPrefix(tt.want, prefix) ||
				!strings.HasPrefix(strings.TrimPrefix(tt.want, prefix), ce.Msg) {
				t.Errorf("Parse(%q) error fields = %+v, do not match %q", tt.in, *ce, tt.want)
			}
		})
	}
}

func TestParseRemoteCache(t *testing.T) {
	c, err := Parse("vx.json", []byte(`{"remoteCache": {"url": "grpcs://cache.example.com", "instance": "main"}, "tasks": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := (RemoteCache{URL: "grpcs://cache.example.com", Instance: "main"}); c.RemoteCache != want {
		t.Errorf("RemoteCache = %+v, want %+v", c.RemoteCache, want)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()

	t.Run("example file", func(t *testing.T) {
		t.Parallel()
		root := filepath.Join("testdata", "example")
		got, err := Load(root)
		if err != nil {
			t.Fatal(err)
		}
		want := &Config{Path: filepath.Join(root, FileName), Tasks: exampleTasks}
		if diff := cmp.Diff(want, got, ignoreOrigins); diff != "" {
			t.Errorf("Load() mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("missing file is an empty config", func(t *testing.T) {
		t.Parallel()
		root := testdir.New(t)
		got, err := Load(root)
		if err != nil {
			t.Fatal(err)
		}
		want := &Config{Path: filepath.Join(root, FileName), Tasks: map[string]Task{}}
		if diff := cmp.Diff(want, got, ignoreOrigins); diff != "" {
			t.Errorf("Load() mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("missing root directory is an empty config", func(t *testing.T) {
		t.Parallel()
		root := filepath.Join(testdir.New(t), "gone")
		if _, err := Load(root); err != nil {
			t.Errorf("Load(%q) error: %v", root, err)
		}
	})

	t.Run("directory named vx.json", func(t *testing.T) {
		t.Parallel()
		root := testdir.New(t)
		path := filepath.Join(root, FileName)
		if err := os.Mkdir(path, 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Load(root)
		want := path + `: is a directory, not a file`
		if err == nil || err.Error() != want {
			t.Errorf("Load() error = %v, want %q", err, want)
		}
	})

	t.Run("root is a file", func(t *testing.T) {
		t.Parallel()
		root := filepath.Join(testdir.New(t), "file")
		if err := os.WriteFile(root, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(root)
		want := root + `: the workspace root is not a directory`
		if err == nil || err.Error() != want {
			t.Errorf("Load() error = %v, want %q", err, want)
		}
		var ce *diag.Error
		if !errors.As(err, &ce) || ce.Line != 0 {
			t.Errorf("Load() error %v is not a *diag.Error without a line", err)
		}
	})

	t.Run("unreadable file", func(t *testing.T) {
		t.Parallel()
		root := testdir.New(t)
		path := filepath.Join(root, FileName)
		if err := os.WriteFile(path, []byte("{}"), 0o000); err != nil {
			t.Fatal(err)
		}
		if f, err := os.Open(path); err == nil {
			f.Close()
			t.Skip("the file stays readable (running as root or on Windows)")
		}
		_, err := Load(root)
		if !errors.Is(err, os.ErrPermission) {
			t.Errorf("Load() error = %v, want one wrapping os.ErrPermission", err)
		}
		want := path + `: cannot read: permission denied`
		if err == nil || err.Error() != want {
			t.Errorf("Load() error = %v, want %q", err, want)
		}
	})

	t.Run("content error names the joined path", func(t *testing.T) {
		t.Parallel()
		root := testdir.New(t)
		path := filepath.Join(root, FileName)
		if err := os.WriteFile(path, []byte("{\n  \"tasks\": {\"build\": {\"dependsOn\": \"x\"}}\n}"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(root)
		want := path + `:2:36: "dependsOn" of task "build" must be an array of strings, found a string; did you mean ["x"]?`
		if err == nil || err.Error() != want {
			t.Errorf("Load() error = %v, want %q", err, want)
		}
	})
}

func TestTaskFor(t *testing.T) {
	t.Parallel()
	c := &Config{Tasks: map[string]Task{
		"build": {
			DependsOn:   []string{"^build"},
			PassThrough: []string{"NODE_ENV"},
			Define:      map[string]string{"MODE": "release"},
		},
		"web#build": {PassThrough: []string{"SENTRY_DSN"}},
		"api#test":  {Define: map[string]string{"DB": "memory"}},
		"web#lint":  {},
	}}
	tests := []struct {
		name    string
		c       *Config
		project string
		task    string
		want    Task
	}{
		{name: "generic entry", c: c, project: "ui", task: "build", want: c.Tasks["build"]},
		{name: "project entry replaces the generic one entirely", c: c, project: "web", task: "build",
			want: Task{PassThrough: []string{"SENTRY_DSN"}}},
		{name: "project entry without a generic one", c: c, project: "api", task: "test",
			want: Task{Define: map[string]string{"DB": "memory"}}},
		{name: "project entry of another project does not apply", c: c, project: "web", task: "test", want: Task{}},
		{name: "empty project entry still replaces", c: c, project: "web", task: "lint", want: Task{}},
		{name: "no entry", c: c, project: "web", task: "dev", want: Task{}},
		{name: "scoped project", c: &Config{Tasks: map[string]Task{"@a/web#build": {DependsOn: []string{"x"}}}},
			project: "@a/web", task: "build", want: Task{DependsOn: []string{"x"}}},
		{name: "empty config", c: &Config{}, project: "web", task: "build", want: Task{}},
		{name: "nil config", c: nil, project: "web", task: "build", want: Task{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.c.TaskFor(tt.project, tt.task)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TaskFor(%q, %q) mismatch (-want +got):\n%s", tt.project, tt.task, diff)
			}
		})
	}
}

// TestTaskForCopies checks that changing what TaskFor returned leaves the
// config alone, so one task's declarations cannot leak into another's.
func TestTaskForCopies(t *testing.T) {
	t.Parallel()
	c, err := Parse("vx.json", []byte(`{"tasks": {"build": {"dependsOn": ["a"], "env": {"passThrough": ["B"], "define": {"C": "1"}}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.TaskFor("web", "build")
	got.DependsOn[0] = "changed"
	got.PassThrough[0] = "changed"
	got.Define["C"] = "changed"
	got.Define["NEW"] = "x"
	want := Task{DependsOn: []string{"a"}, PassThrough: []string{"B"}, Define: map[string]string{"C": "1"}}
	if diff := cmp.Diff(want, c.TaskFor("api", "build")); diff != "" {
		t.Errorf("TaskFor() after changing an earlier result mismatch (-want +got):\n%s", diff)
	}
}
