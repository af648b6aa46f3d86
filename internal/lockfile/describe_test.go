package lockfile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// same parses two versions of a lockfile and says, for each dir, whether
// Same holds (with the root, as keys take it).
func same(t *testing.T, name, a, b string, dirs ...string) map[string]bool {
	t.Helper()
	la, err := Parse(name, []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := Parse(name, []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, d := range dirs {
		out[d] = Same(la, lb, d, ".")
	}
	return out
}

func TestSame(t *testing.T) {
	dirs := []string{"apps/web", "packages/ui", "packages/util", "."}
	all := func(v bool) map[string]bool {
		return map[string]bool{"apps/web": v, "packages/ui": v, "packages/util": v, ".": v}
	}
	only := func(changed ...string) map[string]bool {
		m := all(true)
		for _, d := range changed {
			m[d] = false
		}
		return m
	}
	npm := string(readFixture(t, "npm-v3.json"))
	pnpm := string(readFixture(t, "pnpm-v9.yaml"))
	pnpm6 := string(readFixture(t, "pnpm-v6.yaml"))
	for _, tc := range []struct {
		what, name, text string
		edit             func(string) string
		want             map[string]bool
	}{
		{"npm: web's lodash", "package-lock.json", npm, func(s string) string {
			return strings.Replace(s, `"version": "4.17.20"`, `"version": "4.17.21"`, 1)
		}, only("apps/web")},
		{"npm: ui's react, web through ui", "package-lock.json", npm, func(s string) string {
			return strings.Replace(s, `"version": "18.2.0"`, `"version": "18.3.1"`, 1)
		}, only("apps/web", "packages/ui")},
		{"npm: util's nested is-number", "package-lock.json", npm, func(s string) string {
			return strings.Replace(s, `"packages/util/node_modules/is-number": {
      "version": "6.0.0",`, `"packages/util/node_modules/is-number": {
      "version": "6.0.1",`, 1)
		}, only("apps/web", "packages/ui", "packages/util")},
		{"npm: the root's dependency", "package-lock.json", npm, func(s string) string {
			return strings.Replace(s, `"version": "7.0.0"`, `"version": "7.0.1"`, 1)
		}, all(false)},
		// is-odd's own is-number 6 moves out of its reach: from
		// node_modules/is-odd, node loads the root's is-number 7.
		{"npm: resolution walks up", "package-lock.json", npm, func(s string) string {
			return strings.Replace(s, `"node_modules/is-odd/node_modules/is-number"`, `"apps/web/node_modules/is-number-x"`, 1)
		}, only("apps/web")},
		{"pnpm: web's lodash", "pnpm-lock.yaml", pnpm, func(s string) string {
			return strings.ReplaceAll(s, "4.17.20", "4.17.21")
		}, only("apps/web")},
		{"pnpm: the alias and the name swapped", "pnpm-lock.yaml", pnpm, func(s string) string {
			s = strings.Replace(s, "lodash:\n        specifier: 4.17.20\n        version: 4.17.20", "lodash:\n        specifier: 4.17.15\n        version: 4.17.15", 1)
			return strings.Replace(s, "version: lodash@4.17.15", "version: lodash@4.17.20", 1)
		}, only("apps/web")},
		{"pnpm: react and its peer suffix", "pnpm-lock.yaml", pnpm, func(s string) string {
			return strings.ReplaceAll(s, "18.2.0", "18.3.1")
		}, only("apps/web", "packages/ui")},
		{"pnpm: a catalog's specifier alone", "pnpm-lock.yaml", pnpm, func(s string) string {
			return strings.Replace(s, "specifier: 18.2.0", "specifier: ^18.2.0", 1)
		}, all(true)},
		{"pnpm: an override", "pnpm-lock.yaml", pnpm, func(s string) string {
			return strings.Replace(s, "js-tokens: 4.0.0\n\nimporters", "js-tokens: ^4.0.0\n\nimporters", 1)
		}, all(false)},
		{"pnpm: a setting", "pnpm-lock.yaml", pnpm, func(s string) string {
			return strings.Replace(s, "autoInstallPeers: true", "autoInstallPeers: false", 1)
		}, all(false)},
		{"pnpm: patched dependencies", "pnpm-lock.yaml", pnpm, func(s string) string {
			return strings.Replace(s, "importers:", "patchedDependencies:\n  lodash@4.17.20:\n    hash: abc\n    path: patches/lodash.patch\n\nimporters:", 1)
		}, all(false)},
		{"pnpm 6: loose-envify's dependency", "pnpm-lock.yaml", pnpm6, func(s string) string {
			return strings.Replace(s, "    dependencies:\n      js-tokens: 4.0.0\n", "    dependencies:\n      js-tokens: 4.0.0\n      is-number: 7.0.0\n", 1)
		}, only("apps/web", "packages/ui")},
	} {
		t.Run(tc.what, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, same(t, tc.name, tc.text, tc.edit(tc.text), dirs...)); diff != "" {
				t.Errorf("Same (-want +got):\n%s", diff)
			}
		})
	}
}

// Resolutions other than the registry's: a git commit, a tarball, a
// directory; a link out of the workspace; a patched package.
func TestReadResolutions(t *testing.T) {
	npm := `{"lockfileVersion": 3, "packages": {
  "": {"dependencies": {"a": "github:o/a", "b": "https://x.test/b.tgz", "lib": "file:../lib"}},
  "node_modules/a": {"version": "1.0.0", "resolved": "git+ssh://git@github.com/o/a.git#0123abc"},
  "node_modules/b": {"version": "2.0.0", "resolved": "https://x.test/b.tgz", "integrity": "sha512-b"},
  "node_modules/lib": {"resolved": "../lib", "link": true},
  "../lib": {"version": "0.1.0", "dependencies": {"c": "1"}},
  "node_modules/c": {"version": "1.0.0", "optional": true}
}}`
	pnpm := `lockfileVersion: '9.0'
importers:
  .:
    dependencies:
      a:
        specifier: github:o/a
        version: https://codeload.github.com/o/a/tar.gz/0123abc
      b:
        specifier: https://x.test/b.tgz
        version: '@x.test/b.tgz'
      d:
        specifier: 1.0.0
        version: 1.0.0(patch_hash=abc)
packages:
  a@https://codeload.github.com/o/a/tar.gz/0123abc:
    resolution: {tarball: https://codeload.github.com/o/a/tar.gz/0123abc}
    version: 1.0.0
  '@x.test/b.tgz':
    resolution: {integrity: sha512-b, tarball: https://x.test/b.tgz}
    name: b
    version: 2.0.0
  d@1.0.0:
    resolution: {integrity: sha512-d}
snapshots:
  a@https://codeload.github.com/o/a/tar.gz/0123abc: {}
  '@x.test/b.tgz': {}
  d@1.0.0(patch_hash=abc): {}
`
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"package-lock.json", npm, []string{
			"a 1.0.0  git+ssh://git@github.com/o/a.git#0123abc",
			"b 2.0.0 sha512-b https://x.test/b.tgz",
			"c 1.0.0  ",
		}},
		{"pnpm-lock.yaml", pnpm, []string{
			`b 2.0.0 sha512-b {"tarball":"https://x.test/b.tgz"}`, // by id: "@x.test/b.tgz" first
			`a 1.0.0  {"tarball":"https://codeload.github.com/o/a/tar.gz/0123abc"}`,
			"d 1.0.0 sha512-d ",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Parse(tc.name, []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, id := range l.Closure(".") {
				e := l.Entries[id]
				got = append(got, e.Name+" "+e.Version+" "+e.Integrity+" "+e.Resolution)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("closure of the root (-want +got):\n%s", diff)
			}
		})
	}
}
