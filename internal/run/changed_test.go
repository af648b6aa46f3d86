package run

import (
	"errors"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
	"github.com/vxrun/vx/workspace"
)

// gitRepo makes a repository at dir/repo whose workspace is at
// dir/repo/<wsRel>: root, packages/utils, packages/ui (depends on utils),
// apps/web (depends on ui), apps/docs; one commit on branch main.
func gitRepo(t *testing.T, wsRel string) (repo, root string, git func(args ...string)) {
	t.Helper()
	testtool.Need(t, "apt-get install git", "git")
	repo = filepath.Join(testdir.New(t), "repo")
	root = filepath.Join(repo, filepath.FromSlash(wsRel))
	files := map[string]string{
		"package.json":                `{"name": "root", "private": true, "workspaces": ["packages/*", "apps/*"]}`,
		"packages/utils/package.json": `{"name": "utils", "scripts": {"test": "echo"}}`,
		"packages/utils/src/a.ts":     "a",
		"packages/ui/package.json":    `{"name": "ui", "dependencies": {"utils": "workspace:*"}, "scripts": {"test": "echo"}}`,
		"packages/ui/src/b.ts":        "b",
		"apps/web/package.json":       `{"name": "web", "dependencies": {"ui": "workspace:*"}, "scripts": {"test": "echo"}}`,
		"apps/docs/package.json":      `{"name": "docs", "scripts": {"test": "echo"}}`,
		"apps/docs/README.md":         "docs",
		"README.md":                   "root",
		".gitignore":                  "node_modules\n*.log\n",
	}
	for name, data := range files {
		write(t, filepath.Join(root, filepath.FromSlash(name)), data)
	}
	git = func(args ...string) {
		t.Helper()
		cmd := osexec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=vx", "GIT_AUTHOR_EMAIL=vx@example.com",
			"GIT_COMMITTER_NAME=vx", "GIT_COMMITTER_EMAIL=vx@example.com", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", ".")
	git("checkout", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	return repo, root, git
}

func write(t *testing.T, file, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// affected returns "name: why" for each project --affected selects at the
// workspace root.
func affected(t *testing.T, root string, filters ...string) ([]string, error) {
	t.Helper()
	return affectedWith(t, root, nil, filters...)
}

// affectedWith is affected with a configuration made from sources.
func affectedWith(t *testing.T, root string, sources []config.Source, filters ...string) ([]string, error) {
	t.Helper()
	ws, err := workspace.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	s, err := selectProjects(ws, Selection{Dir: root, Filters: filters, Affected: true, Git: NewGit(os.Environ()), GOOS: runtime.GOOS,
		config: newConfigSources(ws.Root, &config.Config{Sources: sources})})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range s.projects {
		out = append(out, p.Name+": "+s.why[p])
	}
	return out, nil
}

func TestAffected(t *testing.T) {
	tests := []struct {
		name    string
		wsRel   string // the workspace inside the repository
		change  func(t *testing.T, root string, git func(...string))
		filters []string
		want    []string
	}{
		{
			name:   "nothing changed",
			change: func(*testing.T, string, func(...string)) {},
		},
		{
			name: "a committed change on a branch, and the dependents",
			change: func(t *testing.T, root string, git func(...string)) {
				git("checkout", "-q", "-b", "feature")
				write(t, filepath.Join(root, "packages", "utils", "src", "a.ts"), "changed")
				git("commit", "-q", "-am", "utils")
			},
			want: []string{"web: depends on ui", "ui: depends on utils", "utils: changed: src/a.ts"},
		},
		{
			name: "staged, unstaged and untracked files count; ignored files do not",
			change: func(t *testing.T, root string, git func(...string)) {
				write(t, filepath.Join(root, "apps", "docs", "README.md"), "unstaged")
				write(t, filepath.Join(root, "apps", "web", "new file.ts"), "untracked")
				write(t, filepath.Join(root, "packages", "ui", "debug.log"), "ignored")
				write(t, filepath.Join(root, "packages", "ui", "node_modules", "x", "index.js"), "ignored")
				write(t, filepath.Join(root, "packages", "utils", "src", "new.ts"), "staged")
				git("add", "packages/utils/src/new.ts")
			},
			want: []string{"docs: changed: README.md", "web: changed: new file.ts", "ui: depends on utils", "utils: changed: src/new.ts"},
		},
		{
			name: "a file moved from one project to another changes both",
			change: func(t *testing.T, root string, git func(...string)) {
				git("checkout", "-q", "-b", "feature")
				git("mv", "packages/ui/src/b.ts", "apps/docs/b.ts")
				git("commit", "-q", "-m", "move")
			},
			want: []string{"docs: changed: b.ts", "web: depends on ui", "ui: changed: src/b.ts"},
		},
		{
			name: "the lockfile affects every project",
			change: func(t *testing.T, root string, _ func(...string)) {
				write(t, filepath.Join(root, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n")
			},
			want: []string{"docs: changed: pnpm-lock.yaml (workspace root)", "web: changed: pnpm-lock.yaml (workspace root)",
				"ui: changed: pnpm-lock.yaml (workspace root)", "utils: changed: pnpm-lock.yaml (workspace root)"},
		},
		{
			name: "the root package.json affects every project",
			change: func(t *testing.T, root string, _ func(...string)) {
				write(t, filepath.Join(root, "package.json"), `{"name": "root", "private": true, "workspaces": ["packages/*", "apps/*"], "devDependencies": {"x": "1"}}`)
			},
			want: []string{"docs: changed: package.json (workspace root)", "web: changed: package.json (workspace root)",
				"ui: changed: package.json (workspace root)", "utils: changed: package.json (workspace root)"},
		},
		{
			name: "a root file of no project selects only the root, which a run at the root leaves out",
			change: func(t *testing.T, root string, _ func(...string)) {
				write(t, filepath.Join(root, "README.md"), "changed")
			},
		},
		{
			name:  "a workspace in a subdirectory of the repository sees only its own files",
			wsRel: "js",
			change: func(t *testing.T, root string, _ func(...string)) {
				write(t, filepath.Join(root, "..", "package.json"), "{}") // outside the workspace
				write(t, filepath.Join(root, "..", "pnpm-lock.yaml"), "")
				write(t, filepath.Join(root, "apps", "docs", "README.md"), "changed")
			},
			want: []string{"docs: changed: README.md"},
		},
		{
			name: "with --filter: the filtered projects that are affected",
			change: func(t *testing.T, root string, _ func(...string)) {
				write(t, filepath.Join(root, "packages", "utils", "src", "a.ts"), "changed")
			},
			filters: []string{"{apps/*}"},
			want:    []string{"web: depends on ui"},
		},
		{
			name: "a deleted project's files go to the nearest project above",
			change: func(t *testing.T, root string, git func(...string)) {
				git("rm", "-q", "-r", "apps/docs")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wsRel := tt.wsRel
			if wsRel == "" {
				wsRel = "."
			}
			_, root, git := gitRepo(t, wsRel)
			tt.change(t, root, git)
			got, err := affected(t, root, tt.filters...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("affected projects (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAffectedConfigSources: a change to a file the configuration was
// made from (the config itself, a preset it imports, the .env it reads,
// a directory it lists) selects every project, since it can change every
// task; a file it did not read selects as before.
func TestAffectedConfigSources(t *testing.T) {
	every := func(what string) []string {
		return []string{"docs: changed: " + what, "web: changed: " + what, "ui: changed: " + what, "utils: changed: " + what}
	}
	for _, tt := range []struct {
		name   string
		change string // the file changed on a branch
		want   []string
	}{
		{"the config", "vx.config.ts", every("vx.config.ts (the configuration read it)")},
		{"a preset in a directory of no project", "presets/base.ts", every("presets/base.ts (the configuration read it)")},
		{".env", ".env", every(".env (the configuration read it)")},
		{"a new file in a directory the config listed", "presets/extra/new.ts", every("presets/extra/new.ts (the configuration read it)")},
		{"a preset inside a project", "packages/utils/preset.ts",
			[]string{"docs: changed: packages/utils/preset.ts (the configuration read it)", "web: changed: packages/utils/preset.ts (the configuration read it)",
				"ui: changed: packages/utils/preset.ts (the configuration read it)", "utils: changed: preset.ts"}},
		{"a file the config did not read", "presets/other.ts", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, root, git := gitRepo(t, ".")
			for _, f := range []string{"vx.config.ts", "presets/base.ts", ".env", "presets/extra/a.ts", "packages/utils/preset.ts", "presets/other.ts"} {
				write(t, filepath.Join(root, filepath.FromSlash(f)), "v1")
			}
			git("add", "-A")
			git("commit", "-q", "-m", "config")
			git("checkout", "-q", "-b", "feature")
			write(t, filepath.Join(root, filepath.FromSlash(tt.change)), "v2")
			git("add", "-A")
			git("commit", "-q", "-m", "change")
			sources := []config.Source{{Path: filepath.Join(root, "vx.config.ts")}, {Path: filepath.Join(root, "presets", "base.ts")},
				{Path: filepath.Join(root, ".env")}, {Path: filepath.Join(root, "presets", "extra"), Dir: true},
				{Path: filepath.Join(root, "packages", "utils", "preset.ts")}, {Path: filepath.Join(filepath.Dir(root), "outside.ts")}}
			got, err := affectedWith(t, root, sources)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("affected projects (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAffectedBase(t *testing.T) {
	_, root, git := gitRepo(t, ".")
	git("checkout", "-q", "-b", "feature")
	write(t, filepath.Join(root, "apps", "docs", "README.md"), "changed")
	git("commit", "-q", "-am", "docs")
	git("checkout", "-q", "main")
	write(t, filepath.Join(root, "packages", "utils", "src", "a.ts"), "main moved on")
	git("commit", "-q", "-am", "utils on main")
	git("checkout", "-q", "feature")
	ws, err := workspace.Discover(root)
	if err != nil {
		t.Fatal(err)
	}
	sel := func(base string) (selection, error) {
		return selectProjects(ws, Selection{Dir: root, Affected: true, Base: base, Git: NewGit(os.Environ())})
	}
	// The merge-base, not main's tip: utils changed on main only.
	for _, base := range []string{"", "main"} {
		s, err := sel(base)
		if err != nil {
			t.Fatal(err)
		}
		if got := relDirs(s.projects); got != "apps/docs" {
			t.Errorf("base %q: affected = %s, want apps/docs", base, got)
		}
		if !strings.HasPrefix(s.base, "main (merge-base ") {
			t.Errorf("base %q: shown as %q", base, s.base)
		}
	}
	// A [ref] filter compares with the ref itself, as pnpm does.
	s, err := selectProjects(ws, Selection{Dir: root, Filters: []string{"[main]"}, Git: NewGit(os.Environ())})
	if err != nil {
		t.Fatal(err)
	}
	if got := relDirs(s.projects); got != "apps/docs packages/utils" {
		t.Errorf("[main] = %s, want apps/docs packages/utils", got)
	}
	for _, tt := range []struct{ base, wantErr string }{
		{"nope", `git knows no commit "nope" (from --base or VX_BASE); fetch it`},
		{"--output=x", `a git ref cannot start with "-"`},
	} {
		if _, err := sel(tt.base); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("base %q: error = %v, want one containing %q", tt.base, err, tt.wantErr)
		}
	}
	if _, err := selectProjects(ws, Selection{Dir: root, Filters: []string{"[nope]"}, Git: NewGit(os.Environ())}); err == nil ||
		!strings.Contains(err.Error(), `git knows no commit "nope"`) {
		t.Errorf("[nope]: error = %v", err)
	}
}

func TestAffectedErrors(t *testing.T) {
	testtool.Need(t, "apt-get install git", "git")
	dir := testdir.New(t)
	write(t, filepath.Join(dir, "package.json"), `{"name": "solo"}`)
	ws, err := workspace.Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	environ := append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	tests := []struct {
		name    string
		sel     Selection
		init    bool
		wantErr string
	}{
		{name: "outside git", sel: Selection{Affected: true, Git: NewGit(environ)},
			wantErr: `--affected compares with a git commit, and ` + `"` + ws.Root + `" is not in a git work tree`},
		{name: "outside git, [ref]", sel: Selection{Filters: []string{"...[main]"}, Git: NewGit(environ)},
			wantErr: `--filter "...[main]" compares with a git commit`},
		{name: "no git on PATH", sel: Selection{Affected: true, Git: NewGit([]string{"PATH=" + dir})},
			wantErr: "--affected runs git: git is not installed or not on PATH"},
		{name: "no commit yet", init: true, sel: Selection{Affected: true, Git: NewGit(environ)},
			wantErr: "this repository has no commit yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.init {
				cmd := osexec.Command("git", "init", "-q", dir)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git init: %v\n%s", err, out)
				}
			}
			tt.sel.Dir = dir
			_, err := selectProjects(ws, tt.sel)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			if tt.name == "no git on PATH" && !errors.Is(err, ErrNoGit) {
				t.Errorf("error %v does not wrap ErrNoGit", err)
			}
		})
	}
}

func TestAttribute(t *testing.T) {
	ws := testWorkspace(t, "root::", "a::", "b::")
	ws.Projects[1].RelDir = "packages/a"
	ws.Projects[2].RelDir = "packages/a/test/b"
	c := attribute(ws, []string{"packages/a/x.ts", "packages/a/test/b/y.ts", "packages/a/test/z.ts", "README.md",
		"yarn.lock", "packages/other/w.ts", "packages/a/x.ts"}, nil)
	got := map[string][]string{}
	for _, p := range ws.Projects {
		got[p.Name] = c.of(p, nil)
	}
	want := map[string][]string{
		"root": {"README.md", "packages/other/w.ts", "yarn.lock"},
		"a":    {"test/z.ts", "x.ts", "yarn.lock (workspace root)"},
		"b":    {"y.ts", "yarn.lock (workspace root)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attribute() mismatch (-want +got):\n%s", diff)
	}
}
