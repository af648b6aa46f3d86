// Package cli is vx's command line: it parses the arguments of vx's
// commands, asks the workspace, config and run packages, formats their
// answers, and is the one place where an error becomes an exit code (see
// docs/cli.md). It returns the error to cmd/vx, which prints it. It also
// answers the shells' completion scripts (`vx completion`, and the hidden
// `vx __complete` they call).
//
// It takes everything it needs from the process as parameters ([Process]):
// only cmd/vx reads the real arguments, environment and signals.
package cli
