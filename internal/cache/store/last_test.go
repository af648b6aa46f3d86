package store

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/testdir"
)

func TestLastUseIsAtomicAndPerWorkspace(t *testing.T) {
	s, err := OpenStore(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	d := reapi.DigestOf([]byte("k"))
	s.WriteLast(LastUse{ID: "web#build", Root: "/a", Action: d, Inputs: []string{"**"}})
	if u := s.ReadLast("/a", "web#build"); u == nil || u.Action != d || !cmp.Equal(u.Inputs, []string{"**"}) {
		t.Errorf("read back %+v", u)
	}
	if u := s.ReadLast("/b", "web#build"); u != nil {
		t.Errorf("another workspace read %+v", u)
	}
	// A damaged record is no record.
	os.WriteFile(s.lastPath("/a", "web#build"), []byte("{\"id\":"), 0o644)
	if u := s.ReadLast("/a", "web#build"); u != nil {
		t.Errorf("a damaged record read as %+v", u)
	}
	if tmp, _ := os.ReadDir(filepath.Join(s.Dir, "tmp")); len(tmp) != 0 {
		t.Errorf("left in tmp/: %v", tmp)
	}
}
