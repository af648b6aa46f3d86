package key

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

const syscallENOTDIR = syscall.ENOTDIR

// indexStatSupported is false on Windows: Git for Windows records times
// and sizes that Go's Lstat gives differently (and no inode), so the
// scanner asks git which tracked files changed.
const indexStatSupported = false

// inode is 0 on Windows: FileInfo does not carry the file index.
func inode(fi fs.FileInfo) uint64 { return 0 }

// lstat returns the metadata of the file at abs (a symbolic link's own).
// Its change time is NTFS's ChangeTime, which every write and every change
// of the modification time set, as Unix's ctime, so it tells a rewrite of
// the same size that puts the old modification time back; its ino is the
// file index, new when another file was renamed over it. Neither is in
// what Lstat gives, so a file is opened, for its attributes only; when
// that fails both are 0, and size and modification time alone decide. The
// mode has Unix's type bits; Windows has no executable bit.
func lstat(abs string) (fileStat, error) {
	fi, err := os.Lstat(abs)
	if err != nil {
		return fileStat{}, err
	}
	st := fileStat{mode: uint32(fi.Mode().Perm()), size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		st.mode |= sIFLNK
	case fi.IsDir():
		st.mode |= sIFDIR
		return st, nil
	case fi.Mode().IsRegular():
		st.mode |= sIFREG
	}
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return st, nil
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return st, nil
	}
	defer windows.CloseHandle(h)
	// FILE_BASIC_INFO: CreationTime, LastAccessTime, LastWriteTime,
	// ChangeTime (100 ns units since 1601), FileAttributes.
	var basic struct {
		creation, access, write, change int64
		attrs                           uint32
		_                               uint32
	}
	if windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))) == nil {
		const epoch = 116444736000000000 // 1970-01-01 in 100 ns units since 1601
		st.ctime = (basic.change - epoch) * 100
	}
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(h, &info) == nil {
		st.ino = uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)
	}
	return st, nil
}

// statNames calls fn with the metadata of each entry names[i] of the
// directory dir (a symbolic link's own); an entry that cannot be had is
// left out.
func statNames(dir string, names []string, fn func(i int, st fileStat)) {
	for i, name := range names {
		if st, err := lstat(filepath.Join(dir, name)); err == nil {
			fn(i, st)
		}
	}
}
