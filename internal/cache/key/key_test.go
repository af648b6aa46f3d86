package key

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/cache/reapi"
)

func TestMatchGlobs(t *testing.T) {
	tests := []struct {
		globs     []string
		root, rel string
		in        bool
		want      bool
	}{
		{[]string{"dist/**"}, "p/dist/a.js", "dist/a.js", true, true},
		{[]string{"dist/**", "!dist/**/*.map"}, "p/dist/a.js.map", "dist/a.js.map", true, false},
		{[]string{"!dist/**/*.map", "dist/**"}, "p/dist/a.js.map", "dist/a.js.map", true, true}, // the last match decides
		{[]string{"src/**"}, "p/lib/a.js", "lib/a.js", true, false},
		{[]string{"//scripts/**"}, "scripts/build.mjs", "", false, true},
		{[]string{"scripts/**"}, "scripts/build.mjs", "", false, false}, // project-relative globs never match outside
		{[]string{"**", "!//p/secret.txt"}, "p/secret.txt", "secret.txt", true, false},
		{nil, "p/a", "a", true, false},
	}
	for _, tt := range tests {
		if got := matchGlobs(tt.globs, tt.root, tt.rel, tt.in); got != tt.want {
			t.Errorf("matchGlobs(%q, %q, %q) = %v, want %v", tt.globs, tt.root, tt.rel, got, tt.want)
		}
	}
}

// TestGlobListMatchesDoublestar checks that the literal-directory shortcut
// of globList never changes an answer: every glob against every path, as
// doublestar alone decides it.
func TestGlobListMatchesDoublestar(t *testing.T) {
	globs := []string{"dist/**", "!dist/**/*.map", "dist", "distant/*", "src/a/b.ts", "src/*/x", "*.js", "**/*.js",
		"a\\*b/**", "{dist,lib}/**", "d?st/**", "//scripts/**", "!//p/dist/keep", "//p/dist/*.js", "[d]ist/**"}
	paths := []string{"dist", "dist/a.js", "dist/a.js.map", "dist/x/y.map", "distant/a", "distx/a.js", "src/a/b.ts",
		"src/a/b.tsx", "src/q/x", "a.js", "x/a.js", "a*b/c", "aXb/c", "lib/z", "dost/a", "dist/keep", ""}
	naive := func(list []string, rootRel, rel string, inProject bool) bool {
		in := false
		for _, g := range list {
			neg := strings.HasPrefix(g, "!")
			g = strings.TrimPrefix(g, "!")
			var ok bool
			if strings.HasPrefix(g, "//") {
				ok, _ = doublestar.Match(g[2:], rootRel)
			} else if inProject {
				ok, _ = doublestar.Match(g, rel)
			}
			if ok {
				in = !neg
			}
		}
		return in
	}
	for i := range globs {
		for j := i; j < len(globs) && j < i+3; j++ {
			list := globs[i : j+1]
			for _, rel := range paths {
				for _, inProject := range []bool{true, false} {
					root := "p/" + rel
					if want, got := naive(list, root, rel, inProject), matchGlobs(list, root, rel, inProject); got != want {
						t.Errorf("%q against %q (in project %v): got %v, doublestar says %v", list, rel, inProject, got, want)
					}
				}
			}
		}
	}
}

func TestInputPaths(t *testing.T) {
	files := map[string]fileState{}
	for _, p := range []string{"package.json", "pnpm-lock.yaml", "scripts/build.mjs", "scripts/x.txt",
		"web/package.json", "web/src/a.ts", "web/dist/a.js", "web/README.md", "webapp/a.ts",
		"mid/package.json", "mid/src/x.ts", "leaf/y.ts"} {
		files[p] = fileState{id: "id"}
	}
	files["web/dist/a.js"] = fileState{id: "id", produced: true}   // vx wrote it
	files["web/dist/mine.js"] = fileState{id: "id", tracked: true} // the user's
	snap := newSnapshot(files)
	tests := []struct {
		name string
		t    TaskSpec
		want []string
	}{
		{"default: the project's files but the outputs vx wrote", TaskSpec{RelDir: "web", Outputs: []string{"dist/**"}},
			[]string{"pnpm-lock.yaml", "web/README.md", "web/dist/mine.js", "web/package.json", "web/src/a.ts"}},
		{"the user's files under the outputs, whatever the inputs", TaskSpec{RelDir: "web", Inputs: []string{"src/**"}, Outputs: []string{"dist/**"}},
			[]string{"pnpm-lock.yaml", "web/dist/mine.js", "web/package.json", "web/src/a.ts"}},
		{"globs, root-relative, package.json always", TaskSpec{RelDir: "web", Inputs: []string{"src/**", "//scripts/*.mjs"}},
			[]string{"pnpm-lock.yaml", "scripts/build.mjs", "web/package.json", "web/src/a.ts"}},
		{"empty inputs", TaskSpec{RelDir: "web", Inputs: []string{}},
			[]string{"pnpm-lock.yaml", "web/package.json"}},
		{"root project: everything", TaskSpec{RelDir: ".", Outputs: []string{"web/dist/**"}},
			[]string{"leaf/y.ts", "mid/package.json", "mid/src/x.ts", "package.json", "pnpm-lock.yaml",
				"scripts/build.mjs", "scripts/x.txt", "web/README.md", "web/dist/mine.js", "web/package.json", "web/src/a.ts", "webapp/a.ts"}},
		{"source dependencies: all their files, whatever the inputs, each once", TaskSpec{RelDir: "web", Inputs: []string{"src/**", "//mid/src/**"}, SourceDeps: []string{"leaf", "mid"}},
			[]string{"leaf/y.ts", "mid/package.json", "mid/src/x.ts", "pnpm-lock.yaml", "web/package.json", "web/src/a.ts"}},
		{"the root as a source dependency: everything but the task's outputs", TaskSpec{RelDir: "web", Inputs: []string{"src/**"}, Outputs: []string{"dist/**"}, SourceDeps: []string{"."}},
			[]string{"leaf/y.ts", "mid/package.json", "mid/src/x.ts", "package.json", "pnpm-lock.yaml",
				"scripts/build.mjs", "scripts/x.txt", "web/README.md", "web/dist/mine.js", "web/package.json", "web/src/a.ts", "webapp/a.ts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range inputFiles(snap, &tt.t, nil, nil) {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("inputPaths (-want +got):\n%s", diff)
			}
		})
	}
}

// TestKeyParts: every part the docs list changes the key; machine paths
// and the order of declarations do not.
func TestKeyParts(t *testing.T) {
	files := map[string]fileState{"p/package.json": {id: "a"}, "p/src/x.ts": {id: "b"}}
	snap := newSnapshot(files)
	base := TaskSpec{RelDir: "p", Argv: []string{"tsc"}, Env: []reapi.Property{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}},
		Outputs: []string{"dist/**"}, Node: "v22.0.0", Deps: []DepKey{{ID: "q#build", Action: reapi.DigestOf([]byte("q"))}}}
	plat := []reapi.Property{{Name: "OSFamily", Value: "linux"}, {Name: "ISA", Value: "amd64"}}
	key := func(t TaskSpec, snap *snapshot, plat []reapi.Property) string {
		return makeKey(snap, &t, plat, nil, nil).Action.Hash
	}
	k0 := key(base, snap, plat)

	same := base
	same.Env = []reapi.Property{{Name: "B", Value: "2"}, {Name: "A", Value: "1"}}
	if key(same, snap, plat) != k0 {
		t.Error("the order of the declared variables changed the key")
	}
	changes := map[string]func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property){
		"argument": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) { ts.Argv = []string{"tsc", "--watch"} },
		"variable value": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) {
			ts.Env = []reapi.Property{{Name: "A", Value: "1"}, {Name: "B", Value: "3"}}
		},
		"unset variable": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) {
			ts.Env = []reapi.Property{{Name: "A", Value: "1"}}
		},
		"empty variable": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) {
			ts.Env = []reapi.Property{{Name: "A", Value: "1"}, {Name: "B", Value: ""}}
		},
		"outputs": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) { ts.Outputs = []string{"lib/**"} },
		"node":    func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) { ts.Node = "v20.0.0" },
		"dependency key": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) {
			ts.Deps = []DepKey{{ID: "q#build", Action: reapi.DigestOf([]byte("q2"))}}
		},
		"directory":    func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) { ts.RelDir = "p2" },
		"file content": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) { s["p/src/x.ts"] = fileState{id: "c"} },
		"executable bit": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) {
			s["p/src/x.ts"] = fileState{id: "b", exec: true}
		},
		"operating system": func(ts *TaskSpec, s map[string]fileState, p *[]reapi.Property) {
			*p = []reapi.Property{{Name: "OSFamily", Value: "darwin"}, {Name: "ISA", Value: "amd64"}}
		},
	}
	for name, change := range changes {
		ts := base
		f2 := map[string]fileState{}
		for k, v := range files {
			f2[k] = v
		}
		p2 := append([]reapi.Property(nil), plat...)
		change(&ts, f2, &p2)
		if key(ts, newSnapshot(f2), p2) == k0 {
			t.Errorf("changing the %s did not change the key", name)
		}
	}
	// No value in plain text, nor as its plain SHA-256.
	k := makeKey(snap, &base, plat, nil, nil)
	for i, e := range k.Env {
		if !strings.HasPrefix(e.Value, "hmac-sha256:") || strings.Contains(e.Value, sha256Hex(base.Env[i].Value)) {
			t.Errorf("variable %s enters the key as %q", e.Name, e.Value)
		}
	}
}
