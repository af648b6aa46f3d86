//go:build unix

package key

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

const syscallENOTDIR = syscall.ENOTDIR

// indexStatSupported says whether statNames gives the stat data git
// records, so that a tracked file can be found clean from the index.
const indexStatSupported = true

// inode returns fi's inode number: a file replaced by another (a rename
// over it) has a new one even with the same size and time.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// lstat returns the metadata of the file at abs (a symbolic link's own).
// Its change time (ctime) is set to the current time by every write and
// every change of the modification time, so it tells a rewrite of the same
// size that puts the old modification time back (cp -p, tar, touch -r);
// its inode is new when another file was renamed over it.
func lstat(abs string) (fileStat, error) {
	var s unix.Stat_t
	if err := unix.Lstat(abs, &s); err != nil {
		return fileStat{}, &fs.PathError{Op: "lstat", Path: abs, Err: err}
	}
	return fromUnix(&s), nil
}

func fromUnix(s *unix.Stat_t) fileStat {
	return fileStat{
		mode:  uint32(s.Mode),
		size:  s.Size,
		mtime: int64(s.Mtim.Sec)*1e9 + int64(s.Mtim.Nsec),
		ctime: int64(s.Ctim.Sec)*1e9 + int64(s.Ctim.Nsec),
		ino:   uint64(s.Ino),
	}
}

// statNames calls fn with the metadata of each entry names[i] of the
// directory dir (a symbolic link's own); an entry that cannot be had (gone,
// or dir is not a directory) is left out. It opens dir once and looks each
// name up from it, which spares the kernel the walk of the whole path for
// every file.
func statNames(dir string, names []string, fn func(i int, st fileStat)) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var s unix.Stat_t
	var buf []byte
	for i, name := range names {
		if lstatAt(fd, name, &buf, &s) != nil {
			continue
		}
		fn(i, fromUnix(&s))
	}
}
