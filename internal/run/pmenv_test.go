//go:build unix

package run

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vxrun/vx/workspace"
)

// TestPMVars lays package managers out as their installers do and checks
// npm_config_user_agent and npm_execpath against what the package managers
// themselves set (npm 11.19.1 and pnpm 10.34.9 on this layout printed
// npm_execpath=/usr/lib/node_modules/npm/bin/npm-cli.js and
// .../pnpm/bin/pnpm.cjs, and agents "npm/11.19.1 node/v20.20.2 linux x64
// workspaces/false", "pnpm/10.34.9 npm/? node/v20.20.2 linux x64").
func TestPMVars(t *testing.T) {
	prefix := t.TempDir()
	file := func(p, content string) {
		t.Helper()
		p = filepath.Join(prefix, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		p = filepath.Join(prefix, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	// /usr layout: bin/npm -> ../lib/node_modules/npm/bin/npm-cli.js
	file("usr/lib/node_modules/npm/package.json", `{"name": "npm", "version": "11.19.1", "bin": {"npm": "bin/npm-cli.js", "npx": "bin/npx-cli.js"}}`)
	file("usr/lib/node_modules/npm/bin/npm-cli.js", "")
	link("../lib/node_modules/npm/bin/npm-cli.js", "usr/bin/npm")
	file("usr/lib/node_modules/pnpm/package.json", `{"name": "pnpm", "version": "10.34.9", "bin": {"pnpm": "bin/pnpm.cjs"}}`)
	file("usr/lib/node_modules/pnpm/bin/pnpm.cjs", "")
	link("../lib/node_modules/pnpm/bin/pnpm.cjs", "usr/bin/pnpm")
	// nvm layout: node's version in its path
	file("nvm/versions/node/v20.20.2/bin/node", "")
	// a shell wrapper beside its package, no link (as npm's Windows shims)
	file("shim/yarn", "#!/bin/sh\n")
	file("shim/node_modules/yarn/package.json", `{"name": "yarn", "version": "1.22.22", "bin": {"yarn": "./bin/yarn.js"}}`)
	file("shim/node_modules/yarn/bin/yarn.js", "")
	// a standalone binary
	file("bun/bin/bun", "")
	// yarn berry's checked-in release
	root := filepath.Join(prefix, "repo")
	file("repo/.yarnrc.yml", "nodeLinker: pnp\nyarnPath: .yarn/releases/yarn-4.5.3.cjs\n")
	file("repo/.yarn/releases/yarn-4.5.3.cjs", "")

	p := func(dirs ...string) string {
		out := ""
		for i, d := range dirs {
			if i > 0 {
				out += ":"
			}
			out += filepath.Join(prefix, d)
		}
		return "PATH=" + out
	}
	arch := map[string]string{"amd64": "x64", "arm64": "arm64", "386": "ia32"}[runtime.GOARCH]
	if arch == "" {
		arch = runtime.GOARCH
	}
	tests := []struct {
		name     string
		pm       workspace.PackageManager
		environ  []string
		agent    string
		execPath string // relative to prefix; "" for none
	}{
		{"npm", workspace.PackageManager{Name: "npm"}, []string{p("usr/bin", "nvm/versions/node/v20.20.2/bin")},
			// node's version is not guessed from its path: taskEnviron asks the node the task runs (nodeprog)
			"npm/11.19.1 node/? linux " + arch + " workspaces/false", "usr/lib/node_modules/npm/bin/npm-cli.js"},
		{"pnpm from the field", workspace.PackageManager{Name: "pnpm", Version: "9.1.0"}, []string{p("usr/bin")},
			"pnpm/9.1.0 npm/? node/? linux " + arch, "usr/lib/node_modules/pnpm/bin/pnpm.cjs"},
		{"pnpm installed", workspace.PackageManager{Name: "pnpm"}, []string{p("usr/bin"), "npm_config_user_agent=npm/11.19.1 node/v22.1.0 linux x64 workspaces/false"},
			"pnpm/10.34.9 npm/? node/v22.1.0 linux " + arch, "usr/lib/node_modules/pnpm/bin/pnpm.cjs"},
		{"yarn 1 through a shim", workspace.PackageManager{Name: "yarn", Major: 1}, []string{p("shim")},
			"yarn/1.22.22 npm/? node/? linux " + arch, "shim/node_modules/yarn/bin/yarn.js"},
		{"yarn berry's release", workspace.PackageManager{Name: "yarn", Major: 2}, []string{p("usr/bin")},
			"yarn/4.5.3 npm/? node/? linux " + arch, "repo/.yarn/releases/yarn-4.5.3.cjs"},
		{"bun", workspace.PackageManager{Name: "bun", Version: "1.1.0"}, []string{p("bun/bin")},
			"bun/1.1.0 npm/? node/? linux " + arch, "bun/bin/bun"},
		{"not installed", workspace.PackageManager{Name: "pnpm"}, []string{p("bun/bin")},
			"pnpm/? npm/? node/? linux " + arch, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := &workspace.Workspace{Root: root, PackageManager: tt.pm}
			agent, execPath := pmVars(ws, tt.environ, "linux")
			if agent != tt.agent {
				t.Errorf("agent = %q, want %q", agent, tt.agent)
			}
			want := ""
			if tt.execPath != "" {
				want = filepath.Join(prefix, filepath.FromSlash(tt.execPath))
			}
			if execPath != want {
				t.Errorf("execPath = %q, want %q", execPath, want)
			}
		})
	}
}
