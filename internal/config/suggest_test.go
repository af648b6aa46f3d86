package config

import "testing"

func TestSuggest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key        string
		candidates []string
		want       string
	}{
		{"passthrough", envKeys, `did you mean "passThrough"?`},
		{"PassThrough", envKeys, `did you mean "passThrough"?`},
		{"pasThrough", envKeys, `did you mean "passThrough"?`},
		{"passThroughEnv", envKeys, `did you mean "passThrough"?`}, // turbo's name: 3 edits of 11
		{"passThroughVars", envKeys, ""},                           // 4 edits of 11: too far
		{"defines", envKeys, `did you mean "define"?`},
		{"defne", envKeys, `did you mean "define"?`},
		{"dfn", envKeys, ""},
		{"Env", taskKeys, `did you mean "env"?`},
		{"envs", taskKeys, `did you mean "env"?`},
		{"pipeline", taskKeys, ""},
		{"output", taskKeys, `did you mean "outputs"?`},
		{"depends_on", taskKeys, `did you mean "dependsOn"?`},
		{"dependencies", taskKeys, ""},
		{"schema", topKeys, `did you mean "$schema"?`},
		{"task", topKeys, `did you mean "tasks"?`},
		{"pipeline", topKeys, ""},
		{"", topKeys, ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.key, tt.candidates); got != tt.want {
			t.Errorf("didYouMean(%q, %q) = %q, want %q", tt.key, tt.candidates, got, tt.want)
		}
	}
}
