package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/inputfile"
)

// What a traced run (vx run --trace) found that a task read outside its
// key is kept beside the entry it stored, by the entry's action:
// traced/<2 hex>/<hash>. The cache decides what the record holds; the
// store keeps it while the entry is there.

func (s *Store) tracedPath(action reapi.Digest) string {
	return filepath.Join(s.Dir, "traced", action.Hash[:2], action.Hash)
}

// WriteTraced keeps data, the record of what a traced run of action's task
// read outside its key, beside action's entry. Best effort, like the
// record of a task's last entry.
func (s *Store) WriteTraced(action reapi.Digest, data []byte) {
	s.putFile(s.tracedPath(action), data)
}

// ReadTraced returns the record kept beside the entry of action, nil when
// none: a regular file only, of bounded size (inputfile.Read), so that a
// pipe or a device in its place neither hangs nor floods vx.
func (s *Store) ReadTraced(action reapi.Digest) []byte {
	data, err := inputfile.Read(s.tracedPath(action))
	if err != nil {
		return nil
	}
	return data
}

// pruneTraced removes the records of entries the store no longer holds.
func (s *Store) pruneTraced() {
	s.eachHashFile("traced", func(p string, _ fs.FileInfo) {
		d := reapi.Digest{Hash: filepath.Base(p)}
		if !reapi.ValidDigest(d) {
			os.Remove(p)
			return
		}
		if _, err := os.Stat(s.EntryPath(d)); errors.Is(err, fs.ErrNotExist) {
			os.Remove(p)
		}
	})
}
