package run

import (
	"io"
	"os"
	"runtime"
)

// isNullDevice reports whether w is the null device (vx run >/dev/null), so
// that what a task writes there is read by nobody: Execute then hands the
// child the device itself, without a pipe, a goroutine and a prefix writer.
// It is false for anything it cannot tell, and always on Windows, where
// os.SameFile cannot tell a pipe from NUL (neither has a file index).
func isNullDevice(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil || runtime.GOOS == "windows" {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}
