//go:build unix

package nodeprog

import (
	"io/fs"
	"strconv"

	"golang.org/x/sys/unix"
)

// identity returns what tells the file at p (whose FileInfo is fi) from
// another at its path: its size, modification and change times, device and
// inode (a file replaced by another has a new inode; any write, cp -p
// included, moves the change time).
func identity(p string, fi fs.FileInfo) string {
	s := strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	var st unix.Stat_t
	if unix.Stat(p, &st) == nil {
		s += ":" + strconv.FormatInt(int64(st.Ctim.Sec)*1e9+int64(st.Ctim.Nsec), 10) +
			":" + strconv.FormatUint(uint64(st.Dev), 10) + ":" + strconv.FormatUint(uint64(st.Ino), 10)
	}
	return s
}
