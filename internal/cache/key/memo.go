package key

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/internal/inputfile"
)

// memo remembers the id of files vx hashed, by absolute path, with the
// size, modification and change times and inode they had (memoKey), so
// that a file that did not change is not read again; and the outputs vx
// wrote (restored or stored) that git does not ignore, with their memoKey
// then (produced), so that a restore can tell them from a file of the
// user's. It lives in the store (file "memo") and is read at the first use
// and written back, whole, when it changed.
type memo struct {
	path string

	once     sync.Once
	mu       sync.Mutex
	entries  map[string]memoEntry
	produced map[string]memoKey
	// appeared marks the produced files whose only provenance is that
	// they appeared (or changed) under the outputs while the task ran, and
	// were stored: the task may have written them, or the user (an editor
	// saving src/helper.js during a build). vx cannot tell which without
	// tracing the task, so a restore never replaces or removes them.
	appeared map[string]bool
	dirty    bool
}

// memoKey is what the memo knows a file by, besides its path: a file
// whose memoKey is the one recorded did not change (see lstat).
type memoKey struct {
	size, mtime, ctime int64 // mtime and ctime in nanoseconds
	ino                uint64
	sha256             bool // the id is a SHA-256 git id
}

// memoKeyOf returns the memoKey of a file whose metadata is st.
func memoKeyOf(st fileStat, sha256Repo bool) memoKey {
	return memoKey{size: st.size, mtime: st.mtime, ctime: st.ctime, ino: st.ino, sha256: sha256Repo}
}

// fileStat is what vx reads of a file's metadata (see lstat).
type fileStat struct {
	mode         uint32 // Unix's st_mode: type bits (sIFREG and the like) and permission bits
	size         int64
	mtime, ctime int64 // modification and change times, in nanoseconds since 1970
	ino          uint64
}

// The type bits of fileStat.mode, as Unix has them on every system.
const (
	sIFMT  = 0o170000
	sIFREG = 0o100000
	sIFLNK = 0o120000
	sIFDIR = 0o040000
)

func (st fileStat) isRegular() bool { return st.mode&sIFMT == sIFREG }
func (st fileStat) isLink() bool    { return st.mode&sIFMT == sIFLNK }

// changedLately reports whether the file of k was written, or its times
// set, less than two seconds before now: it may change again within the
// same tick of the file system's clock, keeping its times, so it is not
// memoised (git's "racy clean" rule).
func (k memoKey) changedLately(now time.Time) bool {
	last := max(k.mtime, k.ctime)
	return now.UnixNano()-last < int64(2*time.Second)
}

type memoEntry struct {
	memoKey
	st fileState
}

func (m *memo) load() {
	m.once.Do(func() {
		m.entries = map[string]memoEntry{}
		m.produced = map[string]memoKey{}
		m.appeared = map[string]bool{}
		if m.path == "" {
			return
		}
		data, err := inputfile.ReadLimit(m.path, maxEntrySize)
		if err != nil {
			return
		}
		// A memo of the format before (vxmemo2, which did not flag
		// symbolic links) keeps its record of the outputs vx wrote, which
		// did not change meaning, and none of its ids: an upgrade must not
		// turn every output into a file of the user's.
		onlyProduced := bytes.HasPrefix(data, []byte(memoMagicProduced))
		switch {
		case onlyProduced:
			data = data[len(memoMagicProduced):]
		case bytes.HasPrefix(data, []byte(memoMagic)):
			data = data[len(memoMagic):]
		default:
			return
		}
		// Records: path NUL size NUL mtime NUL ctime NUL ino NUL flags NUL
		// id NUL; flags "p" (and no id) for an output vx wrote, "a" for
		// one that appeared while its task ran (memo.stored).
		for len(data) > 0 {
			var f [7][]byte
			ok := true
			for i := range f {
				j := bytes.IndexByte(data, 0)
				if j < 0 {
					ok = false
					break
				}
				f[i], data = data[:j], data[j+1:]
			}
			if !ok {
				break // a cut-off last record is dropped
			}
			size, e1 := strconv.ParseInt(string(f[1]), 10, 64)
			mtime, e2 := strconv.ParseInt(string(f[2]), 10, 64)
			ctime, e3 := strconv.ParseInt(string(f[3]), 10, 64)
			ino, e4 := strconv.ParseUint(string(f[4]), 10, 64)
			if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
				continue
			}
			if string(f[5]) == "p" || string(f[5]) == "a" { // an output vx wrote, or stored
				m.produced[string(f[0])] = memoKey{size: size, mtime: mtime, ctime: ctime, ino: ino}
				if f[5][0] == 'a' {
					m.appeared[string(f[0])] = true
				} else {
					delete(m.appeared, string(f[0]))
				}
				continue
			}
			if onlyProduced {
				continue
			}
			if len(f[5]) != 2 {
				continue
			}
			m.entries[string(f[0])] = memoEntry{
				memoKey: memoKey{size: size, mtime: mtime, ctime: ctime, ino: ino, sha256: f[5][1] == 's'},
				st:      fileState{id: string(f[6]), exec: f[5][0] == 'x', link: f[5][0] == 'l'},
			}
		}
	})
}

const (
	memoMagic         = "vxmemo3\x00" // 3: a symbolic link's flag is "l"
	memoMagicProduced = "vxmemo2\x00" // read for its records of outputs only
)

// nodeVersionKey followed by the path of a node program, nodeIDSep and
// its identity ([nodeprog.Program.ID]) is the memo's key for its version
// (the memo's keys are otherwise absolute paths, which never start so).
const (
	nodeVersionKey = "node-version:"
	nodeIDSep      = "\x01"
)

func (m *memo) get(abs string) (memoEntry, bool) {
	if m == nil {
		return memoEntry{}, false
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[abs]
	return e, ok
}

// wrote records that vx wrote the file at abs, an output, which now has
// the memoKey k.
func (m *memo) wrote(abs string, k memoKey) {
	if m == nil {
		return
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.produced[abs]; ok && old == k {
		return // unchanged: it keeps its provenance (a restore that found it in place)
	}
	m.produced[abs] = k
	delete(m.appeared, abs)
	m.dirty = true
}

// stored records that vx stored the file at abs, which has the memoKey k,
// as an output of a task that just ran. A file vx wrote before and that
// did not change during the run keeps its record; any other is recorded as
// one that appeared while the task ran ([memo.appeared]).
func (m *memo) stored(abs string, k memoKey) {
	if m == nil {
		return
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.produced[abs]; ok && old == k {
		return
	}
	m.produced[abs] = k
	m.appeared[abs] = true
	m.dirty = true
}

// onlyAppeared reports whether the file at abs, whose memoKey is now k, is
// a produced file whose only provenance is that it appeared while its task
// ran.
func (m *memo) onlyAppeared(abs string, k memoKey) bool {
	if m == nil || !m.isProduced(abs, k) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.appeared[abs]
}

// isProduced reports whether the file at abs, whose memoKey is now k, is
// one vx wrote and that did not change since.
func (m *memo) isProduced(abs string, k memoKey) bool {
	if m == nil {
		return false
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.produced[abs]
	k.sha256 = false
	return ok && old == k
}

func (m *memo) put(abs string, e memoEntry) {
	if m == nil {
		return
	}
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.entries[abs]; ok && old == e {
		return
	}
	m.entries[abs] = e
	m.dirty = true
}

// save writes the memo back when it changed, through a temporary file in
// dir so that a concurrent reader sees the old or the new memo whole.
func (m *memo) save(tmpDir string) error {
	if m == nil || m.path == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(memoMagic)
	record := func(p string, k memoKey, flags []byte, id string) {
		b.WriteString(p)
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(k.size, 10))
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(k.mtime, 10))
		b.WriteByte(0)
		b.WriteString(strconv.FormatInt(k.ctime, 10))
		b.WriteByte(0)
		b.WriteString(strconv.FormatUint(k.ino, 10))
		b.WriteByte(0)
		b.Write(flags)
		b.WriteByte(0)
		b.WriteString(id)
		b.WriteByte(0)
	}
	for p, e := range m.entries {
		file, isNode := strings.CutPrefix(p, nodeVersionKey) // a program's version: the program
		if isNode {
			file, _, _ = strings.Cut(file, nodeIDSep)
		}
		if _, err := os.Lstat(file); err != nil {
			continue // forget files that are gone
		}
		flags := []byte{'-', '1'}
		if e.st.exec {
			flags[0] = 'x'
		}
		if e.st.link {
			flags[0] = 'l'
		}
		if e.sha256 {
			flags[1] = 's'
		}
		record(p, e.memoKey, flags, e.st.id)
	}
	for p, k := range m.produced {
		// Forget outputs that are gone or changed: they are no longer what
		// vx wrote.
		if st, err := lstat(p); err == nil && memoKeyOf(st, false) == k {
			flag := []byte{'p'}
			if m.appeared[p] {
				flag = []byte{'a'}
			}
			record(p, k, flag, "")
		}
	}
	f, err := os.CreateTemp(tmpDir, "memo-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), m.path); err != nil {
		os.Remove(f.Name())
		return err
	}
	m.dirty = false
	return nil
}
