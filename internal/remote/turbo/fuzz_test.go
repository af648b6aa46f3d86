package turbo

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// FuzzUnpack: whatever the server sends, unpack never panics, never stages
// a file outside the spool, and accepts only an artifact for the action
// asked whose every staged blob matches its name's digest.
func FuzzUnpack(f *testing.F) {
	e := newEntry(f, "fuzz", 10, 3)
	paths := map[string]string{}
	for _, b := range e.blobs {
		paths[b.Digest.Hash] = b.Path
	}
	var good bytes.Buffer
	if _, err := pack(&good, e.action, e.result, func(h string) (string, bool) { p, ok := paths[h]; return p, ok }); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add([]byte{})
	f.Add(good.Bytes()[:len(good.Bytes())/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		spool := testdir.New(t)
		c := &Client{spool: spool, spooled: map[string]bool{}}
		staged, result, err := c.unpack(bufio.NewReader(bytes.NewReader(data)), e.action)
		for h, p := range staged {
			if err == nil {
				b, rerr := os.ReadFile(p)
				sum := sha256.Sum256(b)
				if rerr != nil || hex.EncodeToString(sum[:]) != h {
					t.Fatalf("accepted blob %s does not match its digest", h)
				}
			}
			os.Remove(p)
		}
		if err == nil && result == nil {
			t.Fatal("accepted without a result")
		}
		if es, _ := os.ReadDir(spool); len(es) != 0 {
			t.Fatalf("unpack left %s behind, not among the staged files", es[0].Name())
		}
	})
}
