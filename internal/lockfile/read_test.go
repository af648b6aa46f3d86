package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// closureNames is a project's closure as "name@version" (an alias's real
// name), sorted, without duplicates (npm may install one version twice).
func closureNames(l *Lockfile, dirs ...string) []string {
	out := []string{}
	for _, id := range l.Closure(dirs...) {
		e := l.Entries[id]
		out = append(out, e.Name+"@"+e.Version)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The fixtures were written by npm 11 (v3, and v2 with --lockfile-version 2),
// pnpm 10 (v9) and pnpm 8 (v6) from the same workspace: apps/web depends on
// the workspace project ui (which depends on util), on is-odd, lodash 4.17.20
// and old-lodash (npm:lodash@4.17.15); ui on react and
// use-sync-external-store (react as its peer); util on is-number 6; the root
// on is-number 7; an override pins js-tokens.
func TestReadFixtures(t *testing.T) {
	web := []string{"is-number@6.0.0", "is-odd@3.0.1", "js-tokens@4.0.0", "lodash@4.17.15", "lodash@4.17.20",
		"loose-envify@1.4.0", "react@18.2.0", "use-sync-external-store@1.2.0"}
	ui := []string{"is-number@6.0.0", "js-tokens@4.0.0", "loose-envify@1.4.0", "react@18.2.0", "use-sync-external-store@1.2.0"}
	pnpmGlobal := []string{`overrides={"js-tokens":"4.0.0"}`, `settings={"autoInstallPeers":true,"excludeLinksFromLockfile":false}`}
	for _, tc := range []struct {
		file, name string
		kind       Kind
		version    string
		global     []string
	}{
		{"npm-v3.json", "package-lock.json", NPM, "3", nil},
		{"npm-v2.json", "npm-shrinkwrap.json", NPM, "2", nil},
		{"pnpm-v9.yaml", "pnpm-lock.yaml", PNPM, "9.0", pnpmGlobal},
		{"pnpm-v6.yaml", "pnpm-lock.yaml", PNPM, "6.0", pnpmGlobal},
	} {
		t.Run(tc.file, func(t *testing.T) {
			l, err := Parse(tc.name, readFixture(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if l.Kind != tc.kind || l.Version != tc.version {
				t.Errorf("kind %q version %q, want %q %q", l.Kind, l.Version, tc.kind, tc.version)
			}
			if diff := cmp.Diff(tc.global, l.Global); diff != "" {
				t.Errorf("Global (-want +got):\n%s", diff)
			}
			for dir, want := range map[string][]string{
				"apps/web":      web,
				"packages/ui":   ui,
				"packages/util": {"is-number@6.0.0"},
				".":             {"is-number@7.0.0"},
			} {
				if diff := cmp.Diff(want, closureNames(l, dir)); diff != "" {
					t.Errorf("closure of %s (-want +got):\n%s", dir, diff)
				}
			}
			// the alias keeps its own name on the edge, the real one on the entry
			var alias *Dep
			for i, d := range l.Importers["apps/web"].Deps {
				if d.Name == "old-lodash" {
					alias = &l.Importers["apps/web"].Deps[i]
				}
			}
			if alias == nil {
				t.Fatal("web has no edge old-lodash")
			}
			if l.Entries[alias.Entry].Name != "lodash" || l.Entries[alias.Entry].Version != "4.17.15" {
				t.Errorf("alias old-lodash: %+v", *alias)
			}
			if e := l.Entries[alias.Entry]; !strings.HasPrefix(e.Integrity, "sha512-8xOcRH") {
				t.Errorf("old-lodash: integrity %q", e.Integrity)
			}
		})
	}
}

func TestReadUnsupported(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"package-lock.json", `{"lockfileVersion": 1, "dependencies": {}}`},
		{"package-lock.json", `{"lockfileVersion": 4, "packages": {}}`},
		{"package-lock.json", `{"packages": {}}`},
		{"pnpm-lock.yaml", "lockfileVersion: '5.4'\n"},
		{"pnpm-lock.yaml", "lockfileVersion: '10.0'\n"},
		{"pnpm-lock.yaml", "- a list\n"},
		{"pnpm-lock.yaml", "lockfileVersion: '9.0'\nsettings:\n  excludeLinksFromLockfile: true\n"},
		{"pnpm-lock.yaml", "---\nlockfileVersion: '9.0'\nimporters: {}\n---\nlockfileVersion: '9.0'\nimporters: {}\n"},
	} {
		_, err := Parse(tc.name, []byte(tc.data))
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Parse(%q, %q): %v, want ErrUnsupported", tc.name, tc.data, err)
		}
	}
	for _, tc := range []struct{ name, data string }{
		{"package-lock.json", `{"lockfileVersion": 3, "packages": {`},
		{"pnpm-lock.yaml", "lockfileVersion: '9.0'\nimporters: [\n"},
		{"pnpm-lock.yaml", "lockfileVersion: '9.0'\nimporters: 3\n"},
	} {
		if _, err := Parse(tc.name, []byte(tc.data)); err == nil || errors.Is(err, ErrUnsupported) {
			t.Errorf("Parse(%q, %q): %v, want a parse error", tc.name, tc.data, err)
		}
	}
}

func FuzzNPM(f *testing.F) {
	f.Add(readFixture(&testing.T{}, "npm-v3.json"))
	f.Add([]byte(`{"lockfileVersion":3,"packages":{"":{"dependencies":{"a":"1"}},"node_modules/a":{"link":true,"resolved":""}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if l, err := parseNPM(data); err == nil {
			l.Closure(".", "packages/ui")
		}
	})
}

func FuzzPNPM(f *testing.F) {
	f.Add(readFixture(&testing.T{}, "pnpm-v9.yaml"))
	f.Add(readFixture(&testing.T{}, "pnpm-v6.yaml"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if l, err := parsePNPM(data); err == nil {
			l.Closure(".", "apps/web")
		}
	})
}
