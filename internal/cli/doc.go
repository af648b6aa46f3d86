// Package cli is vx's command line: it parses the arguments of `vx run`,
// `vx env`, `vx ls`, `vx help` and `vx --version`, wires them to the
// workspace, config, guard, run and exec packages, and is the one place
// where an error becomes an exit code (see docs/cli.md).
//
// It takes everything it needs from the process as parameters ([Process]):
// only cmd/vx reads the real arguments, environment and signals.
package cli
