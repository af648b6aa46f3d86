// Package cache owns vx's task cache: the key of a task (its script and
// arguments, its declared environment, its input files, the keys of the
// tasks it depends on, its platform), shaped as a REAPI v2 Action; the local
// store of ActionResults over a content-addressed store of SHA-256 blobs;
// restoring a hit's outputs and replaying its logs; and pruning.
//
// Of a lockfile vx reads (internal/lockfile), a key holds its project's
// resolved closure and the lockfile's global settings, not the file's bytes;
// of any other (bun.lockb, an unknown format, a parse error), the bytes, as
// for any input file. See lockkey.go and docs/cache.md, "Lockfiles".
//
// One store may serve several checkouts: the git worktrees of a
// repository share the main worktree's (or, in a bare repository, one in
// its git directory; see [FindCheckout] and [Checkout.SharedStoreDir],
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
