//go:build unix

package cache

import (
	"io/fs"
	"syscall"
)

const syscallENOTDIR = syscall.ENOTDIR

// inode returns fi's inode number: a file replaced by another (a rename
// over it) has a new one even with the same size and time.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// changeStamp returns what tells a file that changed from one that did
// not, beside its size and modification time: its change time (ctime, in
// nanoseconds), which every write and every change of the modification
// time sets to the current time, so a rewrite of the same size that puts
// the old modification time back (cp -p, tar, touch -r) is still seen,
// and its inode, new when another file was renamed over it. abs is not
// used on Unix: fi has both.
func changeStamp(abs string, fi fs.FileInfo) (ctime int64, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, uint64(st.Ino)
}
