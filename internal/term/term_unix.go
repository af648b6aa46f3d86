//go:build unix

package term

import "golang.org/x/sys/unix"

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), ioctlReadTermios)
	return err == nil
}

// SupportsColor reports whether fd is a terminal, where vx may colour its
// output (NO_COLOR is checked by the caller).
func SupportsColor(fd uintptr) bool { return IsTerminal(fd) }
