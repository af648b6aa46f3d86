package jsconfig

import (
	"fmt"
	"testing"

	"github.com/vxrun/vx/internal/diag"
)

// TestLocate: a key path of the default export leads to where it is
// written, through the shapes a config takes; what was not written out
// leads to the closest enclosing part that was.
func TestLocate(t *testing.T) {
	t.Parallel()
	const cfg = `// a comment with { and "quotes"
import { defineConfig } from "@vxrun/vx";
const re = /[}{]"/g, tpl = ` + "`a ${ {x: 1}.x } }{ ${`nested ${1}`}`" + `;
/* { */
export default defineConfig({
  tasks: {
    build: {
      dependsOn: ["^build", 'codegen'],
      env: { define: { "PORT": "3000", ...extra } },
    },
    "web#build": { outputs: [".next/**"] },
    test: preset("test"),
    lint,
  },
});
`
	for _, tc := range []struct {
		path []any
		key  bool
		want string // line:col, and "~" when not exact
	}{
		{path: []any{"tasks"}, key: true, want: "6:3"},
		{path: []any{"tasks", "build"}, key: true, want: "7:5"},
		{path: []any{"tasks", "build"}, want: "7:12"},
		{path: []any{"tasks", "build", "dependsOn", 1}, want: "8:29"},
		{path: []any{"tasks", "build", "env", "define", "PORT"}, key: true, want: "9:24"},
		{path: []any{"tasks", "build", "env", "define", "PORT"}, want: "9:32"},
		{path: []any{"tasks", "web#build", "outputs", 0}, want: "11:30"},
		{path: []any{"tasks", "test", "env", "passThrough"}, key: true, want: "12:11~"},
		{path: []any{"tasks", "build", "env", "define", "FROM_SPREAD"}, want: "9:22~"},
		{path: []any{"tasks", "lint"}, key: true, want: "13:5"},
		{path: []any{"remoteCache"}, key: true, want: "5:29~"},
	} {
		at, ok := locate([]byte(cfg), tc.path, tc.key)
		got := "not found"
		if ok {
			l, c := diag.Position([]byte(cfg), at.off)
			got = fmt.Sprintf("%d:%d", l, c)
			if !at.exact {
				got += "~"
			}
		}
		if got != tc.want {
			t.Errorf("locate(%v, key %v) = %s, want %s", tc.path, tc.key, got, tc.want)
		}
	}
}

// TestLocateRoots: the exported object is found however it is exported.
func TestLocateRoots(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, src, want string }{
		{"object", "export default {\n  tasks: {},\n};", "2:3"},
		{"defineProject", "export default defineProject({ tasks: {} })", "1:32"},
		{"a const", "const config: Config = defineConfig({\n tasks: {} });\nexport default config;", "2:2"},
		{"a const, satisfies", "const config = { tasks: {} } satisfies Config;\nexport default config;", "1:18"},
		{"parenthesised", "export default ({ tasks: {} });", "1:19"},
		{"a shebang and a BOM", "\uFEFF#!/usr/bin/env node\nexport default { tasks: {} }", "2:18"},
		{"a function's result", "export default make();", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, ok := locate([]byte(tc.src), []any{"tasks"}, true)
			got := ""
			if ok && at.exact {
				l, c := diag.Position([]byte(tc.src), at.off)
				got = fmt.Sprintf("%d:%d", l, c)
			}
			if got != tc.want {
				t.Errorf("locate = %q, want %q", got, tc.want)
			}
		})
	}
}
