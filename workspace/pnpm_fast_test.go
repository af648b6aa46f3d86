package workspace

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pnpmFastCases are pnpm-workspace.yaml texts: what the quick reader takes,
// and the corners it leaves to the YAML library.
var pnpmFastCases = []struct {
	yaml  string
	quick bool // the quick reader answers
}{
	{"packages:\n  - \"packages/*\"\n", true},
	{"packages:\n  - packages/*\n  - 'apps/*'\n  - \"!**/test/**\"\n", true},
	{"# a workspace\npackages:\n- packages/*\n\n  # more\n- apps/*\nenablePrePostScripts: true\nlinkWorkspacePackages: deep\n", true},
	{"linkWorkspacePackages: false\npackages:\n    - a\n", true},
	{"packages:\n  - docs\n  - 1.0\n  - true\n", true},
	{"packages:\n  - ' a'\n  - ''\n", true},
	{"packages:\n  - a\n - b\n", false},
	{"packages:\n  - a\n    b\n", false},
	{"packages:\n  - a # c\n", false},
	{"packages:\n  - null\n", false},
	{"packages:\n  - ~\n", false},
	{"packages:\n  - !x\n", false},
	{"packages:\n  - *x\n", false},
	{"packages:\n  - &a x\n", false},
	{"packages:\n  - {apps/*}\n", false},
	{"packages:\n  - 'it''s'\n", false},
	{"packages:\n  - \"a\\tb\"\n", false},
	{"packages: [a, b]\n", false},
	{"packages:\n", false},
	{"packages:\npackages:\n  - a\n", false},
	{"packages:\n  - a\npackages:\n  - b\n", false},
	{"catalog:\n  react: ^18\npackages:\n  - a\n", false},
	{"enablePrePostScripts: true\n", false},
	{"enablePrePostScripts: True\npackages:\n  - a\n", false},
	{"enablePrePostScripts: true\nenablePrePostScripts: false\npackages:\n  - a\n", false},
	{"packages:\r\n  - a\r\n", false},
	{"packages:\n\t- a\n", false},
	{"\uFEFFpackages:\n  - a\n", false},
	{"packages:\n  - a\u2028b\n", false},
	{"packages:\n  - 'a\u2028b'\n", false},
	{"packages: \n  - a\n", false},
	{"---\npackages:\n  - a\n", false},
	{"packages:\n  - a\n...\n", false},
	{"- a\n", false},
	{"", false},
	{"packages:\n  - a:b\n", false},
	{"packages:\n  -a\n", false},
}

// TestPnpmWorkspaceFast: the quick reader answers the common files, and
// what it answers is what the YAML library reads.
func TestPnpmWorkspaceFast(t *testing.T) {
	for _, tt := range pnpmFastCases {
		t.Run(tt.yaml, func(t *testing.T) {
			_, _, ok := parsePnpmWorkspaceFast([]byte(tt.yaml))
			if ok != tt.quick {
				t.Errorf("quick reader answers: %v, want %v", ok, tt.quick)
			}
			checkPnpmWorkspaceFast(t, []byte(tt.yaml))
		})
	}
}

func checkPnpmWorkspaceFast(t *testing.T, data []byte) {
	t.Helper()
	pats, settings, ok := parsePnpmWorkspaceFast(data)
	if !ok {
		return
	}
	wPats, wDeclared, wSettings, wErr := parsePnpmWorkspaceYAML(data)
	if diff := cmp.Diff([]any{wPats, wDeclared, wSettings, wErr}, []any{pats, true, settings, error(nil)}); diff != "" {
		t.Errorf("%q: the quick reader differs from the YAML library (-library +quick):\n%s", data, diff)
	}
}

func FuzzPnpmWorkspaceFast(f *testing.F) {
	for _, tt := range pnpmFastCases {
		f.Add([]byte(tt.yaml))
	}
	f.Fuzz(checkPnpmWorkspaceFast)
}
