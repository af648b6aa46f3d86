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
// A remote cache (REAPI v2 over gRPC) is the same data in another place. vx
// reaches it only through [Remote], whose implementation lives outside vx's
// default start path so that a run with no remote configured does not pay
// for a gRPC client.
package cache
