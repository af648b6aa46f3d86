package workspace

import (
	"errors"
	"github.com/vxrun/vx/internal/testdir"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveDep is a table of dependency specs, one row per form, with
// the project each package manager links it to (testdata/workspaces
// pnpm-specs and pnpm-specs-linked hold pnpm's own answers for the pnpm
// rows).
func TestResolveDep(t *testing.T) {
	root := filepath.FromSlash("/ws")
	mk := func(name, rel, version string) *Project {
		return &Project{Name: name, RelDir: rel, Dir: filepath.Join(root, filepath.FromSlash(rel)), Version: version}
	}
	lib := mk("lib", "packages/lib", "1.2.0")
	lib2 := mk("lib2", "packages/lib2", "2.0.0-beta.1")
	nover := mk("nover", "packages/nover", "")
	dupA := mk("dup", "playground/a/dup", "1.0.0")
	dupB := mk("dup", "playground/b/dup", "1.0.0")
	app := mk("app", "packages/app", "1.0.0")
	all := []*Project{app, lib, lib2, nover, dupA, dupB}
	byName := map[string][]*Project{}
	for _, p := range all {
		byName[p.Name] = append(byName[p.Name], p)
	}
	type want struct{ npm, pnpm, pnpmLinked string } // RelDir, "" for none, "?" for ambiguous
	tests := []struct {
		name, spec string
		want       want
	}{
		{"lib", "workspace:*", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib", "workspace:^", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib", "workspace:~", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib", "workspace:", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib", "workspace:^1.1.0", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib", "workspace:1.2.0", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib", "workspace:^3.0.0", want{"", "", ""}},
		{"lib", "workspace:next", want{"", "", ""}},
		{"my-lib", "workspace:lib@*", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"my-lib", "workspace:lib@^1", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"lib2", "workspace:*", want{"packages/lib2", "packages/lib2", "packages/lib2"}}, // pre-release matches *
		{"lib2", "workspace:^2.0.0", want{"", "", ""}},                                   // but not ^2.0.0
		{"nover", "workspace:*", want{"packages/nover", "packages/nover", "packages/nover"}},
		{"lib", "workspace:../lib", want{"", "", ""}},
		{"my-lib", "file:../lib2", want{"packages/lib2", "packages/lib2", "packages/lib2"}},
		{"lib2", "file:../lib", want{"packages/lib", "packages/lib", "packages/lib"}}, // the path decides, not the key
		{"my-lib", "file:./../lib2", want{"packages/lib2", "packages/lib2", "packages/lib2"}},
		{"my-lib", "file:../lib2/", want{"packages/lib2", "packages/lib2", "packages/lib2"}},
		{"my-lib", "file:///ws/packages/lib", want{"packages/lib", "packages/lib", "packages/lib"}},
		{"my-lib", "../lib2", want{"packages/lib2", "packages/lib2", "packages/lib2"}},
		{"my-lib", "file:../lib2.tgz", want{"", "", ""}},
		{"my-lib", "file:../missing", want{"", "", ""}},
		{"dup", "file:../../playground/b/dup", want{"playground/b/dup", "playground/b/dup", "playground/b/dup"}},
		{"my-lib", "link:../lib2", want{"", "", ""}},
		{"lib", "npm:lib@*", want{"", "", ""}},
		{"x", "npm:@trpc/server@^10", want{"", "", ""}},
		{"lib", "^1.0.0", want{"packages/lib", "", "packages/lib"}},
		{"lib", "1.2.0", want{"packages/lib", "", "packages/lib"}},
		{"lib", "~1.2", want{"packages/lib", "", "packages/lib"}},
		{"lib", ">=1 <2", want{"packages/lib", "", "packages/lib"}},
		{"lib", "1.0.0 - 1.5", want{"packages/lib", "", "packages/lib"}},
		{"lib", "^0.9 || ^1", want{"packages/lib", "", "packages/lib"}},
		{"lib", "*", want{"packages/lib", "", "packages/lib"}},
		{"lib", "", want{"packages/lib", "", "packages/lib"}},
		{"lib", "^2.0.0", want{"", "", ""}},
		{"lib", "latest", want{"", "", ""}},
		{"lib", "github:acme/lib", want{"", "", ""}},
		{"lib", "https://example.com/lib.tgz", want{"", "", ""}},
		{"lib", "git+ssh://git@example.com/lib.git", want{"", "", ""}},
		{"lib2", "^2.0.0-beta.0", want{"packages/lib2", "", "packages/lib2"}},
		{"lib2", "^2.0.0", want{"", "", ""}},
		{"dup", "workspace:*", want{"?", "?", "?"}},
		{"dup", "^1.0.0", want{"?", "", "?"}},
		{"external", "workspace:*", want{"", "", ""}},
	}
	yes := true
	managers := []struct {
		name string
		pm   PackageManager
		get  func(want) string
	}{
		{"npm", PackageManager{Name: "npm"}, func(w want) string { return w.npm }},
		{"pnpm", PackageManager{Name: "pnpm", Major: 10}, func(w want) string { return w.pnpm }},
		{"pnpm linkWorkspacePackages", PackageManager{Name: "pnpm", Major: 10, Settings: PMSettings{LinkWorkspacePackages: &yes}}, func(w want) string { return w.pnpmLinked }},
	}
	for _, m := range managers {
		w := &Workspace{Root: root, Projects: all, byName: byName, PackageManager: m.pm}
		r := newResolver(w, nil, "linux")
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name+"@"+tt.spec, func(t *testing.T) {
				to, ambiguous := r.resolve(app, app.Dir, dep{tt.name, tt.spec})
				got := ""
				switch {
				case ambiguous:
					got = "?"
				case to != nil:
					got = to.RelDir
				}
				if want := m.get(tt.want); got != want {
					t.Errorf("resolve(%q: %q) = %q, want %q", tt.name, tt.spec, got, want)
				}
			})
		}
	}
}

func TestPlainRangesByVersion(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		pm   PackageManager
		want bool
	}{
		{PackageManager{Name: "npm"}, true},
		{PackageManager{Name: "yarn", Major: 1}, true},
		{PackageManager{Name: "yarn", Major: 4}, true},
		{PackageManager{Name: "bun"}, true},
		{PackageManager{Name: "pnpm"}, false},
		{PackageManager{Name: "pnpm", Major: 8}, true},
		{PackageManager{Name: "pnpm", Major: 9}, false},
		{PackageManager{Name: "pnpm", Major: 10, Settings: PMSettings{LinkWorkspacePackages: &yes}}, true},
		{PackageManager{Name: "pnpm", Major: 8, Settings: PMSettings{LinkWorkspacePackages: &no}}, false},
	}
	for _, tt := range tests {
		if got := tt.pm.linksPlainRanges(); got != tt.want {
			t.Errorf("%+v.linksPlainRanges() = %v, want %v", tt.pm, got, tt.want)
		}
	}
}

func TestSemver(t *testing.T) {
	tests := []struct {
		rng, version string
		want         bool
	}{
		{"^1.2.3", "1.9.0", true},
		{"^1.2.3", "2.0.0", false},
		{"^1.2.3", "1.2.2", false},
		{"^0.2.3", "0.2.9", true},
		{"^0.2.3", "0.3.0", false},
		{"^0.0.3", "0.0.4", false},
		{"^0.0", "0.0.9", true},
		{"^1.x", "1.5.0", true},
		{"~1.2.3", "1.2.9", true},
		{"~1.2.3", "1.3.0", false},
		{"~1", "1.9.9", true},
		{"1.x", "1.4.0", true},
		{"1.x", "2.0.0", false},
		{"1.2.*", "1.2.7", true},
		{"*", "0.0.1", true},
		{"*", "1.0.0-rc.1", false},
		{"", "3.0.0", true},
		{">=1.0.0 <2", "1.9.9", true},
		{">= 1.0.0", "1.0.0", true},
		{">1", "1.9.0", false},
		{">1", "2.0.0", true},
		{"<=1.2", "1.2.9", true},
		{"<=1.2", "1.3.0", false},
		{"<1.2", "1.1.9", true},
		{"1.0.0 - 2.0.0", "2.0.0", true},
		{"1.0 - 2", "2.9.0", true},
		{"1.0 - 2", "3.0.0", false},
		{"^1 || ^3", "3.1.0", true},
		{"=1.2.3", "1.2.3", true},
		{"v1.2.3", "1.2.3", true},
		{"1.2.3", "1.2.3+build.5", true},
		{"^1.2.3-beta.2", "1.2.3-beta.4", true},
		{"^1.2.3-beta.2", "1.2.3-beta.1", false},
		{"^1.2.3-beta.2", "1.2.4-beta.1", false},
		{"^1.2.3-beta.2", "1.2.4", true},
		{"^1.0.0-alpha", "1.0.0-beta", true},
		{"^1.0.0-alpha.10", "1.0.0-alpha.9", false},
		{"^1.0.0-alpha.beta", "1.0.0-alpha.1", false},
	}
	for _, tt := range tests {
		r, ok := parseRange(tt.rng)
		v, vok := parseVersion(tt.version)
		if !ok || !vok {
			t.Errorf("parse %q / %q: range ok %v, version ok %v", tt.rng, tt.version, ok, vok)
			continue
		}
		if got := r.satisfies(v, false); got != tt.want {
			t.Errorf("%q satisfies %q = %v, want %v", tt.version, tt.rng, got, tt.want)
		}
	}
	for _, bad := range []string{"latest", "next", "github:a/b", "../lib", "1.2.3.4", ">=abc"} {
		if _, ok := parseRange(bad); ok {
			t.Errorf("parseRange(%q) accepted", bad)
		}
	}
}

// TestDuplicateNames: Vite's playground in miniature (two pairs of
// projects sharing a name, each reached by file: from its parent). pnpm
// lists every project and links each parent to its own copy; so does vx,
// and a name that must pick one project is an error naming both.
func TestDuplicateNames(t *testing.T) {
	base := fixtures(t)
	w, err := Discover(filepath.Join(base, "vite-duplicates"))
	if err != nil {
		t.Fatalf("Discover() error = %v; duplicate names must not stop discovery", err)
	}
	dups := w.Duplicates()
	if len(dups) != 2 || len(dups["@vitejs/test-hmr"]) != 2 || len(dups["@vitejs/test-nested-exclude"]) != 2 {
		t.Errorf("Duplicates() = %v, want the two pairs", dups)
	}
	if p := w.Project("@vitejs/test-hmr"); p != nil {
		t.Errorf("Project(duplicate) = %+v, want nil", p)
	}
	_, err = w.Lookup("@vitejs/test-hmr")
	var de *DuplicateError
	if !errors.As(err, &de) {
		t.Fatalf("Lookup(duplicate) error = %v, want a *DuplicateError", err)
	}
	const want = `workspace: projects "playground/hmr" and "playground/module-graph" have the same name "@vitejs/test-hmr": give them different names, or select one by its directory (--filter ./playground/hmr)`
	if err.Error() != want {
		t.Errorf("Lookup(duplicate) error =\n%s\nwant\n%s", err, want)
	}
	if p, err := w.Lookup("vite"); err != nil || p == nil || p.RelDir != "packages/vite" {
		t.Errorf("Lookup(vite) = %v, %v", p, err)
	}
	if p, err := w.Lookup("nope"); err != nil || p != nil {
		t.Errorf("Lookup(nope) = %v, %v, want nil, nil", p, err)
	}
}

// TestAmbiguousDeps: a dependency by name on a shared name is recorded,
// not guessed.
func TestAmbiguousDeps(t *testing.T) {
	base := testdir.New(t)
	write(t, filepath.Join(base, "pnpm-workspace.yaml"), "packages: ['p/*']\n")
	write(t, filepath.Join(base, "package.json"), `{"name": "root"}`)
	write(t, filepath.Join(base, "p/a/package.json"), `{"name": "x", "version": "1.0.0"}`)
	write(t, filepath.Join(base, "p/b/package.json"), `{"name": "x", "version": "1.0.0"}`)
	write(t, filepath.Join(base, "p/c/package.json"), `{"name": "c", "dependencies": {"x": "workspace:*"}}`)
	w, err := Discover(base)
	if err != nil {
		t.Fatal(err)
	}
	c := w.Project("c")
	if c == nil || len(c.Deps) != 0 || strings.Join(c.AmbiguousDeps, ",") != "x" {
		t.Fatalf("c = %+v, want no Deps and AmbiguousDeps [x]", c)
	}
}
