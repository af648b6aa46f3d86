package cli

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/lockfile"
	"github.com/vxrun/vx/internal/testdir"
)

// The task cache reads yarn classic's yarn.lock with the projects'
// manifests (lockfile.ParseWorkspacePartial). The proof that it reads it
// as yarn 1 does is yarn 1: after each manifest edit, yarn install leaves
// yarn.lock as it was exactly when vx finds every project's ranges in it
// (no Stale project), and then each project loads, for each of its
// dependencies, the version vx's closure resolves it to. (Not --frozen-
// lockfile: yarn 1 does not enforce it in a workspace, yarnpkg/yarn#5840;
// here it let docs' edited range through.) Needs yarn 1
// and the npm registry: skips with one line without them, fails under
// CI=true.
func TestYarnClassicReadAsYarnInstalls(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped: -short (installs with yarn 1)")
	}
	if runtime.GOOS == "windows" {
		t.Skip("skipped: the package managers' proofs run on Linux and macOS")
	}
	for _, tc := range []struct {
		what, dir, from, to string
		stale               string // the project vx finds a range with no entry in, "" none
	}{
		{"as installed", "", "", "", ""},
		// ui's is-number ^6.0.0 -> 7.0.0, which docs' entry resolves: the
		// lockfile needs no change, and ui now loads 7.0.0
		{"a range of another entry", "packages/ui", `"is-number": "^6.0.0"`, `"is-number": "7.0.0"`, ""},
		{"a range with no entry", "apps/docs", `"left-pad": "1.3.0"`, `"left-pad": "^1.2.0"`, "apps/docs"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			t.Parallel() // mostly waiting on the registry
			tool := findTool(t, "yarn")
			root := filepath.Join(testdir.New(t), "ws")
			copyTree(t, filepath.Join("..", "lockfile", "testdata", "yarn"), root)
			if tc.dir != "" {
				p := filepath.Join(root, tc.dir, "package.json")
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), tc.from) {
					t.Fatalf("%s has no %s", p, tc.from)
				}
				if err := os.WriteFile(p, []byte(strings.Replace(string(data), tc.from, tc.to, 1)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var projects []lockfile.Project
			for _, dir := range []string{".", "apps/docs", "apps/web", "packages/ui"} {
				data, err := os.ReadFile(filepath.Join(root, dir, "package.json"))
				if err != nil {
					t.Fatal(err)
				}
				p, err := lockfile.ManifestProject(dir, data)
				if err != nil {
					t.Fatal(err)
				}
				projects = append(projects, p)
			}
			data, err := os.ReadFile(filepath.Join(root, "yarn.lock"))
			if err != nil {
				t.Fatal(err)
			}
			l, err := lockfile.ParseWorkspacePartial("yarn.lock", data, projects)
			if err != nil {
				t.Fatal(err)
			}
			var stale []string
			for dir := range l.Stale {
				stale = append(stale, dir)
			}
			if got := strings.Join(stale, " "); got != tc.stale {
				t.Errorf("vx finds ranges with no entry in %q, want %q", got, tc.stale)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := osexec.CommandContext(ctx, tool.argv[0], append(slices.Clone(tool.argv[1:]), "install", "--non-interactive", "--silent", "--no-progress")...)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "YARN_CACHE_FOLDER="+filepath.Join(t.TempDir(), "yarn-cache"))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("yarn install: %v\n%s", err, out)
			}
			after, err := os.ReadFile(filepath.Join(root, "yarn.lock"))
			if err != nil {
				t.Fatal(err)
			}
			if same := string(after) == string(data); same != (tc.stale == "") {
				t.Fatalf("yarn install left yarn.lock as it was: %v, but vx's stale projects are %q", same, stale)
			}
			if tc.stale != "" {
				// installed: vx now reads every project
				if l, err = lockfile.ParseWorkspacePartial("yarn.lock", after, projects); err != nil || l.Stale != nil {
					t.Fatalf("after yarn install: %v, stale %v", err, l.Stale)
				}
			}
			for _, p := range projects {
				for _, d := range l.Importers[p.Dir].Deps {
					if d.Entry == "" {
						continue // a workspace project, linked
					}
					want := l.Entries[d.Entry].Version
					if got := resolvedFrom(filepath.Join(root, filepath.FromSlash(p.Dir)), root, d.Name); got != want {
						t.Errorf("%s loads %s %s; vx's closure says %s", p.Dir, d.Name, got, want)
					}
				}
			}
		})
	}
}
