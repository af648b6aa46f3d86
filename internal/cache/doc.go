// Package cache owns vx's task cache as the rest of vx uses it: a task's
// key, its lookup in the local store and a remote cache, restoring a hit's
// outputs and replaying its logs, storing a result, and `vx why`. It
// composes four rooms, as cmd/go keeps its store apart from computing
// action IDs:
//
//   - internal/cache/key computes keys ([key.Computer]): input files, git's
//     index, globs, lockfile closures, the memo;
//   - internal/cache/store is the local store's directory: CAS blobs,
//     action entries, prune, a task's last entry, the secret;
//   - internal/cache/reapi is the REAPI v2 messages both speak;
//   - internal/cache/outputs finds, stores and restores a task's outputs,
//     with the key's globs and the store's blobs.
//
// The store and the key's computation know nothing of each other, and no
// room knows this package (house_test.go's TestImportRules). names.go gives
// the rooms' names the rest of vx uses.
//
// What is composed here: a lookup reads the local entry, then the remote's
// (prefetched for the run's keys, remoteLookups at a time); a hit's outputs
// are restored only over files the task owns (owner.go: the key's memo
// knows which files vx wrote); a result is stored only when the task's
// inputs did not change while it ran ([Cache.Save]).
//
// One store may serve several checkouts: the git worktrees of a
// repository share the main worktree's (or, in a bare repository, one in
// its git directory; see store.FindCheckout and Checkout.SharedStoreDir,
// which read git's files without running git), and clones may name one
// directory. Keys hold no absolute path, so such checkouts share entries;
// a result whose outputs, link targets or logs hold the checkout's
// absolute path (as vx knows it, resolved, and on Windows with either
// slash, doubled backslashes and either case of the drive letter) is
// bound to its workspace root and never found from another (see
// rootbound.go, [BoundElsewhereError]). What is true of one checkout only
// (the memo, the config memo) is kept per checkout in a shared store
// ([CheckoutFile]).
//
// A remote cache (REAPI v2 over gRPC) is the same data in another place. vx
// reaches it only through [Remote], whose implementation lives outside vx's
// default start path so that a run with no remote configured does not pay
// for a gRPC client.
package cache
