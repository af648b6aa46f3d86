package cache

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestOutputsDigest: the digest changes with an output's content, its
// permission bits or a new output, and not with a file outside the
// outputs or under node_modules.
func TestOutputsDigest(t *testing.T) {
	dir := testdir.New(t)
	put := func(rel, content string, mode os.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	digest := func() string {
		d, err := OutputsDigest([]string{"dist/**", "!dist/**/*.map"}, dir, filepath.Join(dir, "node_modules", ".cache", "vx"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	put("dist/a.js", "a", 0o644)
	d0 := digest()
	steps := []struct {
		what    string
		do      func()
		changed bool
	}{
		{"a source file", func() { put("src/a.ts", "x", 0o644) }, false},
		{"a map the globs leave out", func() { put("dist/a.js.map", "m", 0o644) }, false},
		{"node_modules", func() { put("dist/node_modules/x.js", "m", 0o644) }, false},
		{"the same content written again", func() { put("dist/a.js", "a", 0o644) }, false},
		{"an output's content", func() { put("dist/a.js", "b", 0o644) }, true},
		{"an output's mode", func() { put("dist/a.js", "b", 0o755) }, runtime.GOOS != "windows"}, // Windows has no executable bit
		{"a new output", func() { put("dist/sub/b.js", "b", 0o644) }, true},
	}
	for _, s := range steps {
		s.do()
		d := digest()
		if (d != d0) != s.changed {
			t.Errorf("%s: digest changed = %v, want %v", s.what, d != d0, s.changed)
		}
		d0 = d
	}
	if d, _ := OutputsDigest(nil, dir, ""); d != "" {
		t.Errorf("no outputs: %q, want \"\"", d)
	}
}
