//go:build windows

package exec

import (
	"os"

	"golang.org/x/sys/windows"
)

// isExecutable reports whether the file at p may be started: any file that
// is not a directory (whether its extension is runnable is decided by
// PATHEXT in lookPath). Name comparison is the file system's, so it is
// case-insensitive.
func isExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return windows.ERROR_DIRECTORY
	}
	return nil
}
