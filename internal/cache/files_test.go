package cache

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestMemoSeesSameSizeRewrite: a file rewritten with content of the same
// size, its old modification time put back (as cp -p, tar or touch -r
// do), is read again, not taken from the memo: its change time moved.
func TestMemoSeesSameSizeRewrite(t *testing.T) {
	dir := testdir.New(t)
	sc := &scanner{root: dir, memo: &memo{}}
	p := filepath.Join(dir, "a.txt")
	old := time.Now().Add(-time.Hour)
	if err := os.WriteFile(p, []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(p, old, old)
	later := time.Now().Add(time.Hour) // past the racy window: memoised
	first, ok, err := sc.hashOne("a.txt", false, later)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, ok := sc.memo.get(p); !ok {
		t.Fatal("the file was not memoised")
	}
	before, _ := os.Lstat(p)
	ctime0, _ := changeStamp(p, before)
	// Rewrite until the change time moves (the file system's clock ticks
	// every few milliseconds), each time putting the old time back.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := os.WriteFile(p, []byte("ALPHA\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, old, old)
		fi, _ := os.Lstat(p)
		if c, _ := changeStamp(p, fi); c != ctime0 || time.Now().After(deadline) {
			if c == ctime0 {
				t.Skip("the change time did not move in 5 s: no ctime here")
			}
			break
		}
		time.Sleep(time.Millisecond)
	}
	if fi, _ := os.Lstat(p); fi.Size() != before.Size() || !fi.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the rewrite should keep size and time: %v %v, was %v %v", fi.Size(), fi.ModTime(), before.Size(), before.ModTime())
	}
	second, _, err := sc.hashOne("a.txt", false, later)
	if err != nil {
		t.Fatal(err)
	}
	if second.id == first.id {
		t.Errorf("same-size rewrite with the old modification time: the memo gave the old id %s", first.id)
	}
	if want := gitBlobID("ALPHA\n"); second.id != want {
		t.Errorf("id %s, want %s", second.id, want)
	}
}

// gitBlobID is git's SHA-1 id of a blob with this content.
func gitBlobID(content string) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00%s", len(content), content)
	return hex.EncodeToString(h.Sum(nil))
}
