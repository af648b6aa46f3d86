package run

import (
	"io"
	"os"
)

// isNullDevice reports whether w is the null device (vx run >/dev/null), so
// that what a task writes there is read by nobody: Execute then hands the
// child the device itself, without a pipe, a goroutine and a prefix writer.
// It is false for anything it cannot tell.
func isNullDevice(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok || f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(fi, null)
}
