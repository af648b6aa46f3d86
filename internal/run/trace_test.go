package run

import (
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/workspace"
)

func TestFindTrace(t *testing.T) {
	ui := &Node{ID: "ui#build", Project: &workspace.Project{RelDir: "packages/ui"}, Config: config.Task{Outputs: []string{"dist/**"}}}
	web := &Node{ID: "web#build", Project: &workspace.Project{RelDir: "apps/web"}, Config: config.Task{Outputs: []string{"dist/**", "*.tsbuildinfo"}}, Deps: []*Node{ui}}
	const root = "/ws"
	tr := &exec.Trace{Files: map[string]exec.Access{
		"/ws/apps/web/src/a.ts":                                    exec.Read | exec.ReadFirst, // in the key
		"/ws/apps/web/extra.json":                                  exec.Read | exec.ReadFirst, // not in the key
		"/ws/tsconfig.base.json":                                   exec.Read | exec.ReadFirst,
		"/ws/packages/ui/dist/index.js":                            exec.Read | exec.ReadFirst, // a dependency's output
		"/ws/packages/ui/src/x.ts":                                 exec.Read | exec.ReadFirst, // its source: not covered
		"/ws/apps/web/dist/out.js":                                 exec.Write,
		"/ws/apps/web/dist/out.js.map":                             exec.Write | exec.Read, // read after it wrote it
		"/ws/apps/web/tsconfig.tsbuildinfo":                        exec.Read | exec.ReadFirst | exec.Write,
		"/ws/apps/web/log.txt":                                     exec.Write,
		"/ws/node_modules/typescript/lib/tsc.js":                   exec.Read | exec.ReadFirst,
		"/ws/apps/web/node_modules/.cache/x":                       exec.Write,
		"/ws/apps/web/src":                                         exec.Read | exec.ReadFirst, // a directory, listed
		"/ws/apps/web/probe":                                       exec.Stat,
		"/usr/lib/node/x.js":                                       exec.Read | exec.ReadFirst,
		"/home/u/.npmrc":                                           exec.Read | exec.ReadFirst,
		"/home/u/.nvm/versions/node/v20/lib/node_modules/npm/x.js": exec.Read | exec.ReadFirst,
		"/ws/.vx-store/ac/1":                                       exec.Read | exec.ReadFirst,
	}, Notes: []string{"a note"}}
	covered := map[string]bool{"apps/web/src/a.ts": true, "apps/web/package.json": true}
	isFile := func(p string) bool { return p != "/ws/apps/web/src" }
	tracing := &Tracing{Root: root, Skip: []string{"/home/u/.nvm/versions/node/v20", "/ws/.vx-store"}}
	want := traceFindings{
		Reads:   []string{"apps/web/extra.json", "packages/ui/src/x.ts", "tsconfig.base.json"},
		Outside: []string{"/home/u/.npmrc"},
		Writes:  []string{"apps/web/log.txt"},
		Early:   []string{"apps/web/tsconfig.tsbuildinfo"},
		Notes:   []string{"a note"},
	}
	got := findTrace(tr, web, tracing, covered, isFile)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findTrace (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ rel, want string }{
		{"apps/web/extra.json", "extra.json"},
		{"tsconfig.base.json", "//tsconfig.base.json"},
		{"packages/ui/src/x.ts", "//packages/ui/src/x.ts"},
	} {
		if got := inputLine(web, tc.rel); got != tc.want {
			t.Errorf("inputLine(%q) = %q, want %q", tc.rel, got, tc.want)
		}
	}
}

func TestTraceSkips(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("tracing is Linux-only: its paths are POSIX paths")
	}
	env := []string{"PATH=/ws/node_modules/.bin:/home/u/.nvm/versions/node/v20/bin:/usr/bin:/bin:/tmp/bin", "TMPDIR=/tmp/x", "HOME=/home/u"}
	got := traceSkips("/ws", env, "/store")
	want := []string{"/store", "/tmp/x", "/home/u/.nvm/versions/node/v20", "/usr", "/bin", "/tmp",
		"/home/u/.cache", "/home/u/.npm", "/home/u/.pnpm-store", "/home/u/.local/share/pnpm", "/home/u/.yarn", "/home/u/.bun", "/home/u/Library/Caches", "/home/u/Library/pnpm"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("traceSkips (-want +got):\n%s", diff)
	}
}
