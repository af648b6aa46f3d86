//go:build unix && !(linux && (amd64 || arm64))

package key

import "golang.org/x/sys/unix"

// lstatAt is unix.Fstatat(dirfd, name, s, AT_SYMLINK_NOFOLLOW); buf is
// unused here (see statat_linux.go).
func lstatAt(dirfd int, name string, _ *[]byte, s *unix.Stat_t) error {
	return unix.Fstatat(dirfd, name, s, unix.AT_SYMLINK_NOFOLLOW)
}
