package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTurbo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		root     string
		projects []TurboFile
		want     map[string]Task
		warnings []string
	}{
		{
			name: "tasks as vx declares them",
			root: `{
				"$schema": "https://turbo.build/schema.json",
				"tasks": {
					"build": {"dependsOn": ["^build"], "outputs": ["dist/**", "!dist/cache/**"], "env": ["NODE_ENV", "NEXT_PUBLIC_*", "!NEXT_PUBLIC_SECRET"]},
					"test": {"dependsOn": ["build"], "inputs": ["$TURBO_DEFAULT$", "!README.md", "$TURBO_ROOT$/jest.config.js"], "outputLogs": "new-only"},
					"dev": {"persistent": true, "cache": false, "passThroughEnv": ["PORT"]},
					"web#build": {"dependsOn": ["//#codegen"], "inputs": []},
					"//#codegen": {"outputs": []}
				}
			}`,
			want: map[string]Task{
				"build":      {DependsOn: []string{"^build"}, Outputs: []string{"dist/**", "!dist/cache/**"}, PassThrough: []string{"NODE_ENV", "NEXT_PUBLIC_*", "!NEXT_PUBLIC_SECRET"}},
				"test":       {DependsOn: []string{"build"}, Inputs: []string{"**", "!README.md", "//jest.config.js"}, OutputLogs: "new-only"},
				"dev":        {Persistent: true, NoCache: true, PassThrough: []string{"PORT"}},
				"web#build":  {DependsOn: []string{"//#codegen"}, Inputs: []string{}},
				"//#codegen": {},
			},
		},
		{
			name: "the global keys reach every task, after the default inputs",
			root: `{
				"globalEnv": ["CI_*"], "globalPassThroughEnv": ["AWS_PROFILE"], "globalDependencies": [".env", "$TURBO_ROOT$/tsconfig.json"],
				"tasks": {"build": {"env": ["NODE_ENV"]}, "lint": {"inputs": ["src/**"]}}
			}`,
			want: map[string]Task{
				"build": {PassThrough: []string{"CI_*", "AWS_PROFILE", "NODE_ENV"}, Inputs: []string{"**", "//.env", "//tsconfig.json"}},
				"lint":  {PassThrough: []string{"CI_*", "AWS_PROFILE"}, Inputs: []string{"src/**", "//.env", "//tsconfig.json"}},
			},
		},
		{
			name: "a project's turbo.json replaces the keys it sets, and adds with $TURBO_EXTENDS$",
			root: `{"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"], "env": ["A"]}}}`,
			projects: []TurboFile{{Path: "apps/web/turbo.json", Project: "web", Data: []byte(`{
				"extends": ["//"],
				"tasks": {"build": {"outputs": ["$TURBO_EXTENDS$", ".next/**"], "env": ["B"]}, "e2e": {"dependsOn": ["build"]}}
			}`)}},
			want: map[string]Task{
				"build":     {DependsOn: []string{"^build"}, Outputs: []string{"dist/**"}, PassThrough: []string{"A"}},
				"web#build": {DependsOn: []string{"^build"}, Outputs: []string{"dist/**", ".next/**"}, PassThrough: []string{"B"}},
				"web#e2e":   {DependsOn: []string{"build"}},
			},
		},
		{
			name: "turbo 1.x: pipeline, outputMode, $VAR in dependsOn",
			root: `{"pipeline": {"build": {"dependsOn": ["^build", "$API_URL"], "outputMode": "errors-only"}}}`,
			want: map[string]Task{
				"build": {DependsOn: []string{"^build"}, PassThrough: []string{"API_URL"}, OutputLogs: "errors-only"},
			},
			warnings: []string{
				`turbo.json: "pipeline" is turbo 1.x's name for "tasks": vx reads it as "tasks" (turbo 2 wants "tasks")`,
				`turbo.json: a "$NAME" entry of "dependsOn" (turbo 1.x) is read as "env": ["NAME"]`,
				`turbo.json: "outputMode" is turbo 1.x's name for "outputLogs": read as "outputLogs"`,
			},
		},
		{
			name: "what vx does not use is named once",
			root: `{"ui": "tui", "daemon": false, "envMode": "loose", "remoteCache": {"signature": true}, "futureFlags": {}, "boundaries": {},
				"tasks": {"dev": {"interactive": true, "cache": false, "with": ["api#dev"]}, "start": {"interactive": true, "cache": false},
					"deploy": {"outputs": ["$TURBO_ROOT$/out/**"], "passThroughEnv": ["*"]},
					"docs": {"inputs": ["src/**", "../shared/**"]}}}`,
			want: map[string]Task{
				"dev":    {NoCache: true},
				"start":  {NoCache: true},
				"deploy": {NoCache: true},
				"docs":   {NoCache: true, Inputs: []string{"src/**"}},
			},
			warnings: []string{
				`turbo.json: "ui" is not used by vx: vx prints each task's lines with a prefix; there is no TUI`,
				`turbo.json: "daemon" is not used by vx: vx has no daemon`,
				`turbo.json: "envMode": "loose" is not honoured: every task gets vx's isolated environment (turbo's strict mode) plus what "env", "passThroughEnv" and the global keys declare; declare what the tasks read there`,
				`turbo.json: "futureFlags" is not used by vx: turbo's own feature switches`,
				`turbo.json: "boundaries" is not used by vx: vx does not check imports between packages`,
				`turbo.json: "interactive": vx hands a task the terminal's input when it runs alone (vx run web#dev), not within a run of several`,
				`turbo.json: "with" is not used by vx: run the sibling tasks in the same vx run (vx run dev api#dev)`,
				`"*" in "passThroughEnv" of task "deploy" is left out: it would hand the task vx's whole environment; list the names or patterns it reads`,
				`turbo.json: task "deploy": its outputs glob "$TURBO_ROOT$/out/**" is outside the project, which vx's cache does not restore; vx does not cache it`,
				`turbo.json: task "docs": its inputs glob "../shared/**" leaves the project through ".." (write $TURBO_ROOT$/... for a path from the root); vx does not cache it`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := ParseTurbo(TurboFile{Path: "turbo.json", Data: []byte(tt.root)}, tt.projects)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.Config().Tasks); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, tr.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTurboErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		root    string
		project string
		want    string
	}{
		{name: "syntax", root: "{\n  \"tasks\": {,}\n}", want: `turbo.json:2:13: unexpected ","; expected a key or "}"`},
		{name: "both tasks and pipeline", root: `{"tasks": {}, "pipeline": {}}`, want: `turbo.json:1:15: "tasks" and "pipeline" are both here; "pipeline" is turbo 1.x's name for "tasks": keep one`},
		{name: "bad dependsOn", root: `{"tasks": {"build": {"dependsOn": ["^web#build"]}}}`, want: `turbo.json:1:36: invalid dependsOn entry "^web#build" in task "build": "^" cannot be combined with a project; write "^build" or "web#build"`},
		{name: "bad outputLogs", root: `{"tasks": {"build": {"outputLogs": "loud"}}}`, want: `turbo.json:1:36: invalid "outputLogs" of task "build": found "loud"; it takes "full", "hash-only", "new-only", "errors-only" or "none"`},
		{name: "root extends", root: `{"extends": ["//"]}`, want: `turbo.json:1:2: the workspace root's turbo.json cannot extend another`},
		{name: "project without extends", root: `{}`, project: `{"tasks": {"build": {}}}`, want: `apps/web/turbo.json:1:1: a project's turbo.json must extend the root's; add "extends": ["//"]`},
		{name: "project extends another", root: `{}`, project: `{"extends": ["//", "ui"], "tasks": {}}`, want: `apps/web/turbo.json:1:13: vx reads a project's turbo.json that extends the root's alone, found "//" and "ui"; write "extends": ["//"]`},
		{name: "remoteCache not an object", root: `{"remoteCache": true}`, want: `turbo.json:1:17: "remoteCache" must be an object, found a boolean`},
		{name: "remoteCache.signature not a boolean", root: `{"remoteCache": {"signature": "yes"}}`, want: `turbo.json:1:31: "remoteCache.signature" must be true or false, found a string`},
		{name: "remoteCache.timeout not whole seconds", root: `{"remoteCache": {"timeout": 1.5}}`, want: `turbo.json:1:29: "remoteCache.timeout" takes whole seconds (0 or more), found 1.5`},
		{name: "remoteCache.apiUrl not a string", root: `{"remoteCache": {"apiUrl": 3}}`, want: `turbo.json:1:28: "remoteCache.apiUrl" must be a string, found a number`},
		{name: "remoteCache in a project", root: `{}`, project: `{"extends": ["//"], "remoteCache": {}}`, want: `apps/web/turbo.json:1:21: "remoteCache" belongs in the workspace root's turbo.json`},
		{name: "project names another's task", root: `{}`, project: `{"extends": ["//"], "tasks": {"api#build": {}}}`, want: `apps/web/turbo.json:1:31: invalid task key "api#build": a project's turbo.json names its own tasks alone; write "build"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var projects []TurboFile
			if tt.project != "" {
				projects = []TurboFile{{Path: "apps/web/turbo.json", Project: "web", Data: []byte(tt.project)}}
			}
			_, err := ParseTurbo(TurboFile{Path: "turbo.json", Data: []byte(tt.root)}, projects)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseTurboRemote: turbo.json's "remoteCache" is read into what vx
// applies (package cli orders it under vx's settings and turbo's
// variables); what vx cannot honour is named once.
func TestParseTurboRemote(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		root     string
		want     *TurboRemote
		warnings []string
	}{
		{name: "none", root: `{"tasks": {}}`},
		{name: "empty", root: `{"remoteCache": {}}`, want: &TurboRemote{Path: "turbo.json"}},
		{
			name: "what vx applies",
			root: `{"remoteCache": {"enabled": true, "signature": true, "timeout": 20, "apiUrl": "https://cache.example.com", "teamId": "team_abc", "teamSlug": "acme", "preflight": false}}`,
			want: &TurboRemote{Path: "turbo.json", Signature: true, Timeout: 20, APIURL: "https://cache.example.com", TeamID: "team_abc", TeamSlug: "acme"},
		},
		{name: "disabled", root: `{"remoteCache": {"enabled": false, "apiUrl": "https://cache.example.com"}}`,
			want: &TurboRemote{Path: "turbo.json", Disabled: true, APIURL: "https://cache.example.com"}},
		{
			name: "what vx cannot honour, once",
			root: `{"remoteCache": {"preflight": true, "loginUrl": "https://login.example.com", "uploadTimeout": 120, "timeout": 0, "teamId": "acme", "colour": "blue"}}`,
			want: &TurboRemote{Path: "turbo.json"},
			warnings: []string{
				`turbo.json: "remoteCache.preflight" is not used by vx: it sends no OPTIONS request before its calls`,
				`turbo.json: "remoteCache.loginUrl" is not used by vx: it has no login; set TURBO_TOKEN or VX_REMOTE_TOKEN`,
				`turbo.json: "remoteCache.uploadTimeout" is not used by vx: an upload gets the call's deadline ("timeout", VX_REMOTE_TIMEOUT) plus one second per MiB`,
				`turbo.json: "remoteCache.timeout": 0 (no deadline) is not honoured: vx keeps its deadline of one call (VX_REMOTE_TIMEOUT, 5s by default)`,
				`turbo.json: "remoteCache.teamId" "acme" is not used: a team id starts with "team_" (turbo ignores it too); a slug goes in "teamSlug"`,
				`turbo.json: unknown key "remoteCache.colour" is not used by vx`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, err := ParseTurbo(TurboFile{Path: "turbo.json", Data: []byte(tt.root)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tr.Remote); diff != "" {
				t.Errorf("remote (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tr.Config().TurboRemote); diff != "" {
				t.Errorf("Config().TurboRemote (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, tr.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
