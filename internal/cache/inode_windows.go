package cache

import (
	"io/fs"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

const syscallENOTDIR = syscall.ENOTDIR

// inode is 0 on Windows: FileInfo does not carry the file index.
func inode(fi fs.FileInfo) uint64 { return 0 }

// changeStamp returns what tells a file that changed from one that did
// not, beside its size and modification time: NTFS's change time
// (ChangeTime, set by every write and every change of the modification
// time, as Unix's ctime) in nanoseconds since 1970, and the file index,
// new when another file was renamed over it. Neither is in what Lstat
// gives, so the file is opened, for its attributes only; (0, 0) when that
// fails, and then size and modification time alone decide.
func changeStamp(abs string, fi fs.FileInfo) (ctime int64, ino uint64) {
	p, err := windows.UTF16PtrFromString(abs)
	if err != nil {
		return 0, 0
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, 0
	}
	defer windows.CloseHandle(h)
	// FILE_BASIC_INFO: CreationTime, LastAccessTime, LastWriteTime,
	// ChangeTime (100 ns units), FileAttributes.
	var basic struct {
		creation, access, write, change int64
		attrs                           uint32
		_                               uint32
	}
	if windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&basic)), uint32(unsafe.Sizeof(basic))) != nil {
		return 0, 0
	}
	const epoch = 116444736000000000 // 1970-01-01 in 100 ns units since 1601
	ctime = (basic.change - epoch) * 100
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(h, &info) != nil {
		return ctime, 0
	}
	return ctime, uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)
}
