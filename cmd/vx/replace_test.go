package main

import (
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// replaceCmd is the testscript command "replace file old new": every old
// in file becomes new; old must be there. (Lockfiles are edited by their
// text, as a bot's pull request does, without a package manager.)
func replaceCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace file old new")
	}
	name := ts.MkAbs(args[0])
	b, err := os.ReadFile(name)
	ts.Check(err)
	if !strings.Contains(string(b), args[1]) {
		ts.Fatalf("replace: %q is not in %s", args[1], args[0])
	}
	ts.Check(os.WriteFile(name, []byte(strings.ReplaceAll(string(b), args[1], args[2])), 0o644))
}
