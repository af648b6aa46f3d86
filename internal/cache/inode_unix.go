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
