package run

import "testing"

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"web", "web", true},
		{"web", "webx", false},
		{"*", "@scope/web", true},
		{"@scope/*", "@scope/web", true},
		{"@scope/*", "@other/web", false},
		{"w?b", "web", true},
		{"w?b", "wb", false},
		{"*-app", "my-app", true},
		{"*-app", "my-apps", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"", "", true},
		{"", "a", false},
		{"**", "", true},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
