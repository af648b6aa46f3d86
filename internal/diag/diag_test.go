package diag

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestErrorText(t *testing.T) {
	cause := errors.New("invalid character '}'")
	tests := []struct {
		name string
		e    *Error
		want string
	}{
		{"full", &Error{Path: "vx.json", Line: 4, Col: 16, Msg: `unknown key "passthrough"`, Suggest: `did you mean "passThrough"?`},
			`vx.json:4:16: unknown key "passthrough"; did you mean "passThrough"?`},
		{"cause", &Error{Path: "a/package.json", Line: 3, Col: 9, Msg: "invalid JSON", Err: cause},
			`a/package.json:3:9: invalid JSON: invalid character '}'`},
		{"line only", &Error{Path: "pnpm-workspace.yaml", Line: 2, Msg: "invalid YAML"}, `pnpm-workspace.yaml:2: invalid YAML`},
		{"no position", &Error{Path: "x", Msg: "bad"}, `x: bad`},
		{"control character", &Error{Path: "a\x1b[31m/vx.json", Line: 1, Col: 1, Msg: "m"}, `"a\x1b[31m/vx.json":1:1: m`},
		{"windows path", &Error{Path: `C:\repo\vx.json`, Line: 1, Col: 2, Msg: "m"}, `C:\repo\vx.json:1:2: m`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.e.Error()); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if !errors.Is(&Error{Err: cause}, cause) {
		t.Error("Error does not unwrap to its cause")
	}
}

func TestMessage(t *testing.T) {
	root, _ := filepath.Abs(filepath.FromSlash("/repo"))
	file := filepath.Join(root, "vx.json")
	at := func(p string) error { return &Error{Path: p, Line: 1, Col: 2, Msg: "m"} }
	tests := []struct {
		name string
		err  error
		dir  string
		want string
	}{
		{"at the root", at(file), root, "vx.json:1:2: m"},
		{"below the root", at(file), filepath.Join(root, "packages", "web"), filepath.FromSlash("../../vx.json") + ":1:2: m"},
		{"far away", at(file), filepath.Join(root, "a", "b", "c", "d", "e", "f"), file + ":1:2: m"},
		{"relative path kept", at("vx.json"), root, "vx.json:1:2: m"},
		{"no directory", at(file), "", file + ":1:2: m"},
		{"other error", errors.New("workspace: boom"), root, "workspace: boom"},
		{"wrapped is left as it is", fmt.Errorf("x: %w", at(file)), root, "x: " + file + ":1:2: m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Message(tt.err, tt.dir)); diff != "" {
				t.Errorf("Message() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
