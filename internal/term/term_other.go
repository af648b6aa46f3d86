//go:build !unix && !windows

package term

// IsTerminal reports false where terminals are not known.
func IsTerminal(fd uintptr) bool { return false }

// SupportsColor reports false where terminals are not known.
func SupportsColor(fd uintptr) bool { return false }
