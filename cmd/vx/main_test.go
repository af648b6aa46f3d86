package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("u", false, "rewrite the testscript files with the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"vx": func() { os.Exit(run()) }})
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
