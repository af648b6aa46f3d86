//go:build unix

package exec

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// isExecutable reports whether the file at p may be run: nil for a regular
// file (or a symlink to one) with an execute bit that the access check
// confirms (it also catches noexec mounts), fs.ErrPermission for a file that
// may not be run, another error when there is no such file or it is a
// directory.
func isExecutable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return unix.EISDIR
	}
	if fi.Mode()&0o111 == 0 {
		return fs.ErrPermission
	}
	if err := unix.Access(p, unix.X_OK); err != nil {
		return fs.ErrPermission
	}
	return nil
}
