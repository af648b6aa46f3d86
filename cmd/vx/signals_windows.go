//go:build windows

package main

import (
	"os"
	"syscall"
)

// stopSignals end vx, and its tasks with it. Go delivers Ctrl-C and
// Ctrl-Break as os.Interrupt, and closing the console, logging off and
// shutting down as SIGTERM (Windows then ends vx a few seconds later; the
// tasks' job objects end their trees with it).
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

var ignoredSignals []os.Signal
