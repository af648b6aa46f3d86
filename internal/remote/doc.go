// Package remote is vx's side of a remote REAPI v2 cache: it validates the
// configuration, finds and starts the vx-remote helper (which holds the gRPC
// client, so that vx itself never links it), and implements [cache.Remote]
// over the helper's pipe ([wire]).
//
// A remote cache never breaks a run: the first fault (unreachable server,
// timeout, refused credentials, a helper that died) is reported once
// through the warning callback, and every later call fails at once without
// touching the network, so a dead server costs one per-call deadline in
// total. A miss ([cache.ErrNotFound], including an entry whose signature is
// absent or wrong) is not a fault.
package remote
