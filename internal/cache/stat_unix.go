//go:build unix

package cache

import "golang.org/x/sys/unix"

// indexStatSupported says whether statNames gives the stat data git
// records, so that a tracked file can be found clean from the index.
const indexStatSupported = true

// statNames calls fn with the stat data of each entry names[i] of the
// directory dir (a symbolic link's own); an entry that cannot be had (gone,
// or dir is not a directory) is left out. It opens dir
// once and looks each name up from it, which spares the kernel the walk of
// the whole path for every file.
func statNames(dir string, names []string, fn func(i int, st indexStat)) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var s unix.Stat_t
	for i, name := range names {
		if unix.Fstatat(fd, name, &s, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		fn(i, indexStat{
			ctimeSec: uint32(s.Ctim.Sec), ctimeNsec: uint32(s.Ctim.Nsec),
			mtimeSec: uint32(s.Mtim.Sec), mtimeNsec: uint32(s.Mtim.Nsec),
			dev: uint32(s.Dev), ino: uint32(s.Ino), mode: uint32(s.Mode),
			uid: s.Uid, gid: s.Gid, size: uint32(s.Size),
		})
	}
}
