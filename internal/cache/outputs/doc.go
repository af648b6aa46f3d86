// Package outputs owns a task's outputs on the disk: finding the files its
// output globs match ([Find]; node_modules, .git and the store excluded,
// no symbolic link followed), putting them in the store as an
// ActionResult ([Store]), checking an entry before it is restored
// ([CheckPaths]: no path out of the project or its outputs, no link
// leaving it), and restoring one ([Restore]): every file written beside
// its place and checked against its digest first, then the stale files
// removed and the new ones renamed in, never over a file an [Owner] says
// is not the task's ([ConflictError]). The globs are the key's
// (internal/cache/key), the blobs the store's (internal/cache/store).
package outputs
