//go:build linux && (amd64 || arm64)

package key

import (
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatAt is unix.Fstatat(dirfd, name, s, AT_SYMLINK_NOFOLLOW) with the
// name made a C string in *buf, which is reused: no allocation for each
// of a workspace's files (newfstatat is the call's number on both
// architectures).
func lstatAt(dirfd int, name string, buf *[]byte, s *unix.Stat_t) error {
	if strings.IndexByte(name, 0) >= 0 {
		return syscall.EINVAL // as unix.Fstatat: not a name the call can take
	}
	*buf = append(append((*buf)[:0], name...), 0)
	for {
		_, _, e := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&(*buf)[0])), uintptr(unsafe.Pointer(s)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		switch e {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		}
		return e
	}
}
