package config

import "testing"

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"tasks", "tasks", 0},
		{"task", "tasks", 1},
		{"kitten", "sitting", 3},
		{"depends-on", "dependson", 1},
		{"défine", "define", 1}, // one character, two bytes
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		key        string
		candidates []string
		want       string
	}{
		{"passthrough", envKeys, `; did you mean "passThrough"?`},
		{"PassThrough", envKeys, `; did you mean "passThrough"?`},
		{"pasThrough", envKeys, `; did you mean "passThrough"?`},
		{"passThroughEnv", envKeys, `; did you mean "passThrough"?`}, // turbo's name: 3 edits of 11
		{"passThroughVars", envKeys, ""},                             // 4 edits of 11: too far
		{"defines", envKeys, `; did you mean "define"?`},
		{"defne", envKeys, `; did you mean "define"?`},
		{"dfn", envKeys, ""},
		{"Env", taskKeys, `; did you mean "env"?`},
		{"envs", taskKeys, `; did you mean "env"?`},
		{"cache", taskKeys, ""},
		{"depends_on", taskKeys, `; did you mean "dependsOn"?`},
		{"dependencies", taskKeys, ""},
		{"schema", topKeys, `; did you mean "$schema"?`},
		{"task", topKeys, `; did you mean "tasks"?`},
		{"pipeline", topKeys, ""},
		{"", topKeys, ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.key, tt.candidates); got != tt.want {
			t.Errorf("suggest(%q, %q) = %q, want %q", tt.key, tt.candidates, got, tt.want)
		}
	}
}
