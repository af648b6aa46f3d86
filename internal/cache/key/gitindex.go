package key

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"unsafe"
)

// This file reads git's index (.git/index) so that the key of a task can
// take a clean tracked file's blob id from it, as git status does, after
// one lstat of the file: no git process, no reading of the file. Formats 2,
// 3 and 4 are read; an index using a feature that changes what the entries
// mean (a split index, a sparse index, an extension git requires readers
// to understand) is refused with errIndexUnsupported, and the scanner asks
// git instead. See https://git-scm.com/docs/index-format.

// gitIndex is a parsed index.
type gitIndex struct {
	entries []indexEntry // in the index's order: by path, then stage
	data    []byte       // the file, which entries' stat data is read from
}

// indexEntry is one entry of the index.
type indexEntry struct {
	path  string // relative to the top of the work tree, slash-separated
	id    string // the object id, in hex
	mode  uint32 // 0100644, 0100755, 0120000 (symbolic link) or 0160000 (gitlink)
	at    int32  // where the entry starts in the file: its stat data
	stage uint8  // 0, or 1-3 for an unmerged path
	// skip is set for an entry whose file git does not look at: marked
	// assume-unchanged or skip-worktree (sparse checkout). vx looks at it
	// as at any other: the task reads the file, whatever git overlooks.
	skip        bool
	intentToAdd bool // "git add -N": no content recorded yet
}

// indexStat is what git records of a file's stat data when it writes an
// entry, each field cut to 32 bits.
type indexStat struct {
	ctimeSec, ctimeNsec, mtimeSec, mtimeNsec, dev, ino, mode, uid, gid, size uint32
}

// stat returns the stat data recorded for e.
func (x *gitIndex) stat(e *indexEntry) indexStat {
	b := x.data[e.at:]
	u := func(k int) uint32 { return binary.BigEndian.Uint32(b[4*k:]) }
	return indexStat{u(0), u(1), u(2), u(3), u(4), u(5), u(6), u(7), u(8), u(9)}
}

var errIndexUnsupported = errors.New("cache: git index format not supported")

// parseIndex reads an index whose object ids are hashLen bytes long (20
// for SHA-1, 32 for SHA-256). The result keeps data, which must not change
// afterwards: the paths of formats 2 and 3 are cut from it without a copy.
func parseIndex(data []byte, hashLen int) (*gitIndex, error) {
	if len(data) < 12+hashLen || string(data[:4]) != "DIRC" || len(data) > math.MaxInt32 {
		return nil, errIndexUnsupported
	}
	version := binary.BigEndian.Uint32(data[4:])
	if version < 2 || version > 4 {
		return nil, errIndexUnsupported
	}
	end := len(data) - hashLen // the checksum follows the extensions
	n := binary.BigEndian.Uint32(data[8:])
	if uint64(n) > uint64(end/(40+hashLen+2)) {
		return nil, errIndexUnsupported
	}
	count := int(n)
	// A few allocations for the whole index, not one per entry: the paths
	// are cut from the file itself (formats 2 and 3) or from one string of
	// all of them (format 4), the ids from one string of all of them.
	text := unsafe.String(unsafe.SliceData(data), len(data))
	x := &gitIndex{entries: make([]indexEntry, 0, count), data: data}
	type span struct{ from, to int }
	var spans []span // v4: where each path is in names
	var names []byte // v4: the paths, one after another
	var prev []byte  // v4: the previous path, which the next one shares a prefix with
	off := 12
	for i := 0; i < count; i++ {
		start := off
		fixed := 40 + hashLen + 2
		if off+fixed > end {
			return nil, errIndexUnsupported
		}
		e := indexEntry{at: int32(off), mode: binary.BigEndian.Uint32(data[off+24:])}
		flags := binary.BigEndian.Uint16(data[off+40+hashLen:])
		off += fixed
		e.skip = flags&0x8000 != 0
		e.stage = uint8(flags >> 12 & 3)
		nameLen := int(flags & 0xfff)
		if flags&0x4000 != 0 { // extended flags
			if version < 3 || off+2 > end {
				return nil, errIndexUnsupported
			}
			ext := binary.BigEndian.Uint16(data[off:])
			off += 2
			e.skip = e.skip || ext&0x4000 != 0
			e.intentToAdd = ext&0x2000 != 0
		}
		if version == 4 {
			// A varint saying how many bytes to drop from the end of the
			// previous path, then the rest of this one, NUL-terminated.
			drop, k := indexVarint(data[off:end])
			if k == 0 || drop > uint64(len(prev)) {
				return nil, errIndexUnsupported
			}
			off += k
			j := bytes.IndexByte(data[off:end], 0)
			if j < 0 {
				return nil, errIndexUnsupported
			}
			prev = append(prev[:len(prev)-int(drop)], data[off:off+j]...)
			off += j + 1
			spans = append(spans, span{len(names), len(names) + len(prev)})
			names = append(names, prev...)
			nameLen -= len(prev) // checked below
		} else {
			j := bytes.IndexByte(data[off:end], 0)
			if j < 0 {
				return nil, errIndexUnsupported
			}
			e.path = text[off : off+j]
			nameLen -= j
			// NUL padding to a multiple of eight bytes (one to eight).
			off = start + (off+j-start+8)&^7
			if off > end {
				return nil, errIndexUnsupported
			}
		}
		// The flags hold the path's length (0xfff: that or more), and a path
		// is never empty.
		if flags&0xfff == 0 || flags&0xfff != 0xfff && nameLen != 0 {
			return nil, errIndexUnsupported
		}
		switch e.mode {
		case 0o100644, 0o100755, 0o120000, 0o160000:
		default: // 040000 is a sparse index's directory entry
			return nil, errIndexUnsupported
		}
		x.entries = append(x.entries, e)
	}
	// The extensions, up to the checksum: git requires a reader to
	// understand one whose name starts with a lower-case letter ("link" of
	// a split index, "sdir" of a sparse one); the others are caches.
	for off < end {
		if off+8 > end {
			return nil, errIndexUnsupported
		}
		sig := data[off : off+4]
		size := binary.BigEndian.Uint32(data[off+4:])
		if sig[0] < 'A' || sig[0] > 'Z' || uint64(size) > uint64(end-off-8) {
			return nil, errIndexUnsupported
		}
		off += 8 + int(size)
	}
	if off != end {
		return nil, errIndexUnsupported
	}
	var paths string
	if version == 4 {
		paths = string(names)
	}
	ids := make([]byte, 0, count*2*hashLen)
	for i := range x.entries {
		at := int(x.entries[i].at) + 40
		ids = hex.AppendEncode(ids, data[at:at+hashLen])
	}
	idText := unsafe.String(unsafe.SliceData(ids), len(ids)) // ids is not written again
	for i := range x.entries {
		e := &x.entries[i]
		e.id = idText[i*2*hashLen : (i+1)*2*hashLen]
		if version == 4 {
			e.path = paths[spans[i].from:spans[i].to]
		}
	}
	return x, nil
}

// indexVarint decodes git's offset varint (varint.c), returning the value
// and the bytes read, or 0 bytes when b does not hold a valid one.
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	n := 1
	for c&128 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		v++
		c = b[n]
		n++
		v = v<<7 + uint64(c&127)
	}
	return v, n
}

// statClean reports whether a file whose metadata is now st still holds
// what the entry e recorded (r, its stat data), by git's rule: the same
// modification and change times (to the nanosecond), inode, size and type,
// and the same executable bit. A tool that restores an old modification
// time (cp -p, tar) cannot restore the change time. The entry must also
// not be "racily clean": recorded in the same second as the index was
// written (indexMtimeSec) or later. The index keeps each field cut to 32
// bits, and so are st's here.
func statClean(e *indexEntry, r indexStat, st fileStat, indexMtimeSec uint32) bool {
	if uint32(st.mtime/1e9) != r.mtimeSec || uint32(st.mtime%1e9) != r.mtimeNsec ||
		uint32(st.ctime/1e9) != r.ctimeSec || uint32(st.ctime%1e9) != r.ctimeNsec ||
		uint32(st.ino) != r.ino || uint32(st.size) != r.size {
		return false
	}
	if st.mode&sIFMT != e.mode&sIFMT {
		return false
	}
	if e.mode&sIFMT == sIFREG && (st.mode&0o100 != 0) != (e.mode == 0o100755) {
		return false
	}
	// Racily clean: the file may have changed again within the tick of its
	// recorded time, so its content must be read. Whole seconds, as a git
	// built without nanosecond times compares them.
	return r.mtimeSec < indexMtimeSec
}
