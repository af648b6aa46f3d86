package lockfile

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClosure(t *testing.T) {
	l := &Lockfile{
		Importers: map[string]*Importer{
			".":        {Deps: []Dep{{Name: "typescript", Entry: "ts"}}},
			"apps/web": {Deps: []Dep{{Name: "ui", Workspace: "packages/ui"}, {Name: "react", Entry: "react"}}},
			"packages/ui": {Deps: []Dep{{Name: "lodash", Entry: "lodash"},
				{Name: "web", Workspace: "apps/web"}}}, // a cycle through workspaces ends
			"packages/other": {Deps: []Dep{{Name: "left-pad", Entry: "left-pad"}}},
		},
		Entries: map[string]*Entry{
			"ts":           {Name: "typescript"},
			"react":        {Name: "react", Deps: []Dep{{Name: "loose-envify", Entry: "loose-envify"}}},
			"loose-envify": {Name: "loose-envify", Deps: []Dep{{Name: "react", Entry: "react"}}},
			"lodash":       {Name: "lodash"},
			"left-pad":     {Name: "left-pad"},
		},
	}
	for _, tc := range []struct {
		dirs []string
		want []string
	}{
		{[]string{"apps/web"}, []string{"lodash", "loose-envify", "react"}},
		{[]string{"packages/ui"}, []string{"lodash", "loose-envify", "react"}},
		{[]string{"packages/other", "."}, []string{"left-pad", "ts"}},
		{[]string{"nowhere"}, []string{}},
	} {
		if diff := cmp.Diff(tc.want, l.Closure(tc.dirs...)); diff != "" {
			t.Errorf("Closure(%q) (-want +got):\n%s", tc.dirs, diff)
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, name := range []string{"bun.lockb", "Cargo.lock"} {
		_, err := Parse(name, []byte("x"))
		if !errors.Is(err, ErrUnsupported) {
			t.Errorf("Parse(%q): %v, want ErrUnsupported", name, err)
		}
	}
}
