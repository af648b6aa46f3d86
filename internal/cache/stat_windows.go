package cache

// indexStatSupported is false on Windows: Git for Windows records times
// and sizes that Go's Lstat gives differently (and no inode), so the
// scanner asks git which tracked files changed.
const indexStatSupported = false

func statNames(dir string, names []string, fn func(i int, st indexStat)) {}
