package jsconfig

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestMemoNodeBehindShim: behind a version manager's shim, the evaluation's
// node changes with the pin of the workspace (.nvmrc) and the global
// default (~/.tool-versions), though the shim's file does not: the memo
// does not hold, with "node changed".
func TestMemoNodeBehindShim(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake shim is a shell script")
	}
	top := testdir.New(t)
	shims := filepath.Join(top, "home/.asdf/shims")
	os.MkdirAll(shims, 0o755)
	os.WriteFile(filepath.Join(shims, "node"), []byte("#!/bin/sh\necho v0\n"), 0o755)
	root := filepath.Join(top, "ws")
	os.MkdirAll(root, 0o755)
	os.WriteFile(filepath.Join(root, ".nvmrc"), []byte("18\n"), 0o644)
	os.WriteFile(filepath.Join(top, "home/.tool-versions"), []byte("nodejs 20.1.0\n"), 0o644)
	o := Options{Root: root, GOOS: runtime.GOOS, Version: "v1", Environ: []string{"PATH=" + shims, "HOME=" + filepath.Join(top, "home")}}
	node, err := findNode(o.Environ, root, o.GOOS)
	if err != nil {
		t.Fatal(err)
	}
	m := &memoFile{VX: "v1", Packages: packages(o), Node: node}
	check := func(step, wantWhy string) {
		t.Helper()
		now, err := findNode(o.Environ, root, o.GOOS)
		if err != nil {
			t.Fatal(err)
		}
		if _, why := m.holds(o, nil, now); why != wantWhy {
			t.Errorf("%s: the memo says %q, want %q", step, why, wantWhy)
		}
	}
	check("nothing changed", "")
	os.WriteFile(filepath.Join(root, ".nvmrc"), []byte("20\n"), 0o644)
	check("the pin changed", "node changed")
	os.WriteFile(filepath.Join(root, ".nvmrc"), []byte("18\n"), 0o644)
	check("the pin back", "")
	os.WriteFile(filepath.Join(top, "home/.tool-versions"), []byte("nodejs 22.1.0\n"), 0o644)
	check("the global default changed", "node changed")
}
