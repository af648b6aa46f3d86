// Package bench holds what `make bench` needs besides its script
// (bench/run.sh): Generate, which writes the workspaces the benchmarks run in,
// and Go benchmarks of a whole `vx run` inside one process (for CPU profiles).
//
// Its commands are gen (the workspace generator), floor (the least a Go task
// runner can do: spawn `sh -c` per project) and report (the results table).
// docs/performance.md explains the figures and how to rerun them.
package bench
