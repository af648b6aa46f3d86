// Package wire is the protocol between vx and its remote-cache helper,
// vx-remote: vx starts the helper with pipes for stdin and stdout and the two
// exchange frames over them, the way git talks to git-remote-https. The
// helper holds the gRPC client; vx links only this package, which needs
// nothing heavier than encoding/json.
//
// A frame is a 4-byte big-endian length n, then n bytes: a kind byte, a
// 4-byte big-endian call id and the payload. vx opens a call with a
// [KindRequest] frame (a JSON [Request]); the helper answers with zero or
// more [KindData] frames (the bytes of a blob being read, in order) or
// [KindProgress] frames (bytes are arriving, for an idle deadline) and ends
// the call with one [KindResponse] frame (a JSON [Response]). Calls overlap:
// the helper serves each in its own goroutine and frames of different calls
// interleave. vx may send [KindCancel] for a call it no longer waits for;
// the helper still ends that call with a response. The first call is always
// "hello", which carries the configuration and checks [Version]; when vx
// closes the helper's stdin the helper ends every call and exits.
package wire
