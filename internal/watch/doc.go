// Package watch tells `vx watch` which files changed: it keeps a watch
// (inotify on Linux, kqueue on macOS and the BSDs, ReadDirectoryChangesW on
// Windows, through github.com/fsnotify/fsnotify) on every directory that
// can hold a watched task's inputs, also on those created later, and never
// on node_modules, .git, the cache's store or a directory git ignores. It
// gathers the changes of a burst (an editor's save through a temporary
// file, a git checkout) into one [Batch] ([Debouncer], a pure core), drops
// those whose content did not change, and says of each whether git
// ignores it. Which tasks a change reruns is internal/run's to decide.
//
// It imports nothing of vx: it takes the workspace root, the directories
// to watch and a function that asks git what it ignores.
package watch
