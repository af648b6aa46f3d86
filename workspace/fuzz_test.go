package workspace

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The seed corpora live in testdata/fuzz/<FuzzName>/ and run as ordinary
// tests with `go test`; `go test -fuzz=FuzzParseManifest ./workspace`
// explores further.

// FuzzParseManifest: reading any package.json either succeeds with a
// usable result or fails with a positioned error; it never panics; and the
// fast scanner, when it answers, answers as encoding/json does.
func FuzzParseManifest(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if fast, ok := parseManifestFast(data); ok {
			slow, err := parseManifestJSON(data)
			if err != nil {
				t.Fatalf("parseManifestFast() accepted what encoding/json rejects: %v", err)
			}
			if diff := cmp.Diff(slow, fast, cmpManifest); diff != "" {
				t.Fatalf("parseManifestFast() mismatch (-json +fast):\n%s", diff)
			}
		}
		m, err := parseManifest(data)
		if err != nil {
			var pe *posError
			if !errors.As(err, &pe) || pe.line < 1 || pe.col < 1 {
				t.Fatalf("parseManifest() error %v (%T) has no position", err, err)
			}
			return
		}
		if m.name != "" {
			if err := checkName(m.name); err != nil {
				t.Errorf("parseManifest() accepted name %q: %v", m.name, err)
			}
		}
		if m.scripts == nil {
			t.Error("parseManifest() returned nil scripts")
		}
		for i := 1; i < len(m.deps); i++ {
			if m.deps[i-1].name >= m.deps[i].name {
				t.Errorf("parseManifest() deps %q not sorted and unique", m.deps)
				break
			}
		}
		if !m.hasWorkspaces && m.workspaces != nil {
			t.Errorf("parseManifest() workspaces %q without hasWorkspaces", m.workspaces)
		}
	})
}

// FuzzParsePnpmWorkspace: reading any pnpm-workspace.yaml never panics, and
// fails only with a *posError.
func FuzzParsePnpmWorkspace(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		pats, declared, err := parsePnpmWorkspace(data)
		if err != nil {
			var pe *posError
			if !errors.As(err, &pe) {
				t.Fatalf("parsePnpmWorkspace() error %v (%T) is not a *posError", err, err)
			}
			return
		}
		if !declared && pats != nil {
			t.Errorf("parsePnpmWorkspace() = %q but not declared", pats)
		}
	})
}

// FuzzPattern: compiling and matching any pattern against any path never
// panics, and the walk's pruning never skips a directory above a match.
// patterns holds one pattern per line.
func FuzzPattern(f *testing.F) {
	f.Fuzz(func(t *testing.T, patterns, path string) {
		ps, err := compilePatterns(strings.Split(patterns, "\n"))
		if err != nil {
			return
		}
		for _, el := range strings.Split(path, "/") {
			// Names a directory listing can hold.
			if el == "" || el == "." || el == ".." || strings.ContainsRune(el, 0) {
				return
			}
		}
		checkPruning(t, ps, path)
	})
}
