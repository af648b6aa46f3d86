// Package key computes the key of a task, as cmd/go computes an action ID
// apart from its cache: its script and arguments (the arguments hashed),
// its declared environment (each value an HMAC with a secret, [EnvKey]),
// its input files, the keys of the tasks it depends on, its platform and
// the real version of its node, shaped as a REAPI v2 Action
// (internal/cache/reapi). [Computer] does it for one run.
//
// Input files are read once per run: git's view of the workspace (the index
// read directly, `git ls-files` for what it cannot say), or a walk without
// git; files an "inputs" glob names that git ignores are looked up on
// their own. Their ids (git blob ids) are kept across runs in the memo, by
// path, size, times and inode, which also records the outputs vx wrote, so
// that a restore replaces or removes only the task's files
// ([Computer.NotMine]). Of a lockfile vx reads (internal/lockfile), a key
// holds its project's resolved closure and the lockfile's global settings,
// not the file's bytes; of any other (bun.lockb, an unknown format, a parse
// error), the bytes, as for any input file. See lockkey.go and
// docs/cache.md, "Lockfiles".
//
// It knows nothing of the store's layout: it is given the memos' files and
// a place for the lockfile closures' descriptions ([Blobs]), and keys hold
// no absolute path, so checkouts sharing a store share entries.
package key
