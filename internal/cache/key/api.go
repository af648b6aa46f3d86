package key

import (
	"io/fs"
	"path"
	"strings"

	"github.com/vxrun/vx/internal/cache/reapi"
)

// What internal/cache, which composes the key's computation with the
// store, needs of it besides [Computer]'s methods.

// Snapshot is the workspace's files as a scan found them, by path from the
// root: what a key is computed from ([Computer.Recheck] returns one).
type Snapshot = snapshot

// FileStat is what vx reads of a file's metadata (size, times, inode,
// mode): equal values, an unchanged file.
type FileStat = fileStat

// Lstat returns the metadata of the file at abs, not following a link.
func Lstat(abs string) (FileStat, error) { return lstat(abs) }

// Spec returns what k was computed from.
func (k *Key) Spec() *TaskSpec { return k.spec }

// Parts returns the encodings of k's Action, Command and input list: the
// blobs an entry stored under k keeps, so that vx why can compare keys.
func (k *Key) Parts() (action, command, list []byte) { return k.action, k.command, k.manifest() }

// Compute returns the key of t whose input files are files (by path from
// the root), with no lockfile read (each keyed by its bytes): the key a
// test or a tool writes down.
func Compute(t *TaskSpec, files []InputFile, platform []Property, ek *EnvKey) *Key {
	return keyOf(t, files, fileLines(files), platform, ek)
}

// MatchGlobs applies globs in order, the last one matching p deciding; a
// glob starting with "!" excludes. rel is p relative to the project ("" when
// p is outside it); root-relative globs ("//...") match p from the root.
func MatchGlobs(globs []string, rootRel, rel string, inProject bool) bool {
	return matchGlobs(globs, rootRel, rel, inProject)
}

// ProjectRel returns p (root-relative) relative to the project dir, and
// whether p is in it.
func ProjectRel(dir, p string) (string, bool) { return projectRel(dir, p) }

// Closure returns the description of a lockfile closure whose digest is h,
// which a key's "lockfile" line names: one this run made, or the store's;
// nil when neither has it.
func (c *Computer) Closure(h string) []byte { return c.closure(h) }

// maxEntrySize bounds what the key's computation reads of a memo: 256 MiB.
const maxEntrySize = 256 << 20

// Digest names a blob by its SHA-256 and size ([reapi.Digest]).
type Digest = reapi.Digest

// Property is a name and a value of a key ([reapi.Property]).
type Property = reapi.Property

// SafeRel reports whether p is a clean, slash-separated relative path that
// stays below its base: no "..", no absolute path, no drive, no empty or
// "." element, no backslash or NUL.
func SafeRel(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00:") || path.Clean(p) != p {
		return false
	}
	for _, e := range strings.Split(p, "/") {
		if e == ".." || e == "." || e == "" {
			return false
		}
	}
	return true
}

// EnvKey returns the EnvKey the computer hashes the keys' values with.
func (c *Computer) EnvKey() *EnvKey { return c.envKey }

// Platform returns the platform properties of the run's keys (OS and
// architecture), before the node version and the EnvKey's name.
func (c *Computer) Platform() []Property { return c.platform() }

// Inode returns the inode number of fi, 0 where the system has none.
func Inode(fi fs.FileInfo) uint64 { return inode(fi) }

// ChangeTime returns the file's change time (Unix's ctime, NTFS's
// ChangeTime) in nanoseconds.
func (st FileStat) ChangeTime() int64 { return st.ctime }
