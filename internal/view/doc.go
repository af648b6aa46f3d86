// Package view owns what vx shows of a plan and of a run besides its
// output: the task graph of `vx graph` as DOT, JSON or one self-contained
// HTML page (laid out here, in dependency order), and the profile of
// `vx run --profile`, a Chrome trace-event file with the run's critical
// path. It reads [run.Graph] and [run.TaskRun] values and plans or runs
// nothing itself; the command line decides what goes in (the cache state
// of each task) and where it is written.
package view
