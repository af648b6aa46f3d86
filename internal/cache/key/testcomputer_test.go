package key

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/vxrun/vx/internal/cache/store"
)

// cacheOptions are the few settings of a cache that the tests of the key's
// computation vary.
type cacheOptions struct {
	Dir, Root   string
	Read, Write bool
	DryRun      bool
	Warn        *bytes.Buffer
	Projects    []string
	Environ     []string
	EnvKey      *EnvKey
}

// newTestComputer returns a Computer on the store in o.Dir, made as
// internal/cache makes one.
func newTestComputer(o cacheOptions) (*Computer, error) {
	st, err := store.OpenStore(o.Dir)
	if err != nil {
		return nil, err
	}
	ko := Options{Root: o.Root, Environ: o.Environ, Blobs: st, Write: o.Write, DryRun: o.DryRun, EnvKey: o.EnvKey, Projects: o.Projects,
		Memo: store.CheckoutFile(o.Dir, o.Root, "memo"), LockMemo: filepath.Join(o.Dir, "lockfile-memo")}
	if o.Warn != nil {
		w := o.Warn
		seen := map[string]bool{}
		ko.Warn = func(format string, args ...any) {
			msg := "vx: " + fmt.Sprintf(format, args...) + "\n"
			if !seen[msg] {
				seen[msg] = true
				w.WriteString(msg)
			}
		}
	}
	return New(ko), nil
}

// Close ends the computer as the cache's Close does: the memos written.
func (c *Computer) Close() {
	tmp := filepath.Join(filepath.Dir(c.opts.LockMemo), "tmp")
	c.RecordPending()
	c.SaveMemo(tmp)
	c.SaveLockMemo(tmp)
}

// storeDir is the directory of the store c keeps its blobs in.
func (c *Computer) storeDir() string { return filepath.Dir(c.opts.LockMemo) }

// st returns the fixture's store.
func (f *lockFixture) st() *store.Store { return &store.Store{Dir: f.c.storeDir()} }

// CloseReadOnly ends the computer of a run that only computed keys.
func (c *Computer) CloseReadOnly() { c.SaveMemo(filepath.Join(c.storeDir(), "tmp")) }

// storeEnvKey is the EnvKey of st's own secret, as internal/cache makes it.
func storeEnvKey(st *store.Store) (*EnvKey, error) {
	secret, err := st.Secret()
	if err != nil {
		return nil, err
	}
	return StoreEnvKey(secret), nil
}
