package workspace

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fixtures copies testdata/workspaces (at the repository's top) into a fresh
// temporary directory and returns its real path. Working on a copy keeps
// the tests hermetic (no package.json above it but the fixtures' own) and
// lets them add symbolic links and node_modules, which git stores badly.
func fixtures(t testing.TB) string {
	t.Helper()
	dst, err := filepath.EvalSymlinks(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dst, os.DirFS(filepath.Join("..", "testdata", "workspaces"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// symlink creates a symbolic link and reports whether it works: Windows
// needs a privilege to create one, and Wine creates links it cannot follow.
func symlink(t testing.TB, target, link string) bool {
	t.Helper()
	if err := os.Symlink(filepath.FromSlash(target), filepath.FromSlash(link)); err != nil {
		t.Logf("cannot create symbolic links here: %v", err)
		return false
	}
	if _, err := os.Stat(link); err != nil {
		t.Logf("symbolic links do not work here: %v", err)
		return false
	}
	return true
}

// proj is what the table tests compare of a Project; summary of a
// Workspace. Paths are slash-separated and relative to the fixtures copy.
type proj struct {
	Name, RelDir, Version string
	Deps                  []string
	IsRoot                bool
}

type summary struct {
	Root     string
	Current  string // RelDir of the current project
	Projects []proj
	Bins     []string // BinPaths(Current)
}

func summarize(t *testing.T, base string, w *Workspace) summary {
	t.Helper()
	rel := func(p string) string {
		r, err := filepath.Rel(base, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	s := summary{Root: rel(w.Root)}
	if w.Current != nil {
		s.Current = w.Current.RelDir
	}
	for _, p := range w.Projects {
		s.Projects = append(s.Projects, proj{Name: p.Name, RelDir: p.RelDir, Version: p.Version, Deps: depNames(p), IsRoot: p.IsRoot})
	}
	for _, b := range w.BinPaths(w.Current) {
		s.Bins = append(s.Bins, rel(b))
	}
	return s
}

func depNames(p *Project) []string {
	var out []string
	for _, d := range p.Deps {
		out = append(out, d.Name)
	}
	return out
}

// checkInvariants checks what must hold of every discovered workspace.
func checkInvariants(t *testing.T, w *Workspace) {
	t.Helper()
	if !filepath.IsAbs(w.Root) {
		t.Errorf("Root %q is not absolute", w.Root)
	}
	if real, err := filepath.EvalSymlinks(w.Root); err != nil || real != w.Root {
		t.Errorf("Root %q: real path %q, %v", w.Root, real, err)
	}
	_, err := os.Stat(filepath.Join(w.Root, "package.json"))
	rootIsProject := err == nil
	if rootIsProject && (len(w.Projects) == 0 || !w.Projects[0].IsRoot || w.Projects[0].Dir != w.Root || w.Projects[0].RelDir != ".") {
		t.Errorf("the first project is not the root: %+v", w.Projects[0])
	}
	if !rootIsProject && len(w.Projects) > 0 && w.Projects[0].IsRoot {
		t.Errorf("a root without package.json is a project: %+v", w.Projects[0])
	}
	current := false
	for i, p := range w.Projects {
		current = current || p == w.Current
		if want := filepath.Join(w.Root, filepath.FromSlash(p.RelDir)); p.Dir != want {
			t.Errorf("project %q: Dir = %q, want %q", p.Name, p.Dir, want)
		}
		if p.Manifest != "" && p.Manifest != filepath.Join(p.Dir, "package.json") {
			t.Errorf("project %q: Manifest = %q", p.Name, p.Manifest)
		}
		if p.Scripts == nil {
			t.Errorf("project %q: nil Scripts", p.Name)
		}
		if p.Manifest == "" {
			t.Errorf("project %q: no Manifest", p.Name)
		}
		if i > 0 && (p.IsRoot || compareRel(w.Projects[i-1].RelDir, p.RelDir) >= 0) {
			t.Errorf("projects out of order or two roots at %d: %q, %q", i, w.Projects[i-1].RelDir, p.RelDir)
		}
		if w.Project(p.Name) != p {
			t.Errorf("Project(%q) does not return it", p.Name)
		}
	}
	if !current && (w.Current != nil || rootIsProject) {
		t.Errorf("Current %+v is not in Projects", w.Current)
	}
}

func TestDiscover(t *testing.T) {
	base := fixtures(t)
	// What git does not keep well: node_modules, symbolic links.
	write(t, filepath.Join(base, "npm/node_modules/dep/package.json"), `{"name": "dep"}`)
	write(t, filepath.Join(base, "npm/packages/node_modules/package.json"), `{"name": "not-a-project"}`)
	write(t, filepath.Join(base, "npm/packages/a/node_modules/x/package.json"), `{"name": "x"}`)
	links := true
	links = symlink(t, "npm", filepath.Join(base, "alias")) && links
	links = symlink(t, "../outside/lib", filepath.Join(base, "linked/packages/lib")) && links
	links = symlink(t, "..", filepath.Join(base, "linked/packages/up")) && links                  // the root again
	links = symlink(t, "../packages/a", filepath.Join(base, "linked/packages/a-again")) && links  // a again
	os.Symlink(filepath.FromSlash("../nowhere"), filepath.Join(base, "linked/packages/dangling")) // dangling, if links exist at all
	links = symlink(t, "..", filepath.Join(base, "loops/a/back")) && links
	links = symlink(t, ".", filepath.Join(base, "loops/a/self")) && links
	links = symlink(t, "../..", filepath.Join(base, "loops/a/b/up")) && links
	links = symlink(t, "../../linked/outside", filepath.Join(base, "loops/a/out")) && links
	links = symlink(t, "npm/packages/a", filepath.Join(base, "shortcut")) && links

	npmRoot := []proj{
		{Name: "npm-root", RelDir: ".", Version: "1.0.0", Deps: []string{"a"}, IsRoot: true},
		{Name: "a", RelDir: "packages/a", Version: "1.2.3", Deps: []string{"b"}},
		{Name: "b", RelDir: "packages/b", Version: "1.0.0", Deps: []string{"a"}},
	}
	yarn := []proj{
		{Name: "yarn-root", RelDir: ".", IsRoot: true},
		{Name: "@acme/web", RelDir: "apps/web", Deps: []string{"@acme/ui"}},
		{Name: "@acme/util", RelDir: "libs/deep/nested/util", Deps: []string{"@acme/ui"}},
		{Name: "@acme/ui", RelDir: "libs/ui"},
	}
	pnpm := []proj{
		{Name: "pnpm-root", RelDir: ".", IsRoot: true},
		{Name: "site", RelDir: "apps/site", Deps: []string{"cli"}},
		{Name: "cli", RelDir: "packages/cli", Deps: []string{"core"}},
		{Name: "core", RelDir: "packages/core", Version: "0.1.0"},
	}
	nestedOuter := []proj{
		{Name: "outer", RelDir: ".", IsRoot: true},
		{Name: "inner", RelDir: "packages/inner"},
		{Name: "other", RelDir: "packages/other", Deps: []string{"inner"}},
	}
	nestedInner := []proj{
		{Name: "inner", RelDir: ".", IsRoot: true},
		{Name: "l1", RelDir: "libs/l1"},
	}
	linked := []proj{
		{Name: "linked-root", RelDir: ".", IsRoot: true},
		{Name: "a", RelDir: "packages/a", Deps: []string{"lib"}},
		{Name: "lib", RelDir: "packages/lib"},
	}
	single := func(name, version string) []proj {
		return []proj{{Name: name, RelDir: ".", Version: version, IsRoot: true}}
	}

	tests := []struct {
		name  string
		start string // relative to the fixtures copy
		want  summary
	}{ // cases named "symlink/..." need working links
		{"npm/root", "npm", summary{"npm", ".", npmRoot, []string{"npm/node_modules/.bin"}}},
		{"npm/project subdir", "npm/packages/a/src", summary{"npm", "packages/a", npmRoot,
			[]string{"npm/packages/a/node_modules/.bin", "npm/node_modules/.bin"}}},
		{"npm/project", "npm/packages/b", summary{"npm", "packages/b", npmRoot,
			[]string{"npm/packages/b/node_modules/.bin", "npm/node_modules/.bin"}}},
		{"npm/matched dir without package.json is the root's", "npm/packages/docs", summary{"npm", ".", npmRoot, []string{"npm/node_modules/.bin"}}},
		{"npm/hidden dir is not matched by *", "npm/packages/.hidden", summary{"npm/packages/.hidden", ".", single("hidden", ""),
			[]string{"npm/packages/.hidden/node_modules/.bin"}}},
		{"npm/unmatched project", "npm/tools/t", summary{"npm/tools/t", ".", single("tool", ""), []string{"npm/tools/t/node_modules/.bin"}}},
		{"npm/inside node_modules", "npm/node_modules/dep", summary{"npm/node_modules/dep", ".", single("dep", ""),
			[]string{"npm/node_modules/dep/node_modules/.bin"}}},
		{"npm/matched node_modules", "npm/packages/node_modules", summary{"npm/packages/node_modules", ".", single("not-a-project", ""),
			[]string{"npm/packages/node_modules/node_modules/.bin"}}},
		{"yarn object form/root", "yarn-object", summary{"yarn-object", ".", yarn, []string{"yarn-object/node_modules/.bin"}}},
		{"yarn object form/dir without manifest", "yarn-object/libs/deep", summary{"yarn-object", ".", yarn, []string{"yarn-object/node_modules/.bin"}}},
		{"yarn object form/deep project", "yarn-object/libs/deep/nested/util", summary{"yarn-object", "libs/deep/nested/util", yarn,
			[]string{"yarn-object/libs/deep/nested/util/node_modules/.bin", "yarn-object/node_modules/.bin"}}},
		{"pnpm/app", "pnpm/apps/site", summary{"pnpm", "apps/site", pnpm,
			[]string{"pnpm/apps/site/node_modules/.bin", "pnpm/node_modules/.bin"}}},
		{"pnpm/negated dir", "pnpm/apps/site/test/fixture", summary{"pnpm/apps/site/test/fixture", ".", single("site-fixture", ""),
			[]string{"pnpm/apps/site/test/fixture/node_modules/.bin"}}},
		{"pnpm/yaml over workspaces field", "pnpm-precedence", summary{"pnpm-precedence", ".", []proj{
			{Name: "root", RelDir: ".", IsRoot: true}, {Name: "y", RelDir: "from-yaml/y"}},
			[]string{"pnpm-precedence/node_modules/.bin"}}},
		{"pnpm/unlisted by yaml", "pnpm-precedence/from-json/j", summary{"pnpm-precedence/from-json/j", ".", single("j", ""),
			[]string{"pnpm-precedence/from-json/j/node_modules/.bin"}}},
		{"pnpm/root without package.json", "pnpm-no-root-manifest/pkgs/p", summary{"pnpm-no-root-manifest", "pkgs/p", []proj{
			{Name: "p", RelDir: "pkgs/p"}},
			[]string{"pnpm-no-root-manifest/pkgs/p/node_modules/.bin", "pnpm-no-root-manifest/node_modules/.bin"}}},
		{"pnpm/at a root without package.json", "pnpm-no-root-manifest", summary{"pnpm-no-root-manifest", "", []proj{
			{Name: "p", RelDir: "pkgs/p"}},
			[]string{"pnpm-no-root-manifest/node_modules/.bin"}}},
		{"negation/root", "negation", summary{"negation", ".", []proj{
			{Name: "neg-root", RelDir: ".", IsRoot: true},
			{Name: "private-ok", RelDir: "packages/private-ok"},
			{Name: "pub", RelDir: "packages/pub"}},
			[]string{"negation/node_modules/.bin"}}},
		{"negation/excluded project", "negation/packages/private-a", summary{"negation/packages/private-a", ".", single("private-a", ""),
			[]string{"negation/packages/private-a/node_modules/.bin"}}},
		{"nested/outer root", "nested", summary{"nested", ".", nestedOuter, []string{"nested/node_modules/.bin"}}},
		{"nested/inner root declares its own", "nested/packages/inner", summary{"nested/packages/inner", ".", nestedInner,
			[]string{"nested/packages/inner/node_modules/.bin"}}},
		{"nested/inner member", "nested/packages/inner/libs/l1", summary{"nested/packages/inner", "libs/l1", nestedInner,
			[]string{"nested/packages/inner/libs/l1/node_modules/.bin", "nested/packages/inner/node_modules/.bin"}}},
		{"nested/outer member", "nested/packages/other", summary{"nested", "packages/other", nestedOuter,
			[]string{"nested/packages/other/node_modules/.bin", "nested/node_modules/.bin"}}},
		{"excluded/unmatched project", "excluded/examples/demo", summary{"excluded/examples/demo", ".", single("demo", ""),
			[]string{"excluded/examples/demo/node_modules/.bin"}}},
		{"noname", "noname/packages/named", summary{"noname", "packages/named", []proj{
			{Name: ".", RelDir: ".", IsRoot: true},
			{Name: "packages/anon", RelDir: "packages/anon", Version: "0.1.0"},
			{Name: "named", RelDir: "packages/named", Deps: []string{"packages/anon"}},
			{Name: "packages/null-name", RelDir: "packages/null-name"}},
			[]string{"noname/packages/named/node_modules/.bin", "noname/node_modules/.bin"}}},
		{"single/subdir", "single/src", summary{"single", ".", single("solo", "2.0.0"), []string{"single/node_modules/.bin"}}},
		{"symlink/whole root", "alias/packages/a", summary{"npm", "packages/a", npmRoot,
			[]string{"npm/packages/a/node_modules/.bin", "npm/node_modules/.bin"}}},
		{"symlink/root through link", "alias", summary{"npm", ".", npmRoot, []string{"npm/node_modules/.bin"}}},
		{"symlink/root", "linked", summary{"linked", ".", linked, []string{"linked/node_modules/.bin"}}},
		{"symlink/project through link", "linked/packages/lib", summary{"linked", "packages/lib", linked,
			[]string{"linked/packages/lib/node_modules/.bin", "linked/node_modules/.bin"}}},
		{"symlink/link target", "linked/outside/lib", summary{"linked", "packages/lib", linked,
			[]string{"linked/packages/lib/node_modules/.bin", "linked/node_modules/.bin"}}},
		{"symlink/duplicate link to a project", "linked/packages/a-again", summary{"linked", "packages/a", linked,
			[]string{"linked/packages/a/node_modules/.bin", "linked/node_modules/.bin"}}},
		{"symlink/project outside, reached by its real path", "shortcut", summary{"npm", "packages/a", npmRoot,
			[]string{"npm/packages/a/node_modules/.bin", "npm/node_modules/.bin"}}},
		{"symlink/cycles end", "loops/a/b", summary{"loops", "a/b", []proj{
			{Name: "loops-root", RelDir: ".", IsRoot: true},
			{Name: "a", RelDir: "a"},
			{Name: "b", RelDir: "a/b"},
			{Name: "lib", RelDir: "a/out/lib"}},
			[]string{"loops/a/b/node_modules/.bin", "loops/node_modules/.bin"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.name, "symlink/") && !links {
				t.Skip("no working symbolic links here")
			}
			w, err := Discover(filepath.Join(base, filepath.FromSlash(tt.start)))
			if err != nil {
				t.Fatalf("Discover() error: %v", err)
			}
			checkInvariants(t, w)
			if diff := cmp.Diff(tt.want, summarize(t, base, w)); diff != "" {
				t.Errorf("Discover() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverRelativeStart(t *testing.T) {
	base := fixtures(t)
	t.Chdir(filepath.Join(base, "npm", "packages"))
	w, err := Discover(filepath.Join("a", "src", ".."))
	if err != nil {
		t.Fatal(err)
	}
	want := summary{"npm", "packages/a", []proj{
		{Name: "npm-root", RelDir: ".", Version: "1.0.0", Deps: []string{"a"}, IsRoot: true},
		{Name: "a", RelDir: "packages/a", Version: "1.2.3", Deps: []string{"b"}},
		{Name: "b", RelDir: "packages/b", Version: "1.0.0", Deps: []string{"a"}},
	}, []string{"npm/packages/a/node_modules/.bin", "npm/node_modules/.bin"}}
	if diff := cmp.Diff(want, summarize(t, base, w)); diff != "" {
		t.Errorf("Discover() mismatch (-want +got):\n%s", diff)
	}
}

// TestDiscoverProjectFields checks the fields the summaries leave out.
func TestDiscoverProjectFields(t *testing.T) {
	base := fixtures(t)
	w, err := Discover(filepath.Join(base, "npm", "packages", "a"))
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "npm")
	want := &Project{
		Name:     "a",
		ID:       "a",
		Dir:      filepath.Join(root, "packages", "a"),
		RelDir:   "packages/a",
		Version:  "1.2.3",
		Manifest: filepath.Join(root, "packages", "a", "package.json"),
		Scripts:  map[string]string{"build": "tsc", "test": "node --test"},
		Deps:     []*Project{w.Project("b")},
	}
	if diff := cmp.Diff(want, w.Current, cmpopts.IgnoreFields(Project{}, "Deps")); diff != "" {
		t.Errorf("Discover().Current mismatch (-want +got):\n%s", diff)
	}
	if got := depNames(w.Current); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Discover().Current.Deps = %q, want [b]", got)
	}

	w, err = Discover(filepath.Join(base, "pnpm-no-root-manifest", "pkgs", "p"))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Projects[0]; got.IsRoot {
		t.Errorf("root without package.json is a project: %+v", got)
	}
	if got, want := w.Root, filepath.Join(base, "pnpm-no-root-manifest"); got != want {
		t.Errorf("root without package.json: Root = %q, want %q", got, want)
	}

	w, err = Discover(filepath.Join(base, "single"))
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Projects) != 1 || w.Current != w.Projects[0] {
		t.Errorf("single project: Projects = %+v, Current = %+v, want the root alone", w.Projects, w.Current)
	}
}

func TestDiscoverErrors(t *testing.T) {
	base := fixtures(t)
	write(t, filepath.Join(base, "bad-utf8/package.json"), "{\"name\": \"caf\xe9\"}")
	write(t, filepath.Join(base, "nul-name/package.json"), `{"name": "a\u0000b"}`)
	write(t, filepath.Join(base, "bad-pattern/package.json"), `{"workspaces": ["packages/["]}`)
	write(t, filepath.Join(base, "outside-pattern/package.json"), `{"workspaces": ["../*"]}`)
	write(t, filepath.Join(base, "misspelled/pnpm-workspace.yml"), "packages: ['*']\n")
	write(t, filepath.Join(base, "misspelled/package.json"), `{}`)
	write(t, filepath.Join(base, "eq-dir/package.json"), `{"workspaces": ["*"]}`)
	write(t, filepath.Join(base, "eq-dir/a=b/package.json"), `{}`)
	write(t, filepath.Join(base, "hash-name/package.json"), `{"workspaces": ["p/*"]}`)
	write(t, filepath.Join(base, "hash-name/p/a/package.json"), "{\n  \"name\": \"a#b\"\n}")
	write(t, filepath.Join(base, "hash-dir/package.json"), `{"workspaces": ["*"]}`)
	write(t, filepath.Join(base, "hash-dir/c#/package.json"), `{}`)
	write(t, filepath.Join(base, "slashes/package.json"), `{"name": "//"}`)
	write(t, filepath.Join(base, "not-a-dir"), "")
	if err := os.MkdirAll(filepath.Join(base, "empty", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		start string
		want  string // {base} stands for the fixtures copy, in OS form
	}{
		{"malformed-json", `{base}/malformed-json/packages/bad/package.json:3:17: invalid JSON: invalid character '.' after object key:value pair`},
		{"malformed-json/packages/bad", `{base}/malformed-json/packages/bad/package.json:3:17: invalid JSON: invalid character '.' after object key:value pair`},
		{"malformed-yaml/packages/p", `{base}/malformed-yaml/pnpm-workspace.yaml:3: invalid YAML: did not find expected ',' or ']'`},
		{"wrong-type", `{base}/wrong-type/package.json:3:17: "workspaces" must be an array of patterns or an object with a "packages" array, got a string`},
		{"bad-name", `{base}/bad-name/packages/eq/package.json:2:11: "name" must not contain "="`},
		{"bad-utf8", `{base}/bad-utf8/package.json:1:10: "name" is not valid UTF-8`},
		{"nul-name", `{base}/nul-name/package.json:1:10: "name" must not contain a NUL character`},
		{"bad-pattern", `{base}/bad-pattern/package.json: invalid workspace pattern "packages/[": syntax error in pattern`},
		{"outside-pattern", `{base}/outside-pattern/package.json: invalid workspace pattern "../*": must stay inside the workspace root (no leading "/", no "..")`},
		{"misspelled", `{base}/misspelled/pnpm-workspace.yml: pnpm reads only "pnpm-workspace.yaml": rename the file`},
		{"eq-dir", `workspace: project "a=b" has no "name" and its directory cannot stand in for one: the name must not contain "="`},
		{"hash-name", `{base}/hash-name/p/a/package.json:2:11: "name" must not contain "#" (vx task ids are <project>#<task>)`},
		{"hash-dir", `workspace: project "c#" has no "name" and its directory cannot stand in for one: the name must not contain "#" (vx task ids are <project>#<task>)`},
		{"slashes", `{base}/slashes/package.json:1:10: "name" must not be "//" (vx's id of the workspace root)`},
		{"empty/sub", `workspace: no package.json found in "{base}/empty/sub" or any directory above it: run vx inside a JavaScript project, or create a package.json (npm init)`},
		{"not-a-dir", `workspace: start directory "{base}/not-a-dir" is not a directory`},
		{"missing", `workspace: cannot use "{base}/missing" as the start directory: stat {rawbase}/missing: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.start, func(t *testing.T) {
			w, err := Discover(filepath.Join(base, filepath.FromSlash(tt.start)))
			if err == nil {
				t.Fatalf("Discover() = %+v, want an error", w)
			}
			want := strings.ReplaceAll(tt.want, "{base}", strings.ReplaceAll(filepath.ToSlash(base), `\`, `\\`))
			want = strings.ReplaceAll(want, "{rawbase}", base)
			if runtime.GOOS == "windows" {
				t.Skip("messages spell Unix paths")
			}
			if diff := cmp.Diff(want, err.Error()); diff != "" {
				t.Errorf("Discover() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverErrorValues(t *testing.T) {
	base := fixtures(t)
	_, err := Discover(filepath.Join(base, "malformed-json"))
	var fe *diag.Error
	if !errors.As(err, &fe) {
		t.Fatalf("Discover() error %v is not a *diag.Error", err)
	}
	want := &diag.Error{Path: filepath.Join(base, "malformed-json", "packages", "bad", "package.json"), Line: 3, Col: 17, Msg: "invalid JSON"}
	if diff := cmp.Diff(want, fe,
		cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Err" }, cmp.Ignore())); diff != "" {
		t.Errorf("Discover() error mismatch (-want +got):\n%s", diff)
	}
	if !errors.As(err, new(*jsonSyntaxError)) {
		t.Errorf("Discover() error %v does not wrap the *json.SyntaxError", err)
	}

	if err := os.MkdirAll(filepath.Join(base, "nothing"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Discover(filepath.Join(base, "nothing"))
	if !errors.Is(err, ErrNoPackageJSON) {
		t.Errorf("Discover() error %v does not wrap ErrNoPackageJSON", err)
	}
}

// failFS fails one operation on one path, as an unreadable directory or
// file would.
type failFS struct {
	osFS
	op, path string
}

func (f failFS) fail(op, path string) error {
	if op == f.op && path == f.path {
		return &fs.PathError{Op: map[string]string{"ReadDir": "open", "Stat": "stat", "ReadFile": "open"}[op], Path: path, Err: fs.ErrPermission}
	}
	return nil
}

func (f failFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	if err := f.fail("ReadDir", dir); err != nil {
		return nil, err
	}
	return f.osFS.ReadDir(dir)
}

func (f failFS) Stat(name string) (fs.FileInfo, error) {
	if err := f.fail("Stat", name); err != nil {
		return nil, err
	}
	return f.osFS.Stat(name)
}

func (f failFS) ReadFile(name string) ([]byte, error) {
	if err := f.fail("ReadFile", name); err != nil {
		return nil, err
	}
	return f.osFS.ReadFile(name)
}

func TestDiscoverUnreadable(t *testing.T) {
	base := fixtures(t)
	root := filepath.Join(base, "yarn-object")
	tests := []struct {
		op, path, start, want string
	}{
		{"ReadDir", "libs", "", `workspace: cannot read directory "libs": open {base}/libs: permission denied`},
		{"ReadDir", "libs/deep/nested", "", `workspace: cannot read directory "libs/deep/nested": open {base}/libs/deep/nested: permission denied`},
		{"ReadFile", "libs/ui/package.json", "", `{base}/libs/ui/package.json: cannot read: permission denied`},
		{"ReadFile", "apps/web/package.json", "", `{base}/apps/web/package.json: cannot read: permission denied`},
		{"ReadFile", "pnpm-workspace.yaml", "apps/web", `{base}/pnpm-workspace.yaml: cannot read: permission denied`},
		{"Stat", "libs/deep/package.json", "libs/deep", `workspace: cannot read directory "{base}/libs/deep": stat {base}/libs/deep/package.json: permission denied`},
	}
	for _, tt := range tests {
		t.Run(tt.op+" "+tt.path, func(t *testing.T) {
			fsys := failFS{op: tt.op, path: filepath.Join(root, filepath.FromSlash(tt.path))}
			_, err := discover(fsys, runtime.GOOS, filepath.Join(root, filepath.FromSlash(tt.start), "."))
			if err == nil {
				t.Fatal("discover() succeeded, want an error")
			}
			if !errors.Is(err, fs.ErrPermission) {
				t.Errorf("discover() error %v does not wrap fs.ErrPermission", err)
			}
			if runtime.GOOS == "windows" {
				return
			}
			if diff := cmp.Diff(strings.ReplaceAll(tt.want, "{base}", root), err.Error()); diff != "" {
				t.Errorf("discover() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiscoverUnreadableReal checks a real unreadable directory, where the
// OS enforces permissions on the test's user.
func TestDiscoverUnreadableReal(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs Unix permissions enforced on the user (not root)")
	}
	base := fixtures(t)
	dir := filepath.Join(base, "yarn-object", "libs")
	if err := os.Chmod(dir, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	_, err := Discover(filepath.Join(base, "yarn-object"))
	if err == nil || !strings.Contains(err.Error(), `cannot read directory "libs"`) {
		t.Errorf("Discover() error = %v, want one naming \"libs\"", err)
	}
}

func TestBinPaths(t *testing.T) {
	root := filepath.Join(string(filepath.Separator)+"ws", "repo")
	rootP := &Project{Name: "r", Dir: root, RelDir: ".", IsRoot: true}
	a := &Project{Name: "a", Dir: filepath.Join(root, "packages", "a"), RelDir: "packages/a"}
	w := &Workspace{Root: root, Projects: []*Project{rootP, a}, Current: a}
	tests := []struct {
		name string
		p    *Project
		want []string
	}{
		{"member", a, []string{filepath.Join(root, "packages", "a", "node_modules", ".bin"), filepath.Join(root, "node_modules", ".bin")}},
		{"root", rootP, []string{filepath.Join(root, "node_modules", ".bin")}},
		{"nil", nil, []string{filepath.Join(root, "node_modules", ".bin")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, w.BinPaths(tt.p)); diff != "" {
				t.Errorf("BinPaths() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProjectByName(t *testing.T) {
	a, b := &Project{Name: "a"}, &Project{Name: "@s/b"}
	hand := &Workspace{Projects: []*Project{a, b}} // indexed on first use
	base := fixtures(t)
	found, err := Discover(filepath.Join(base, "npm"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		w    *Workspace
		find string
		want *Project
	}{
		{"by hand", hand, "@s/b", b},
		{"by hand, absent", hand, "c", nil},
		{"discovered", found, "b", found.Projects[2]},
		{"discovered, absent", found, "c", nil},
		{"discovered, empty", found, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.w.Project(tt.find); got != tt.want {
				t.Errorf("Project(%q) = %+v, want %+v", tt.find, got, tt.want)
			}
		})
	}
}

func TestPathKey(t *testing.T) {
	tests := []struct {
		goos, a, b string
		same       bool
	}{
		{"windows", `C:\Work\Repo`, `c:\work\repo`, true},
		{"windows", `C:\a`, `C:\b`, false},
		{"linux", "/Work/repo", "/work/repo", false},
		{"darwin", "/work/repo", "/work/repo", true},
	}
	for _, tt := range tests {
		t.Run(tt.goos+" "+tt.a, func(t *testing.T) {
			if got := pathKey(tt.goos, tt.a) == pathKey(tt.goos, tt.b); got != tt.same {
				t.Errorf("pathKey(%q, %q) == pathKey(%q, %q) is %v, want %v", tt.goos, tt.a, tt.goos, tt.b, got, tt.same)
			}
		})
	}
}

func TestCompareRel(t *testing.T) {
	in := []string{"a-b", "b", "a/b", ".", "a", "a/b/c", "a0", "A"}
	want := []string{".", "A", "a", "a/b", "a/b/c", "a-b", "a0", "b"}
	got := append([]string(nil), in...)
	sortRel(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compareRel order mismatch (-want +got):\n%s", diff)
	}
}

type jsonSyntaxError = json.SyntaxError

func sortRel(s []string) { slices.SortFunc(s, compareRel) }
