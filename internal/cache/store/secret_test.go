package store

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestStoreSecret: the store's secret is made once, readable by its owner
// only, shared by concurrent first runs, and a damaged file is replaced.
func TestStoreSecret(t *testing.T) {
	st, err := OpenStore(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	names := make([]string, 8)
	for i := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := st.Secret()
			if err != nil {
				t.Error(err)
				return
			}
			names[i] = hex.EncodeToString(k)
		}()
	}
	wg.Wait()
	for _, n := range names {
		if n != names[0] || len(n) != 64 {
			t.Fatalf("concurrent first runs: %q", names)
		}
	}
	p := filepath.Join(st.Dir, secretName)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("%s is %v, want -rw-------", secretName, fi.Mode().Perm())
	}
	// (Wine cannot remove a file that has a second hard link; a w-* file
	// left behind is cleared by prune once stale.)
	if tmp, _ := os.ReadDir(filepath.Join(st.Dir, "tmp")); len(tmp) != 0 && runtime.GOOS != "windows" {
		t.Errorf("tmp/ holds %d files after the secret was made", len(tmp))
	}
	if data, _ := os.ReadFile(p); string(data) != secretMagic+names[0]+"\n" {
		t.Errorf("%s holds %q, want the secret in hex after %q", secretName, data, secretMagic)
	}
	if err := os.WriteFile(p, []byte("damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := st.Secret()
	if err != nil {
		t.Fatal(err)
	}
	if hex.EncodeToString(k) == names[0] {
		t.Error("a damaged secret was read as the old one")
	}
	if k2, err := st.Secret(); err != nil || !bytes.Equal(k2, k) {
		t.Errorf("the replaced secret is not kept: %x, %v", k2, err)
	}
}
