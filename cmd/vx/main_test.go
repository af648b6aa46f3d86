package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("u", false, "rewrite the testscript files with the actual output")

// TestMain makes the test binary double as vx: started under the name
// "vx" it runs vx's main; otherwise it puts a copy of itself named vx first
// on PATH and runs the tests, so testscript files and Go tests alike can
// exec a real vx.
//
// This is what testscript.Main does, except that the temporary directory is
// removed entry by entry: under Wine, os.RemoveAll fails on a non-empty
// directory ("Invalid function"), and testscript.Main treats that as fatal.
func TestMain(m *testing.M) {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "vx" {
		os.Exit(run())
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vx-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer testdir.RemoveTree(dir)
	name := "vx"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if err := copyExecutable(filepath.Join(dir, name)); err != nil {
		fmt.Fprintf(os.Stderr, "cannot put vx on PATH: %v\n", err)
		return 2
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	code := m.Run()
	if vxRemote.dir != "" { // vx-remote, built by the remote cache's tests
		testdir.RemoveTree(vxRemote.dir)
	}
	return code
}

func copyExecutable(dst string) error {
	src, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// TestScript runs the end-to-end scripts in testdata/script: each is a
// workspace and the vx commands run in it, and reads like documentation.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
	})
}
