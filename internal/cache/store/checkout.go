package store

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache/reapi"
)

// CheckoutFile returns the path of the store file name for the checkout
// whose workspace root is root: a file that holds what is true of one
// checkout only (the memo, which knows files by their absolute paths; the
// evaluated vx.config.ts). In a store inside root (the checkout's own) it
// is name; in a store elsewhere (the main worktree's, shared; a
// VX_CACHE_DIR) it is name, "-" and the first 16 hex digits of the
// SHA-256 of root, so that checkouts sharing a store keep one each rather
// than overwriting one another's at every run. [Store.Prune] removes
// those unused for checkoutFileAge.
func CheckoutFile(dir, root, name string) string {
	if rel, err := filepath.Rel(root, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
		return filepath.Join(dir, name)
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, name+"-"+hex.EncodeToString(sum[:8]))
}

// checkoutFileAge is how long a checkout's own file in a shared store
// (CheckoutFile) may go unwritten before a prune removes it: its worktree
// may be gone.
const checkoutFileAge = 30 * 24 * time.Hour

// checkoutFiles calls fn with each checkout's own file of the store
// (CheckoutFile's names with a root's digest): regular files only.
func (s *Store) checkoutFiles(fn func(path string, fi fs.FileInfo)) {
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		n := e.Name()
		i := strings.LastIndexByte(n, '-')
		if i < 0 || len(n)-i-1 != 16 || !reapi.IsHex(n[i+1:]) || (n[:i] != "memo" && n[:i] != "config-memo") || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			fn(filepath.Join(s.Dir, n), fi)
		}
	}
}
