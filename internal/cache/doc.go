// Package cache owns vx's task cache: the key of a task (its script and
// arguments, its declared environment, its input files, the keys of the
// tasks it depends on, its platform), shaped as a REAPI v2 Action; the local
// store of ActionResults over a content-addressed store of SHA-256 blobs;
// restoring a hit's outputs and replaying its logs; and pruning.
//
// A remote cache (REAPI v2 over gRPC) is the same data in another place. vx
// reaches it only through [Remote], whose implementation lives outside vx's
// default start path so that a run with no remote configured does not pay
// for a gRPC client.
package cache
