package key

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInputMatcherAgrees checks that [InputMatcher.Match] says of every
// file what the key does: a file is matched exactly when [inputFiles]
// lists it, given the files a scan would list (not those under
// node_modules or .git, in the store, or ignored by git) and, beside them,
// the ignored package.json and lockfiles the key reads all the same.
func TestInputMatcherAgrees(t *testing.T) {
	universe := []string{
		"package.json", "pnpm-lock.yaml", "yarn.lock", "vx.json", "tsconfig.base.json", "README.md",
		"scripts/build.mjs", "scripts/x.txt", "scripts/deep/y.mjs",
		"config/a.json", "config/sub/b.json",
		"web/package.json", "web/src/a.ts", "web/src/sub/b.ts", "web/dist/a.js", "web/dist/a.js.map",
		"web/README.md", "web/gen/ignored.ts", "web/.env.local", "web/node_modules/x/index.js",
		"web/.git/HEAD", "web/nested/package.json", "web/nested/src/n.ts",
		"webapp/a.ts", "webapp/package.json",
		"node_modules/.cache/vx/memo", "node_modules/left-pad/index.js", ".git/index", ".cache/vx/ac/00/x",
		"ui/package.json", "ui/src/u.ts", "ui/package-lock.json",
		"mid/package.json", "mid/src/x.ts", "mid/dist/x.js", "mid/node_modules/y/index.js", "leaf/package.json", "leaf/y.ts",
	}
	ignored := map[string]bool{"web/gen/ignored.ts": true, "web/.env.local": true, "yarn.lock": true, "webapp/package.json": true,
		"mid/dist/x.js": true, "leaf/package.json": true}
	tests := []struct {
		name  string
		spec  TaskSpec
		store string
	}{
		{"default inputs", TaskSpec{RelDir: "web"}, ""},
		{"outputs are not inputs", TaskSpec{RelDir: "web", Outputs: []string{"dist/**", "!dist/**/*.map"}}, ""},
		{"explicit globs", TaskSpec{RelDir: "web", Inputs: []string{"src/**", "!src/sub/**"}}, ""},
		{"root globs", TaskSpec{RelDir: "web", Inputs: []string{"**", "//scripts/*.mjs", "//tsconfig.base.json", "//config/**"}}, ""},
		{"a root glob with no literal base", TaskSpec{RelDir: "web", Inputs: []string{"//**/*.mjs"}}, ""},
		{"a root literal directory is not its files", TaskSpec{RelDir: "web", Inputs: []string{"//config"}}, ""},
		{"empty inputs", TaskSpec{RelDir: "web", Inputs: []string{}}, ""},
		{"an ignored package.json counts", TaskSpec{RelDir: "webapp"}, ""},
		{"the root project: everything", TaskSpec{RelDir: ".", Outputs: []string{"web/dist/**"}}, ""},
		{"the store inside the workspace", TaskSpec{RelDir: "."}, ".cache/vx"},
		{"a project's own lockfile is an ordinary file", TaskSpec{RelDir: "ui", Inputs: []string{"src/**"}}, ""},
		{"source dependencies: their files, whatever inputs say", TaskSpec{RelDir: "web", Inputs: []string{"src/**"}, Outputs: []string{"dist/**"}, SourceDeps: []string{"leaf", "mid"}}, ""},
		{"a source dependency a root glob covers too", TaskSpec{RelDir: "web", Inputs: []string{"src/**", "//mid/src/**"}, SourceDeps: []string{"mid"}}, ""},
		{"a source dependency inside the project follows its rules", TaskSpec{RelDir: "web", Inputs: []string{"src/**"}, SourceDeps: []string{"web/nested"}}, ""},
		{"the root as a source dependency", TaskSpec{RelDir: "web", Outputs: []string{"dist/**"}, SourceDeps: []string{"."}}, ".cache/vx"},
		{"a root task with source dependencies", TaskSpec{RelDir: ".", Inputs: []string{"scripts/**"}, SourceDeps: []string{"mid"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]fileState{}
			for _, p := range universe {
				if ignored[p] || hasNodeModules(p) || hasGitDir(p) || tt.store != "" && strings.HasPrefix(p, tt.store+"/") {
					continue
				}
				files[p] = fileState{id: "id", produced: true} // outputs vx wrote: not the user's, so not inputs
			}
			extra := func(p string) (fileState, bool) { return fileState{id: "x"}, ignored[p] }
			want := map[string]bool{}
			for _, f := range inputFiles(newSnapshot(files), &tt.spec, extra, nil) {
				want[f.Path] = true
			}
			m := NewInputMatcher(&tt.spec, tt.store)
			got := map[string]bool{}
			for _, p := range universe {
				if m.Match(p, ignored[p]) {
					got[p] = true
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Match disagrees with the key's input files (-key +Match):\n%s", diff)
			}
			if len(want) == 0 {
				t.Error("the case lists no input at all")
			}
		})
	}
}

func TestInputDirs(t *testing.T) {
	tests := []struct {
		spec TaskSpec
		want []string
	}{
		{TaskSpec{RelDir: "web"}, append([]string{"web"}, Lockfiles...)},
		{TaskSpec{RelDir: "web", Inputs: []string{"src/**", "//scripts/*.mjs"}}, append([]string{"web", "scripts"}, Lockfiles...)},
		{TaskSpec{RelDir: "web", Inputs: []string{"//**/*.mjs"}}, []string{"."}},
		{TaskSpec{RelDir: "."}, []string{"."}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, InputDirs(&tt.spec)); diff != "" {
			t.Errorf("InputDirs(%+v) (-want +got):\n%s", tt.spec, diff)
		}
	}
}
