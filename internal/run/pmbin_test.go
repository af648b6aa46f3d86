package run

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/workspace"
)

// packageBinCases are package.json texts of installed package managers,
// and what encoding/json does with their odd corners.
var packageBinCases = []string{
	`{"name": "pnpm", "version": "9.1.0", "bin": {"pnpm": "bin/pnpm.cjs", "pnpx": "bin/pnpx.cjs"}}`,
	`{"name": "yarn", "version": "1.22.22", "bin": {"yarn": "./bin/yarn.js", "yarnpkg": "./bin/yarn.js"}, "scripts": {"x": [1, {"a": null}]}}`,
	`{"name": "npm", "version": "10.2.0", "bin": "bin/npm-cli.js"}`,
	`{"name": "pnpm", "version": "9.1.0"}`,
	`{"name": "pnpm", "version": "9.1.0", "bin": null}`,
	`{"name": "pnpm", "version": "9.1.0", "bin": {"pnpm": "a", "pnpm": "b"}}`,
	`{"name": "pnpm", "version": "9.1.0", "bin": {"pnpm": 1}}`,
	`{"name": "pnpm", "version": "9.1.0", "bin": ["a"]}`,
	`{"name": "pnpm", "name": "other", "version": "9.1.0"}`,
	`{"Name": "pnpm", "version": "9.1.0"}`,
	`{"name": "pnpm", "VERSION": "9.1.0", "version": "8.0.0"}`,
	`{"name": null, "version": "9.1.0"}`,
	`{"name": "pnpm", "version": 9}`,
	`{"name": "pn\u0070m", "version": "9.1.0", "bin": {"pnpm": "bin/p\"q.cjs"}}`,
	`{"name": "pnpm", "version": "9.1.0"} x`,
	`{"name": "pnpm", "version": "9.1.0",}`,
	`[]`,
	``,
	"{\"name\": \"pnpm\xff\", \"version\": \"9\"}",
}

// TestPackageBin: the quick reader agrees with encoding/json whenever it
// answers.
func TestPackageBin(t *testing.T) {
	for _, data := range packageBinCases {
		t.Run(data, func(t *testing.T) { checkPackageBin(t, []byte(data)) })
	}
	// The common cases are the quick reader's.
	for _, data := range packageBinCases[:5] {
		if _, _, _, ok := workspace.PackageBin([]byte(data), "pnpm"); !ok {
			t.Errorf("%s: left to encoding/json", data)
		}
	}
}

func checkPackageBin(t *testing.T, data []byte) {
	t.Helper()
	for _, bin := range []string{"pnpm", "yarn", "npm"} {
		name, version, entry, ok := workspace.PackageBin(data, bin)
		if !ok {
			continue
		}
		wName, wVersion, wEntry, wOK := packageBinJSON(data, bin)
		if diff := cmp.Diff([]any{wName, wVersion, wEntry, wOK}, []any{name, version, entry, ok}); diff != "" {
			t.Errorf("%q, bin %s: PackageBin differs from encoding/json (-json +quick):\n%s", data, bin, diff)
		}
	}
}

func FuzzPackageBin(f *testing.F) {
	for _, c := range packageBinCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkPackageBin)
}
