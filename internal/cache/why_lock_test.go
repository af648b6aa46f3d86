package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestWhyNamesPackages: vx why names the packages of the project's
// lockfile closure that changed, and the settings, rather than "the
// lockfile changed".
func TestWhyNamesPackages(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "lockfile", "testdata", "pnpm-v9.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	root, dir := testdir.New(t), testdir.New(t)
	lockfile := filepath.Join(root, "pnpm-lock.yaml")
	text := string(b)
	spec := &TaskSpec{ID: "web#build", RelDir: "apps/web", Argv: []string{"build"}}
	// keyNow returns the task's key in a new run (one look at the files
	// each), and that run's cache.
	keyNow := func() (*Key, *Cache) {
		t.Helper()
		if err := os.WriteFile(lockfile, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := New(Options{Dir: dir, Root: root, Read: true, Write: true})
		if err != nil {
			t.Fatal(err)
		}
		k, err := c.Key(spec)
		if err != nil {
			t.Fatal(err)
		}
		return k, c
	}
	k, c := keyNow()
	(&whyFixture{c: c}).store(t, k)
	for _, tc := range []struct{ from, to, reason string }{
		{"4.17.20", "4.17.21", "dependency lodash 4.17.20 → 4.17.21"},
		{"18.2.0", "18.3.1", "dependency react 18.2.0 → 18.3.1 and 1 more package"},
		{"js-tokens: 4.0.0\n\nimporters", "js-tokens: ^4.0.0\n\nimporters", "lockfile setting overrides changed"},
		{"sha512-PlhdFcillOINfeV7", "sha512-XlhdFcillOINfeV7", "dependency lodash 4.17.15,4.17.21 resolved differently (integrity, source or its dependencies)"},
	} {
		text = strings.Replace(text, tc.from, tc.to, -1)
		k, c := keyNow()
		if got := c.Why(k, nil).Reason; got != tc.reason {
			t.Errorf("%s → %s: reason %q, want %q", tc.from, tc.to, got, tc.reason)
		}
		(&whyFixture{c: c}).store(t, k)
	}
}
