// Package testtool is test code: it finds the programs a test needs beyond
// Go (git, node, npm, tsc, chromium, Graphviz's dot, zsh, fish,
// bazel-remote...). When one is missing, the test is skipped with one line
// that names the program and how to install it, so that `go test ./...`
// passes on a machine without it; when the variable CI is "true", a missing
// program fails the test instead, so that CI never passes by skipping what
// it was meant to run (.ci/run installs them all).
package testtool
