package workspace

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePnpmWorkspace(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     []string
		declared bool
	}{
		{"empty file", "", nil, false},
		{"comment only", "# nothing\n", nil, false},
		{"null document", "~\n", nil, false},
		{"no packages key (pnpm 10 settings only)", "onlyBuiltDependencies:\n  - esbuild\n", nil, false},
		{"packages", "packages:\n  - 'apps/*'\n  - \"libs/**\"\n  - '!**/test/**'\n", []string{"apps/*", "libs/**", "!**/test/**"}, true},
		{"flow list", "packages: [a/*, b]\n", []string{"a/*", "b"}, true},
		{"empty value", "packages:\n", nil, true},
		{"empty list", "packages: []\n", []string{}, true},
		{"numbers are text", "packages:\n  - 2024\n", []string{"2024"}, true},
		{"aliases", "x: &p pkgs/*\npackages:\n  - *p\n", []string{"pkgs/*"}, true},
		{"aliased list", "x: &l [a, b]\npackages: *l\n", []string{"a", "b"}, true},
		{"other keys ignored", "catalog:\n  react: ^18\npackages: [p/*]\n", []string{"p/*"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, declared, err := parsePnpmWorkspace([]byte(tt.in))
			if err != nil {
				t.Fatalf("parsePnpmWorkspace() error: %v", err)
			}
			if declared != tt.declared {
				t.Errorf("parsePnpmWorkspace() declared = %v, want %v", declared, tt.declared)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parsePnpmWorkspace() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParsePnpmWorkspaceErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"unclosed flow list", "packages:\n  - 'packages/*'\n  - [unclosed\n", `3: invalid YAML: did not find expected ',' or ']'`},
		{"unclosed, seen on line 2", "packages: [a, b\nx: 1\n", `2: invalid YAML: did not find expected ',' or ']'`},
		{"bad indentation", "packages:\n  - a\n b: c\n", `3: invalid YAML: did not find expected key`},
		{"sequence after mapping", "a: b\n- c\n", `2: invalid YAML: did not find expected key`},
		{"mapping in scalar", "a: b\nc: d\n  e: f\n", `3: invalid YAML: mapping values are not allowed in this context`},
		{"tab", "packages:\n\t- x\n", `2: invalid YAML: found character that cannot start any token`},
		{"bad token on line 1", "packages: @x\n", `1: invalid YAML: found character that cannot start any token`},
		{"unknown alias", "packages: *nope\n", `invalid YAML: unknown anchor 'nope' referenced`},
		{"top-level list", "- a\n", `1:1: pnpm-workspace.yaml must hold a mapping, got a list`},
		{"top-level scalar", "packages\n", `1:1: pnpm-workspace.yaml must hold a mapping, got a scalar`},
		{"packages mapping", "packages:\n  a: b\n", `2:3: "packages" must be a list of patterns, got a mapping`},
		{"packages scalar", "packages: a/*\n", `1:11: "packages" must be a list of patterns, got a scalar`},
		{"item list", "packages:\n  - a\n  - [b]\n", `3:5: "packages" must be a list of patterns, got an item that is a list`},
		{"item null", "packages:\n  - a\n  -\n", `3:4: "packages" must be a list of patterns, got an item that is null`},
		{"twice", "packages: [a]\npackages: [b]\n", `2:1: "packages" appears twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := parsePnpmWorkspace([]byte(tt.in))
			if err == nil {
				t.Fatalf("parsePnpmWorkspace() = %q, want an error", got)
			}
			msg := strings.TrimPrefix(strings.TrimPrefix(fileError("y", err).Error(), "y:"), " ")
			if diff := cmp.Diff(tt.want, msg); diff != "" {
				t.Errorf("parsePnpmWorkspace() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
