package exec

import (
	"fmt"
	"strings"
	"testing"
)

// envBenchPrefixes start filler names like a real environment's, many with
// the first letters of essentials.
var envBenchPrefixes = []string{
	"npm_config_", "GIT_", "SSH_", "XDG_", "LS_", "DOCKER_", "KUBE_", "JAVA_", "GO", "PYENV_",
	"NVM_", "VSCODE_", "HIST", "EDITOR", "PAGER", "MAIL", "DBUS_", "LESS", "PNPM_", "TERM_",
	"COREPACK_", "HOMEBREW_", "PS", "SHLVL", "Path_", "CommonProgram", "USERDOMAIN", "TMUX",
}

// envBenchSource returns a parent environment of n variables shaped like a
// developer's machine: the essentials of goos spelled as that system spells
// them, a few secrets, then filler names of varied length and case.
func envBenchSource(n int, goos string) []string {
	var base []string
	if goos == "windows" {
		base = append(base, envWindowsSource...)
	} else {
		base = append(base, envLinuxSource...)
	}
	base = append(base, "API_URL=https://api.example.com", "SENTRY_DSN=https://key@sentry.example.com/1")
	src := make([]string, 0, n)
	for i := 0; len(src) < n; i++ {
		if i < len(base) {
			src = append(src, base[i])
			continue
		}
		p := envBenchPrefixes[i%len(envBenchPrefixes)]
		name := fmt.Sprintf("%s%s%d", p, strings.Repeat("X", i%7), i)
		src = append(src, name+"=value-"+strings.Repeat("v", i%40))
	}
	return src
}

// BenchmarkBuildIsolatedEnv measures one task's env for sources of 60,
// 1,000 and 10,000 variables, with three passThrough names, two defines and
// two bin paths. Goal: under 1 % of spawning a task (BenchmarkStartWait),
// linear in the source.
func BenchmarkBuildIsolatedEnv(b *testing.B) {
	for _, goos := range []string{"linux", "windows"} {
		for _, n := range []int{60, 1000, 10000} {
			opts := EnvOptions{
				Source:      envBenchSource(n, goos),
				PassThrough: []string{"API_URL", "SENTRY_DSN", "MISSING_ONE"},
				Define:      map[string]string{"NODE_ENV": "production", "FORCE_COLOR": "0"},
				BinPaths:    []string{"/w/packages/web/node_modules/.bin", "/w/node_modules/.bin"},
				GOOS:        goos,
			}
			b.Run(fmt.Sprintf("%s/vars=%d", goos, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					buildEnv(opts).sorted()
				}
			})
		}
	}
}

// BenchmarkTaskEnviron is BenchmarkBuildIsolatedEnv's 60-variable case
// plus the task variables.
func BenchmarkTaskEnviron(b *testing.B) {
	opts := EnvOptions{
		Source:      envBenchSource(60, "linux"),
		PassThrough: []string{"API_URL", "SENTRY_DSN", "MISSING_ONE"},
		Define:      map[string]string{"NODE_ENV": "production", "FORCE_COLOR": "0"},
		BinPaths:    []string{"/w/packages/web/node_modules/.bin", "/w/node_modules/.bin"},
		GOOS:        "linux",
	}
	vars := TaskVars{Workspace: "/w", ID: "web#build", Event: "build", Script: "vite build",
		PackageName: "web", PackageVersion: "1.0.0", PackageJSON: "/w/packages/web/package.json"}
	b.ReportAllocs()
	for b.Loop() {
		TaskEnviron(opts, vars)
	}
}
