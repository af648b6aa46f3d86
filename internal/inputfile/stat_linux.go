package inputfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// statInfo returns what st, the fstat of f (a regular file opened as
// name), says of it, as f.Stat would say it, without a second fstat. Its
// Sys is st. (os.SameFile does not compare it: use os.Stat for that.)
func statInfo(f *os.File, name string, st *syscall.Stat_t) (fs.FileInfo, error) {
	mode := fs.FileMode(st.Mode & 0o777)
	if st.Mode&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return &fileInfo{name: filepath.Base(name), mode: mode, mtime: time.Unix(st.Mtim.Unix()), st: st}, nil
}

// fileInfo is a regular file's fs.FileInfo from its fstat.
type fileInfo struct {
	name  string
	mode  fs.FileMode
	mtime time.Time
	st    *syscall.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.st.Size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mtime }
func (fi *fileInfo) IsDir() bool        { return false }
func (fi *fileInfo) Sys() any           { return fi.st }
