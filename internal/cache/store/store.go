package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/remote/wire"
)

// Store is the local cache: a content-addressed store of SHA-256 blobs and
// an action cache mapping an Action's digest to its ActionResult, in one
// directory:
//
//	vx-store               the mark: vx made this directory (see [OpenStore])
//	cas/<2 hex>/<sha256>   blobs, immutable once written
//	ac/<2 hex>/<sha256>    "vxac1\n" + hex SHA-256 of the result + "\n" + the serialized ActionResult
//	tmp/                   files being written; renamed into place when complete
//	last/<2 hex>/<sha256>  a task's last entry in a workspace ([LastUse])
//	traced/<2 hex>/<hash>  what a traced run read outside the key of entry <hash> ([Store.WriteTraced])
//	env-key                the store's secret ([Store.Secret])
//	last-run               hits and misses of the last run ([LastRun])
//	memo                   file ids by (path, size, mtime, inode): the key's computation keeps it
//	lockfile-memo          lockfiles' closures by content: the key's computation keeps it
//	config-memo            the evaluated vx.config.ts (internal/jsconfig)
//
// The memo and the config memo are per checkout in a store shared by
// several ([CheckoutFile]).
//
// Every file appears whole or not at all: it is written under tmp/ and
// renamed, so runs sharing a store never see a partial file. An action
// entry carries its own checksum, so a truncated or corrupted entry reads as
// absent rather than as a shorter result. A blob's digest is checked when it
// is read. The modification time of an ac file is its last use (see
// [Store.Prune]).
type Store struct {
	Dir string
}

// markName is the file that marks a directory as a store vx made. vx
// deletes files only in a directory that holds it, and there only files of
// the store's own layout.
const markName = "vx-store"

// markLine starts the mark; the rest is for a person who finds the file.
const markLine = "vx-store 1\n"

const markText = markLine +
	"vx made this directory for its task cache and deletes files in it when it prunes the cache.\n" +
	"Keep nothing else here. See docs/cache.md in github.com/vxrun/vx.\n"

// NotStoreError is a directory that holds files but is not a store vx
// made: vx neither writes its store there nor deletes anything in it.
type NotStoreError struct {
	Dir string
}

func (e *NotStoreError) Error() string {
	return fmt.Sprintf("cache: %s is not empty and is not a vx cache store (it has no %s file); "+
		"vx keeps its store only in a directory it created, so that pruning it never deletes your files: "+
		"choose a new or empty directory with --cache-dir or %s", quote.Q(e.Dir), markName, "VX_CACHE_DIR")
}

// OpenStore returns the store in dir. A directory that does not exist or
// is empty becomes a store: vx creates it and writes the mark. A store of
// an older vx, which had no mark, is adopted when the directory holds
// exactly its layout and nothing else ([oldLayout]). Any other directory
// that holds files is refused with a *NotStoreError, so that vx never
// deletes a file it did not write.
func OpenStore(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: cannot create the store: %w", err)
	}
	s := &Store{Dir: dir}
	if !s.marked() {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("cache: cannot read the store: %w", err)
		}
		// Only the mark, maybe half written by a concurrent vx: empty.
		empty := len(ents) == 0 || len(ents) == 1 && ents[0].Name() == markName && ents[0].Type().IsRegular()
		switch {
		case empty || oldLayout(dir, ents):
			if err := writeMark(dir); err != nil {
				return nil, fmt.Errorf("cache: cannot create the store: %w", err)
			}
		case s.marked():
			// A concurrent vx made the store between the two looks: it
			// writes the whole mark before anything else there.
		default:
			return nil, &NotStoreError{Dir: dir}
		}
	}
	for _, sub := range []string{"cas", "ac", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, fmt.Errorf("cache: cannot create the store: %w", err)
		}
	}
	return s, nil
}

// marked reports whether the store's directory holds the mark.
func (s *Store) marked() bool {
	p := filepath.Join(s.Dir, markName)
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular() && startsWith(p, markLine)
}

// checkMark returns a *NotStoreError unless the directory is a store vx
// made, or holds nothing (then there is nothing to delete either).
func (s *Store) checkMark() error {
	if s.marked() {
		return nil
	}
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) || err == nil && len(ents) == 0 {
		return nil
	}
	return &NotStoreError{Dir: s.Dir}
}

// writeMark writes the mark in place, without truncating: vx processes
// creating one store at once write the same bytes, so the file is whole
// once any of them has written it.
func writeMark(dir string) error {
	f, err := inputfile.OpenWrite(filepath.Join(dir, markName), os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(markText)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// oldMemoMagic starts the memo that the vx of a store without a mark
// wrote (its format is the key's computation's, internal/cache).
const oldMemoMagic = "vxmemo3\x00"

// oldLayout reports whether dir, whose entries are ents, is a store of a
// vx that wrote no mark, and nothing else: the directories cas, ac and tmp
// (none a symbolic link), at most the files memo and last-run in vx's
// formats, blobs and entries named by their SHA-256 under a directory of
// its first two digits, and in tmp only vx's temporary files. A user's
// directory that merely has cas/, ac/ or tmp/ is not one.
func oldLayout(dir string, ents []fs.DirEntry) bool {
	subdirs := 0
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch e.Name() {
		case "cas", "ac":
			if !e.IsDir() || !hashTree(p) {
				return false
			}
			subdirs++
		case "tmp":
			if !e.IsDir() || !tempFiles(p) {
				return false
			}
			subdirs++
		case "memo", "last-run":
			prefix := map[string]string{"memo": oldMemoMagic, "last-run": "time "}[e.Name()]
			if !e.Type().IsRegular() || !startsWith(p, prefix) {
				return false
			}
		default:
			return false
		}
	}
	return subdirs == 3
}

// hashTree reports whether dir holds only <2 hex>/<64 hex> regular files
// whose names start with their directory's.
func hashTree(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() || len(e.Name()) != 2 || !reapi.IsHex(e.Name()) {
			return false
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			return false
		}
		for _, f := range files {
			if !isHashFile(e.Name(), f) {
				return false
			}
		}
	}
	return true
}

// isHashFile reports whether f, in the directory named prefix, is a blob
// or entry of the store: a regular file named by a SHA-256 in lower-case
// hex that starts with prefix.
func isHashFile(prefix string, f fs.DirEntry) bool {
	n := f.Name()
	return f.Type().IsRegular() && len(n) == 64 && reapi.IsHex(n) && n[:2] == prefix
}

// tempFiles reports whether dir holds only vx's temporary files.
func tempFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !isTempFile(e) {
			return false
		}
	}
	return true
}

// isTempFile reports whether e, in tmp/, is a file vx writes there.
func isTempFile(e fs.DirEntry) bool {
	return e.Type().IsRegular() && (strings.HasPrefix(e.Name(), "w-") || strings.HasPrefix(e.Name(), "memo-"))
}

func startsWith(p, prefix string) bool {
	f, _, err := inputfile.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(prefix))
	_, err = io.ReadFull(f, b)
	return err == nil && string(b) == prefix
}

// BlobPath returns the file that holds (or would hold) the blob d.
func (s *Store) BlobPath(d reapi.Digest) string {
	return filepath.Join(s.Dir, "cas", d.Hash[:2], d.Hash)
}

// EntryPath returns the file that holds (or would hold) action's entry.
func (s *Store) EntryPath(action reapi.Digest) string {
	return filepath.Join(s.Dir, "ac", action.Hash[:2], action.Hash)
}

// HasBlob reports whether the store holds a file of d's size for d.
func (s *Store) HasBlob(d reapi.Digest) bool {
	fi, err := os.Stat(s.BlobPath(d))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == d.Size
}

// TempFile creates a file under tmp/, which a prune removes once stale:
// a file on its way into the store, or a running task's captured output.
func (s *Store) TempFile() (*os.File, error) {
	f, err := os.CreateTemp(filepath.Join(s.Dir, "tmp"), "w-*")
	if errors.Is(err, fs.ErrNotExist) {
		// The store was removed under us (vx cache prune, rm -rf): recreate.
		if _, err := OpenStore(s.Dir); err != nil {
			return nil, err
		}
		f, err = os.CreateTemp(filepath.Join(s.Dir, "tmp"), "w-*")
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return f, nil
}

// commit moves a complete temporary file to dst. When dst exists already
// (another run wrote the same blob), the temporary file is dropped.
func commit(tmp, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		if _, serr := os.Stat(dst); serr == nil {
			return nil
		}
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}

// PutBytes stores data as a blob and returns its digest. A blob already
// there is replaced: it may be one a disk damaged.
func (s *Store) PutBytes(data []byte) (reapi.Digest, error) {
	d := reapi.DigestOf(data)
	_, err := s.WriteBlob(d, bytes.NewReader(data))
	return d, err
}

// PutFile copies the file at path into the store and returns its digest.
func (s *Store) PutFile(path string) (reapi.Digest, error) {
	src, _, err := inputfile.Open(path)
	if err != nil {
		return reapi.Digest{}, fmt.Errorf("cache: %w", err)
	}
	defer src.Close()
	f, err := s.TempFile()
	if err != nil {
		return reapi.Digest{}, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return reapi.Digest{}, fmt.Errorf("cache: copying %s: %w", path, err)
	}
	d := reapi.Digest{Hash: hex.EncodeToString(h.Sum(nil)), Size: n}
	// Replace a blob already there: the copy is made anyway, and the old
	// one may be damaged (a damaged blob is never used, but must not stay).
	return d, commit(f.Name(), s.BlobPath(d))
}

// WriteBlob stores the content read from r as blob d, checking that it
// has d's size and hash; a blob that does not match is not stored. It
// returns the number of bytes read. A Remote's blobs come in this way.
func (s *Store) WriteBlob(d reapi.Digest, r io.Reader) (int64, error) {
	if !reapi.ValidDigest(d) {
		return 0, fmt.Errorf("cache: invalid digest %q", d.String())
	}
	f, err := s.TempFile()
	if err != nil {
		return 0, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, d.Size+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && (n != d.Size || hex.EncodeToString(h.Sum(nil)) != d.Hash) {
		err = fmt.Errorf("cache: blob %s: content does not match its digest", d.String())
	}
	if err != nil {
		os.Remove(f.Name())
		return n, err
	}
	return n, commit(f.Name(), s.BlobPath(d))
}

// ErrCorrupt marks a store entry or blob that exists but cannot be used.
var ErrCorrupt = errors.New("corrupt")

// ErrNotFound is returned (possibly wrapped) for a blob or an entry that
// the store does not hold: the remote cache protocol's, so that a miss is
// one error wherever it comes from.
var ErrNotFound = wire.ErrNotFound

// OpenBlob opens blob d for reading through a reader that fails at the end
// when the content does not match d (size or hash). A missing blob is
// ErrNotFound.
func (s *Store) OpenBlob(d reapi.Digest) (io.ReadCloser, error) {
	f, _, err := inputfile.Open(s.BlobPath(d))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("blob %s: %w", d.String(), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return &verifyReader{f: f, d: d, h: sha256.New()}, nil
}

// ReadBlobByHash returns the blob whose SHA-256 is h, checked; the size is
// not needed (an input list names a dependency's key by its hash).
func (s *Store) ReadBlobByHash(h string) ([]byte, error) {
	if !reapi.ValidDigest(reapi.Digest{Hash: h}) {
		return nil, fmt.Errorf("cache: %q is not a SHA-256 digest", h)
	}
	data, err := inputfile.ReadLimit(s.BlobPath(reapi.Digest{Hash: h}), MaxEntrySize)
	if err != nil {
		return nil, err
	}
	if reapi.DigestOf(data).Hash != h {
		return nil, fmt.Errorf("blob %s does not match its digest: %w", h[:12], ErrCorrupt)
	}
	return data, nil
}

// ReadBlob returns blob d's content, checked against d.
func (s *Store) ReadBlob(d reapi.Digest) ([]byte, error) {
	r, err := s.OpenBlob(d)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

type verifyReader struct {
	f *os.File
	d reapi.Digest
	h hash.Hash
	n int64
}

func (v *verifyReader) Read(p []byte) (int, error) {
	n, err := v.f.Read(p)
	v.h.Write(p[:n])
	v.n += int64(n)
	if v.n > v.d.Size {
		return n, fmt.Errorf("blob %s is larger than its digest says: %w", v.d.String(), ErrCorrupt)
	}
	if err == io.EOF && (v.n != v.d.Size || hex.EncodeToString(v.h.Sum(nil)) != v.d.Hash) {
		return n, fmt.Errorf("blob %s does not match its digest: %w", v.d.String(), ErrCorrupt)
	}
	return n, err
}

func (v *verifyReader) Close() error { return v.f.Close() }

const acMagic = "vxac1\n"

// MaxEntrySize bounds what vx reads of an action entry, the memo and other
// store files that have no digest to say their size: 256 MiB, far above
// the entry of a task with a hundred thousand outputs.
const MaxEntrySize = 256 << 20

// GetActionResult returns the serialized ActionResult stored for action,
// checked against its checksum, and marks the entry used. It returns
// ErrNotFound when there is none, and an error wrapping ErrCorrupt when the
// entry is damaged.
func (s *Store) GetActionResult(action reapi.Digest) ([]byte, error) {
	p := s.EntryPath(action)
	data, err := inputfile.ReadLimit(p, MaxEntrySize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if errors.Is(err, inputfile.ErrNotRegular) || errors.Is(err, inputfile.ErrLarger) {
		return nil, fmt.Errorf("action entry %s: %w: %w", action.Hash[:12], err, ErrCorrupt)
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if len(data) < len(acMagic)+65 || string(data[:len(acMagic)]) != acMagic || data[len(acMagic)+64] != '\n' {
		return nil, fmt.Errorf("action entry %s is truncated or not a vx entry: %w", action.Hash[:12], ErrCorrupt)
	}
	sum := string(data[len(acMagic) : len(acMagic)+64])
	res := data[len(acMagic)+65:]
	if reapi.DigestOf(res).Hash != sum {
		return nil, fmt.Errorf("action entry %s does not match its checksum: %w", action.Hash[:12], ErrCorrupt)
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		now := time.Now()
		os.Chtimes(p, now, now) // last use, for pruning; best effort
	}
	return res, nil
}

// UpdateActionResult stores result (a serialized ActionResult) for action,
// replacing any entry. The blobs it names must be in the store first.
func (s *Store) UpdateActionResult(action reapi.Digest, result []byte) error {
	f, err := s.TempFile()
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(acMagic)+65+len(result))
	buf = append(buf, acMagic...)
	buf = append(buf, reapi.DigestOf(result).Hash...)
	buf = append(buf, '\n')
	buf = append(buf, result...)
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cache: %w", err)
	}
	p := s.EntryPath(action)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}
