// Package store owns vx's local cache store: one directory that holds a
// content-addressed store of SHA-256 blobs and an action cache mapping an
// Action's digest to its ActionResult (REAPI v2's CAS and AC, as
// internal/cache/reapi encodes them), and beside them what vx keeps per
// task and per checkout: the record of a task's last entry ([LastUse]),
// what a traced run read outside a key, the counts of the last run, the
// secret a key's values are hashed with ([Store.Secret]), and the files
// true of one checkout only ([CheckoutFile]: the memo, the config memo).
// It also says which store a checkout uses by default: the git worktrees of
// a repository share one ([FindCheckout], [Checkout.SharedStoreDir], which
// read git's files without running git).
//
// It knows the layout of that directory and nothing of tasks or of how a
// key is computed: the cache (internal/cache) hands it digests and bytes.
// Every file appears whole or not at all (written under tmp/, renamed into
// place), a blob's digest is checked when it is read, an entry carries its
// own checksum, and vx writes or deletes only in a directory it made
// ([OpenStore], [NotStoreError]) and there only files of its own layout,
// never through a symbolic link ([Store.Prune]).
package store
