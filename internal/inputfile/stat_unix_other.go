//go:build unix && !linux

package inputfile

import (
	"io/fs"
	"os"
	"syscall"
)

// statInfo returns f.Stat(): the fields of syscall.Stat_t differ between
// these systems, and os knows them.
func statInfo(f *os.File, name string, st *syscall.Stat_t) (fs.FileInfo, error) {
	return f.Stat()
}
