//go:build unix

package main

import (
	"os"
	"syscall"
)

// stopSignals end vx, and its tasks with it: Ctrl-C, SIGTERM (kill, docker
// stop, CI cancels), SIGHUP (the terminal closed, the SSH session dropped)
// and SIGQUIT (Ctrl-\), which would otherwise end vx at once with a
// goroutine dump and leave the tasks running.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// ignoredSignals are caught and dropped. SIGPIPE: when vx's output is
// closed, the write fails with EPIPE instead of killing vx, and vx stops
// the run as for SIGTERM and exits 141 (see run.Execute); a SIGPIPE from a
// write to a task's stdin, which means only that the task stopped reading,
// is dropped with no other effect.
var ignoredSignals = []os.Signal{syscall.SIGPIPE}
