package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/inputfile"
)

// LastUse is what the store remembers of the entry a task last stored or
// restored, per workspace and task: the key `vx why` and a run's miss
// reasons compare with. The key's parts are in the store already (its
// Action, Command and input list are blobs that the entry keeps); LastUse
// adds what the key does not hold but a reason may need.
type LastUse struct {
	ID     string
	Root   string       // the workspace root, absolute
	Action reapi.Digest // the key
	Time   time.Time    // when it became the task's last entry (read only)
	// VX is the version of the vx that stored or restored it.
	VX string
	// Inputs are the task's vx.json "inputs" globs then (nil = the
	// default set): the key holds the files they chose, not the globs.
	Inputs []string
}

// lastUseFile is LastUse as the file holds it. The time is the file's
// modification time, so that the same record is the same bytes.
type lastUseFile struct {
	ID     string   `json:"id"`
	Root   string   `json:"root"`
	Action string   `json:"action"` // hash/size
	VX     string   `json:"vx,omitempty"`
	Inputs []string `json:"inputs"`
}

func (u *LastUse) encode() ([]byte, error) {
	data, err := json.Marshal(lastUseFile{ID: u.ID, Root: u.Root, Action: u.Action.String(), VX: u.VX, Inputs: u.Inputs})
	return append(data, '\n'), err
}

func parseDigest(s string) (reapi.Digest, bool) {
	h, size, ok := strings.Cut(s, "/")
	n, err := strconv.ParseInt(size, 10, 64)
	d := reapi.Digest{Hash: h, Size: n}
	return d, ok && err == nil && reapi.ValidDigest(d)
}

func decodeLastUse(data []byte) (*LastUse, bool) {
	var f lastUseFile
	if json.Unmarshal(data, &f) != nil {
		return nil, false
	}
	d, ok := parseDigest(f.Action)
	if !ok {
		return nil, false
	}
	return &LastUse{ID: f.ID, Root: f.Root, Action: d, VX: f.VX, Inputs: f.Inputs}, true
}

// lastPath is the file that holds the LastUse of task id in the workspace
// at root: last/<2 hex>/<SHA-256 of root and id>.
func (s *Store) lastPath(root, id string) string {
	sum := sha256.Sum256([]byte(root + "\x00" + id))
	h := hex.EncodeToString(sum[:])
	return filepath.Join(s.Dir, "last", h[:2], h)
}

// ReadLast returns what the store remembers of task id's last entry in the
// workspace at root, or nil when it remembers none.
func (s *Store) ReadLast(root, id string) *LastUse {
	return readLastUse(s.lastPath(root, id), root, id)
}

func readLastUse(path, root, id string) *LastUse {
	f, fi, err := inputfile.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil
	}
	u, ok := decodeLastUse(data)
	if !ok || u.Root != root || u.ID != id {
		return nil
	}
	u.Time = fi.ModTime()
	return u
}

// WriteLast records u as its task's last entry (its Time is when it is
// written), replacing the record before it. A record that says the same
// already is left alone, so a run of hits only reads. Best effort: a
// failure only costs `vx why` its answer.
func (s *Store) WriteLast(u LastUse) {
	path := s.lastPath(u.Root, u.ID)
	data, err := u.encode()
	if err != nil {
		return
	}
	if sameContent(path, data) {
		return
	}
	s.putFile(path, data)
}

// putFile puts data at path in the store (its directory made), through a
// temporary file renamed over it: best effort, for records that only save
// work (a failure leaves the old record or none).
func (s *Store) putFile(path string, data []byte) {
	f, err := s.TempFile()
	if err != nil {
		return
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil || os.Rename(f.Name(), path) != nil {
		os.Remove(f.Name())
	}
}

// pruneLast removes the records of entries the store no longer holds.
func (s *Store) pruneLast() {
	s.eachHashFile("last", func(p string, _ fs.FileInfo) {
		data, err := inputfile.ReadLimit(p, 1<<20)
		if err != nil {
			return
		}
		u, ok := decodeLastUse(data)
		if !ok {
			os.Remove(p)
			return
		}
		if _, err := os.Stat(s.EntryPath(u.Action)); errors.Is(err, fs.ErrNotExist) {
			os.Remove(p)
		}
	})
}

// sameContent reports whether the file at path holds data: one open and
// one read (a hit asks it of its task's record).
func sameContent(path string, data []byte) bool {
	f, _, err := inputfile.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(data)+1)
	n, _ := io.ReadFull(f, buf)
	return n == len(data) && bytes.Equal(buf[:n], data)
}
