package main

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// replaceCmd is the testscript command "replace file old new": every old
// in file becomes new; old must be there; \n in either stands for a line
// break. (Lockfiles are edited by their text, as a bot's pull request
// does, without a package manager.)
func replaceCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace file old new")
	}
	name := ts.MkAbs(args[0])
	old, new := strings.ReplaceAll(args[1], `\n`, "\n"), strings.ReplaceAll(args[2], `\n`, "\n")
	b, err := os.ReadFile(name)
	ts.Check(err)
	if !strings.Contains(string(b), old) {
		ts.Fatalf("replace: %q is not in %s", args[1], args[0])
	}
	ts.Check(os.WriteFile(name, []byte(strings.ReplaceAll(string(b), old, new)), 0o644))
}
