//go:build !linux && !windows

package watch

import (
	"strconv"
	"syscall"
)

// systemLimit returns the value of the limit a watch ran into: the
// process's limit of open files.
func systemLimit(_ string, _ bool) string {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return ""
	}
	return strconv.FormatUint(uint64(r.Cur), 10)
}
