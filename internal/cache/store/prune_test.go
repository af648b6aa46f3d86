package store

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/testdir"
)

func TestPrune(t *testing.T) {
	st, _ := OpenStore(testdir.New(t))
	old := time.Now().Add(-48 * time.Hour)
	put := func(name string, size int, used time.Time) reapi.Digest {
		blob, _ := st.PutBytes(bytes.Repeat([]byte(name), size))
		os.Chtimes(st.BlobPath(blob), old, old)
		action := reapi.DigestOf([]byte("action " + name))
		st.UpdateActionResult(action, (&reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "f", Digest: blob}}}).Marshal())
		p := st.EntryPath(action)
		os.Chtimes(p, used, used)
		return blob
	}
	now := time.Now()
	aBlob := put("a", 1000, now.Add(-3*time.Hour))
	bBlob := put("b", 1000, now.Add(-2*time.Hour))
	cBlob := put("c", 1000, now.Add(-1*time.Hour))
	orphan, _ := st.PutBytes([]byte("orphan"))
	os.Chtimes(st.BlobPath(orphan), old, old)
	young, _ := st.PutBytes([]byte("young, maybe a concurrent run's"))

	res, err := st.Prune(PruneOptions{MaxSize: 2500})
	if err != nil {
		t.Fatal(err)
	}
	if res.RemovedEntries != 1 || res.Entries != 2 {
		t.Errorf("Prune = %+v, want 1 entry removed and 2 left", res)
	}
	for d, want := range map[reapi.Digest]bool{aBlob: false, bBlob: true, cBlob: true, orphan: false, young: true} {
		if st.HasBlob(d) != want {
			t.Errorf("blob %s present = %v, want %v", d.Hash[:12], !want, want)
		}
	}
	res, _ = st.Prune(PruneOptions{MaxAge: 90 * time.Minute})
	if res.Entries != 1 {
		t.Errorf("Prune by age left %d entries, want 1", res.Entries)
	}
}

// TestPruneKeepsBlobsBeingRestored: a prune (another worktree's, sharing
// the store) that removes an entry a run used a moment ago keeps its
// blobs, which that run may be restoring; an entry unused for longer
// loses them.
func TestPruneKeepsBlobsBeingRestored(t *testing.T) {
	st, _ := OpenStore(testdir.New(t))
	old := time.Now().Add(-48 * time.Hour)
	put := func(name string, used time.Time) reapi.Digest {
		blob, _ := st.PutBytes(bytes.Repeat([]byte(name), 1000))
		os.Chtimes(st.BlobPath(blob), old, old)
		action := reapi.DigestOf([]byte("action " + name))
		st.UpdateActionResult(action, (&reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "f", Digest: blob}}}).Marshal())
		os.Chtimes(st.EntryPath(action), used, used)
		return blob
	}
	restoring := put("restoring", time.Now().Add(-time.Second))
	stale := put("stale", time.Now().Add(-3*time.Hour))
	res, err := st.Prune(PruneOptions{MaxSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entries != 0 || res.RemovedEntries != 2 {
		t.Errorf("Prune = %+v, want both entries removed", res)
	}
	if !st.HasBlob(restoring) {
		t.Error("the blob of an entry used a second ago was removed")
	}
	if st.HasBlob(stale) {
		t.Error("the blob of an entry unused for 3 hours was kept")
	}
}
