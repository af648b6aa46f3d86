package key

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
)

// TestMemoUpgradeKeepsProduced: a memo of the format before keeps its
// record of the outputs vx wrote (else an upgrade of vx makes every output
// of a workspace without git a file of yours, whose task is then never
// stored) and none of its ids (which did not flag symbolic links).
func TestMemoUpgradeKeepsProduced(t *testing.T) {
	dir := testdir.New(t)
	p := filepath.Join(dir, "memo")
	old := memoMagicProduced +
		"/ws/dist/a.js\x003\x00100\x00200\x007\x00p\x00\x00" +
		"/ws/src/link\x005\x00100\x00200\x008\x00-1\x00abc\x00"
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &memo{path: p}
	m.load()
	want := map[string]memoKey{"/ws/dist/a.js": {size: 3, mtime: 100, ctime: 200, ino: 7}}
	if diff := cmp.Diff(want, m.produced, cmp.AllowUnexported(memoKey{})); diff != "" {
		t.Errorf("produced (-want +got):\n%s", diff)
	}
	if len(m.entries) != 0 {
		t.Errorf("ids of the old format kept: %v", m.entries)
	}
}
