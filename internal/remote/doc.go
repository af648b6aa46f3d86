// Package remote is vx's side of a remote cache, a REAPI v2 server
// (grpc://, grpcs://) or a server of turbo's remote cache API (http://,
// https://; see [Config.Protocol]): it validates the configuration, finds
// and starts the vx-remote helper (which holds the gRPC and HTTP clients,
// so that vx itself never links them), and implements [cache.Remote] over
// the helper's pipe ([wire]). Precedence of the settings (flags, VX_REMOTE_*,
// vx.json, turbo's TURBO_* variables, turbo.json's "remoteCache") is the
// command line's (package cli).
//
// A remote cache never breaks a run: the first fault (unreachable server,
// timeout, refused credentials, a helper that died) is reported once
// through the warning callback, and every later call fails at once without
// touching the network, so a dead server costs one per-call deadline in
// total. A miss ([cache.ErrNotFound], including an entry whose signature is
// absent or wrong) is not a fault; the first entry of a run refused for its
// signature is reported once through the same callback. A turbo lookup or
// upload carries a whole entry, so it has an idle deadline (no progress for
// the per-call timeout) instead of a total one.
package remote
