package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/lockfile"
	"github.com/vxrun/vx/internal/testdir"
)

// The proof that a pruned lockfile is right is the package manager: these
// tests prune the workspaces under internal/lockfile/testdata (one per
// package manager, lockfiles written by the real tools: see gen.sh there),
// install the pruned tree frozen with the real package manager, and check
// that it installed exactly the packages the full tree's lockfile resolved
// for the projects kept, and, for each kept project's direct dependencies,
// the version the full tree's install gives it.
//
// They need the package manager and the npm registry: without either they
// skip with one line, and fail when CI=true (.ci/run installs the tools).

// pmTool is how a test runs a package manager: argv's first elements.
type pmTool struct {
	argv    []string
	install []string // the frozen install's arguments
	lock    string
}

// skipOrFail skips the test with one line naming what is missing, or fails
// it under CI=true, where every tool must be there.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true: "+format, args...)
	}
	t.Skipf("skipped: "+format, args...)
}

var registryOnce = sync.OnceValue(func() error {
	c, err := net.DialTimeout("tcp", "registry.npmjs.org:443", 5*time.Second)
	if err == nil {
		c.Close()
	}
	return err
})

// globalNodeModules is npm's global node_modules ("" when npm is absent).
var globalNodeModules = sync.OnceValue(func() string {
	out, err := osexec.Command("npm", "root", "-g").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
})

// yarnTool finds yarn of the given generation (1: classic; 2: berry):
// `yarn` on PATH when its version fits, else the npm global package
// (yarn, @yarnpkg/cli-dist) run with node, so that both can be installed
// side by side (`npm i -g yarn@1 @yarnpkg/cli-dist`; the second one's bin
// wins the name "yarn").
func yarnTool(berry bool) []string {
	fits := func(argv []string) bool {
		out, err := osexec.Command(argv[0], append(argv[1:], "--version")...).Output()
		if err != nil {
			return false
		}
		return strings.HasPrefix(string(out), "1.") != berry
	}
	if p, err := osexec.LookPath("yarn"); err == nil && fits([]string{p}) {
		return []string{p}
	}
	pkg := "yarn/bin/yarn.js"
	if berry {
		pkg = "@yarnpkg/cli-dist/bin/yarn.js"
	}
	if g := globalNodeModules(); g != "" {
		if node, err := osexec.LookPath("node"); err == nil {
			argv := []string{node, filepath.Join(g, filepath.FromSlash(pkg))}
			if _, err := os.Stat(argv[1]); err == nil && fits(argv) {
				return argv
			}
		}
	}
	return nil
}

func findTool(t *testing.T, pm string) pmTool {
	t.Helper()
	var tool pmTool
	switch pm {
	case "npm":
		tool = pmTool{argv: []string{"npm"}, install: []string{"ci", "--no-audit", "--no-fund", "--loglevel=error"}, lock: "package-lock.json"}
	case "pnpm":
		tool = pmTool{argv: []string{"pnpm"}, install: []string{"install", "--frozen-lockfile", "--reporter=silent"}, lock: "pnpm-lock.yaml"}
	case "yarn":
		tool = pmTool{argv: yarnTool(false), install: []string{"install", "--frozen-lockfile", "--non-interactive", "--silent", "--no-progress"}, lock: "yarn.lock"}
	case "berry":
		tool = pmTool{argv: yarnTool(true), install: []string{"install", "--immutable"}, lock: "yarn.lock"}
	case "bun":
		tool = pmTool{argv: []string{"bun"}, install: []string{"install", "--frozen-lockfile"}, lock: "bun.lock"}
	}
	if len(tool.argv) == 0 {
		skipOrFail(t, "%s is not installed (npm i -g yarn@1 @yarnpkg/cli-dist)", pm)
	}
	if _, err := osexec.LookPath(tool.argv[0]); err != nil {
		skipOrFail(t, "%s is not on PATH (npm i -g pnpm@10 bun)", tool.argv[0])
	}
	if err := registryOnce(); err != nil {
		skipOrFail(t, "the npm registry is not reachable: %v", err)
	}
	return tool
}

// install runs the frozen install in dir.
func (tool pmTool) run(t *testing.T, dir string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := osexec.CommandContext(ctx, tool.argv[0], append(slices.Clone(tool.argv[1:]), tool.install...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "YARN_ENABLE_TELEMETRY=0", "YARN_ENABLE_GLOBAL_CACHE=0", "DO_NOT_TRACK=1",
		"YARN_CACHE_FOLDER="+filepath.Join(t.TempDir(), "yarn-cache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s in %s: %v\n%s", strings.Join(tool.argv, " "), strings.Join(tool.install, " "), dir, err, out)
	}
}

// copyTree copies the directory src to dst (regular files and directories).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// installed returns "name@version" for every package installed under
// root's node_modules directories (nested, pnpm's and bun's stores too),
// read from each package's package.json; links (workspace projects) are
// not followed.
func installed(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.Type()&fs.ModeSymlink != 0 || e.Name() != "package.json" {
			return nil
		}
		dir := filepath.Dir(p)
		parent := filepath.Base(filepath.Dir(dir))
		if strings.HasPrefix(parent, "@") {
			parent = filepath.Base(filepath.Dir(filepath.Dir(dir)))
		}
		if parent != "node_modules" {
			return nil
		}
		var m struct{ Name, Version string }
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if json.Unmarshal(data, &m) == nil && m.Name != "" {
			seen[m.Name+"@"+m.Version] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// loadedFile returns the content of the file name ("pkg/file") node would
// load from dir, "" when none.
func loadedFile(dir, root, name string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, "node_modules", filepath.FromSlash(name))); err == nil {
			return string(data)
		}
		if d == root || filepath.Dir(d) == d {
			return ""
		}
	}
}

// resolvedFrom returns the version of the package name that node would load
// from dir ("" when none).
func resolvedFrom(dir, root, name string) string {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "node_modules", filepath.FromSlash(name), "package.json"))
		if err == nil {
			var m struct{ Version string }
			json.Unmarshal(data, &m)
			return m.Version
		}
		if d == root || filepath.Dir(d) == d {
			return ""
		}
	}
}

func TestPruneInstallsFrozen(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped: -short (installs with the real package managers)")
	}
	if runtime.GOOS == "windows" {
		// .ci/run installs the package managers on the Linux host; the
		// Windows test binary (under Wine) has none, CI or not.
		t.Skip("skipped: the package managers' proofs run on Linux and macOS")
	}
	for _, pm := range []string{"npm", "pnpm", "yarn", "berry", "bun"} {
		t.Run(pm, func(t *testing.T) {
			t.Parallel() // mostly waiting on the registry
			tool := findTool(t, pm)
			full := filepath.Join(testdir.New(t), "full")
			copyTree(t, filepath.Join("..", "lockfile", "testdata", pm), full)
			fullLock, err := os.ReadFile(filepath.Join(full, tool.lock))
			if err != nil {
				t.Fatal(err)
			}
			projects := pmProjects(t, full)
			l, err := lockfile.ParseWorkspace(tool.lock, fullLock, projects)
			if err != nil {
				t.Fatal(err)
			}
			tool.run(t, full)
			for _, keep := range [][]string{{"web"}, {"docs"}, {"ui"}} {
				t.Run(strings.Join(keep, "+"), func(t *testing.T) {
					t.Parallel() // each prunes full into its own directories
					out := filepath.Join(testdir.New(t), "out")
					var stdout, stderr bytes.Buffer
					args := append([]string{"prune", "--docker", "--out-dir", out}, keep...)
					code, err := Main(Process{Args: args, Dir: full, Environ: os.Environ(), Stdout: &stdout, Stderr: &stderr, GOOS: runtime.GOOS})
					if code != 0 || err != nil {
						t.Fatalf("vx %s: exit %d, %v\n%s", strings.Join(args, " "), code, err, stderr.String())
					}
					// The Dockerfile's steps: the install layer from json/,
					// then the sources from full/ over it.
					img := filepath.Join(testdir.New(t), "img")
					copyTree(t, filepath.Join(out, "json"), img)
					pruned, err := os.ReadFile(filepath.Join(img, tool.lock))
					if err != nil {
						t.Fatal(err)
					}
					tool.run(t, img)
					if after, _ := os.ReadFile(filepath.Join(img, tool.lock)); !bytes.Equal(after, pruned) {
						t.Errorf("the frozen install rewrote %s:\n%s", tool.lock, cmp.Diff(string(pruned), string(after)))
					}
					copyTree(t, filepath.Join(out, "full"), img)

					var dirs []string
					for _, p := range projects {
						if slices.Contains(keep, p.Name) {
							dirs = append(dirs, p.Dir)
						}
					}
					dirs = l.WorkspaceClosure(append(dirs, ".")...)
					var want []string
					for _, id := range l.Closure(dirs...) {
						e := l.Entries[id]
						want = append(want, e.Name+"@"+e.Version)
					}
					sort.Strings(want)
					want = slices.Compact(want)
					got := installed(t, img)
					// bun.lock gives a tarball's URL, not its version: any
					// version of that name matches.
					for i, w := range want {
						if name, v, _ := strings.Cut(w[1:], "@"); strings.Contains(v, ":") {
							want[i] = w[:1] + name + "@*"
							for j, g := range got {
								if gn, _, _ := strings.Cut(g[1:], "@"); gn == name {
									got[j] = want[i]
								}
							}
						}
					}
					sort.Strings(want)
					sort.Strings(got)
					if pm == "bun" {
						// bun resolves a hoisted package's peer from where it
						// is hoisted (react 17 for use-sync-external-store
						// here), so the closure also holds a version bun
						// skips for the projects kept: installed ⊆ closure.
						var extra []string
						for _, g := range got {
							if !slices.Contains(want, g) {
								extra = append(extra, g)
							}
						}
						if len(extra) > 0 {
							t.Errorf("installed packages outside the full lockfile's closure: %q", extra)
						}
					} else if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("installed packages: (-full lockfile's closure +pruned install)\n%s", diff)
					}
					if slices.Contains(dirs, "apps/web") && (pm == "pnpm" || pm == "berry" || pm == "bun") {
						// the patch the lockfile names was copied and applied
						if src := loadedFile(filepath.Join(img, "apps", "web"), img, "is-odd/index.js"); !strings.Contains(src, "patched by the fixture") {
							t.Errorf("web loads an is-odd without the fixture's patch:\n%.300s", src)
						}
					}
					for _, p := range projects {
						if !slices.Contains(dirs, p.Dir) {
							if _, err := os.Stat(filepath.Join(img, p.Dir)); err == nil {
								t.Errorf("%s was not kept but is in the output", p.Dir)
							}
							continue
						}
						for name := range p.Deps {
							wantV := resolvedFrom(filepath.Join(full, p.Dir), full, name)
							gotV := resolvedFrom(filepath.Join(img, p.Dir), img, name)
							if wantV != gotV {
								t.Errorf("%s loads %s %q, the full tree %q", p.Dir, name, gotV, wantV)
							}
						}
					}
				})
			}
		})
	}
}

// pmProjects reads the fixture's manifests.
func pmProjects(t *testing.T, root string) []lockfile.Project {
	t.Helper()
	var out []lockfile.Project
	for _, dir := range []string{".", "apps/docs", "apps/web", "packages/ui"} {
		data, err := os.ReadFile(filepath.Join(root, dir, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Name, Version                                       string
			Dependencies, DevDependencies, OptionalDependencies map[string]string
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		p := lockfile.Project{Dir: dir, Name: m.Name, Version: m.Version, Deps: map[string]string{}}
		for _, d := range []map[string]string{m.Dependencies, m.DevDependencies, m.OptionalDependencies} {
			for k, v := range d {
				p.Deps[k] = v
			}
		}
		out = append(out, p)
	}
	return out
}
