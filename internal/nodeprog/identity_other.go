//go:build !unix

package nodeprog

import (
	"io/fs"
	"strconv"
)

// identity returns what tells the file at p (whose FileInfo is fi) from
// another at its path: its size and modification time (an installer that
// replaces node.exe writes a new one).
func identity(p string, fi fs.FileInfo) string {
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}
