// Package release builds what vx ships: a binary per supported platform
// (CGO_ENABLED=0, -trimpath, version stamped into internal/cli.Version), the
// npm packages that deliver them (one main package, @vxrun/vx, whose bin is
// a small Node.js launcher, and one package per platform holding the native
// binary, chosen by npm's os/cpu fields), and release archives with a
// SHA-256 checksums file. It also checks a built binary's format and
// architecture, so a package cannot ship a binary for another platform.
//
// The tool that drives it is ./internal/release/mkdist (make npm, make dist).
package release
