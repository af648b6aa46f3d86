// Package reapi owns the REAPI v2 messages a task's key and its cache entry
// are made of (build.bazel.remote.execution.v2): [Digest], [Command],
// [Action], [ActionResult] and their protocol buffers wire encoding,
// written by hand so that vx links no protobuf runtime. The key's
// computation (internal/cache/key) writes Actions and Commands, the store
// (internal/cache/store) keeps them with ActionResults, and a remote cache
// receives the same bytes. Only the fields vx writes are modelled;
// unmarshalling skips the others, as protobuf readers do, and refuses what
// is malformed.
package reapi
