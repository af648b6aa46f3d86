package nodeprog

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
)

func TestFileMemo(t *testing.T) {
	a := Program{Real: "/usr/bin/node", ID: "aa"}
	b := Program{Real: "/opt/node/bin/node", ID: "bb"}
	a2 := Program{Real: "/usr/bin/node", ID: "a2"} // the same path, upgraded
	tests := []struct {
		name  string
		file  string // what the file holds before; "" none
		set   []Program
		ask   Program
		want  string
		found bool
	}{
		{name: "no file", ask: a},
		{name: "kept across memos", set: []Program{a, b}, ask: a, want: "v20.0.aa", found: true},
		{name: "another identity of the same path", set: []Program{a}, ask: a2},
		{name: "damaged file", file: "vxnodeversions1\nv20.1.0 aa", ask: a},
		{name: "not a memo", file: "v20.1.0 aa /usr/bin/node\n", ask: a},
		{name: "damaged file is rewritten", file: "garbage", set: []Program{a}, ask: a, want: "v20.0.aa", found: true},
		{name: "not a version", file: "vxnodeversions1\n20.1.0 aa /usr/bin/node\n", ask: a},
		{name: "written by another vx", file: "vxnodeversions1\nv20.1.0 aa /usr/bin/node\n", ask: a, want: "v20.1.0", found: true},
		{name: "a path with spaces", set: []Program{{Real: "/Program Files/node", ID: "cc"}}, ask: Program{Real: "/Program Files/node", ID: "cc"}, want: "v20.0.cc", found: true},
		{name: "a path with a line break is not kept", set: []Program{{Real: "/a\nv1.0.0 aa /usr/bin/node", ID: "cc"}}, ask: a},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testdir.New(t)
			path := filepath.Join(dir, FileMemoName)
			if tt.file != "" {
				os.WriteFile(path, []byte(tt.file), 0o644)
			}
			tmp := func() (string, error) { return dir, nil }
			m := &FileMemo{Path: path, TempDir: tmp}
			for _, p := range tt.set {
				m.SetNodeVersion(p, "v20.0."+p.ID)
			}
			fresh := &FileMemo{Path: path, TempDir: tmp} // the next run
			v, ok := fresh.NodeVersion(tt.ask)
			if diff := cmp.Diff([]any{tt.want, tt.found}, []any{v, ok}); diff != "" {
				t.Errorf("NodeVersion (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFileMemoBounded: the memo keeps the newest fileMemoMax versions.
func TestFileMemoBounded(t *testing.T) {
	dir := testdir.New(t)
	path := filepath.Join(dir, FileMemoName)
	m := &FileMemo{Path: path, TempDir: func() (string, error) { return dir, nil }}
	for i := range fileMemoMax + 5 {
		m.SetNodeVersion(Program{Real: "/n", ID: fmt.Sprint(i)}, fmt.Sprintf("v%d.0.0", i))
	}
	fresh := &FileMemo{Path: path}
	if _, ok := fresh.NodeVersion(Program{Real: "/n", ID: "4"}); ok {
		t.Errorf("the oldest versions are kept")
	}
	if v, _ := fresh.NodeVersion(Program{Real: "/n", ID: "5"}); v != "v5.0.0" {
		t.Errorf("version %q, want v5.0.0", v)
	}
	if v, _ := fresh.NodeVersion(Program{Real: "/n", ID: fmt.Sprint(fileMemoMax + 4)}); v != fmt.Sprintf("v%d.0.0", fileMemoMax+4) {
		t.Errorf("newest version %q", v)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the directory holds %d files, want the memo alone", len(ents))
	}
}
