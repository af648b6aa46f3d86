package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestCheckoutFile: a store inside the checkout keeps its memo under its
// name; a store elsewhere keeps one per checkout, and a prune removes
// those of checkouts unused for 30 days, nothing else.
func TestCheckoutFile(t *testing.T) {
	base := testdir.New(t)
	root, other := filepath.Join(base, "ws"), filepath.Join(base, "ws2")
	own := filepath.Join(root, "node_modules", ".cache", "vx")
	if got, want := CheckoutFile(own, root, "memo"), filepath.Join(own, "memo"); got != want {
		t.Errorf("CheckoutFile in the checkout's own store = %q, want %q", got, want)
	}
	shared := filepath.Join(base, "main", "node_modules", ".cache", "vx")
	a, b := CheckoutFile(shared, root, "memo"), CheckoutFile(shared, other, "memo")
	if a == b || filepath.Dir(a) != shared || !strings.HasPrefix(filepath.Base(a), "memo-") || len(filepath.Base(a)) != len("memo-")+16 {
		t.Errorf("CheckoutFile in a shared store: %q and %q, want two memo-<16 hex> files in %s", a, b, shared)
	}
	if got := CheckoutFile(filepath.Join(base, "ws-cache"), root, "memo"); filepath.Base(got) == "memo" {
		t.Errorf("CheckoutFile in a sibling directory whose name starts as the root's = %q: taken for the checkout's own", got)
	}

	st, err := OpenStore(shared)
	if err != nil {
		t.Fatal(err)
	}
	stale := CheckoutFile(shared, other, "config-memo")
	keep := []string{a, filepath.Join(shared, "memo"), filepath.Join(shared, "memo-notahexdigest!"), filepath.Join(shared, "notes-0123456789abcdef")}
	for _, p := range append(keep, stale) {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	old := time.Now().Add(-31 * 24 * time.Hour)
	for _, p := range append(keep, stale) {
		if p != a {
			os.Chtimes(p, old, old)
		}
	}
	s, _ := st.Status()
	if _, err := st.Prune(PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed by a prune", filepath.Base(p))
		}
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s, unused for 31 days, kept by a prune", filepath.Base(stale))
	}
	if s.Bytes < 3 {
		t.Errorf("Status counts %d bytes, want the checkouts' files among them", s.Bytes)
	}
}
