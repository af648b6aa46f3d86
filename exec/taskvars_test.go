package exec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTaskEnvironPackageManagerVars: INIT_CWD, npm_config_user_agent and
// npm_execpath replace what lower layers supplied, and are absent when vx
// does not know them, even if passed through.
func TestTaskEnvironPackageManagerVars(t *testing.T) {
	src := []string{"PATH=/bin", "INIT_CWD=/outer", "npm_execpath=/outer/npm-cli.js", "npm_config_user_agent=npm/1 node/v1 linux x64"}
	opts := EnvOptions{Source: src, PassThrough: []string{"INIT_CWD", "npm_execpath", "npm_config_user_agent"}, GOOS: "linux"}
	tests := []struct {
		name string
		v    TaskVars
		want map[string]string
	}{
		{"set", TaskVars{InitCwd: "/ws/docs", UserAgent: "pnpm/9.1.0 npm/? node/? linux x64", ExecPath: "/usr/lib/node_modules/pnpm/bin/pnpm.cjs"},
			map[string]string{"INIT_CWD": "/ws/docs", "npm_config_user_agent": "pnpm/9.1.0 npm/? node/? linux x64", "npm_execpath": "/usr/lib/node_modules/pnpm/bin/pnpm.cjs"}},
		{"unknown: absent, not inherited", TaskVars{}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, kv := range TaskEnviron(opts, tt.v) {
				for _, name := range []string{"INIT_CWD", "npm_config_user_agent", "npm_execpath"} {
					if v, ok := cutName(kv, name); ok {
						got[name] = v
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func cutName(kv, name string) (string, bool) {
	if len(kv) > len(name) && kv[:len(name)] == name && kv[len(name)] == '=' {
		return kv[len(name)+1:], true
	}
	return "", false
}
