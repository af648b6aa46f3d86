//go:build windows

package exec

import "io"

// EnableWatchdog does nothing on Windows: each task's job object ends its
// tree when vx ends, however it ends.
func EnableWatchdog(...string) {}

// StopWatchdog does nothing on Windows.
func StopWatchdog() {}

func watchGroup(byte, int) {}

// RunWatchdog is never started on Windows.
func RunWatchdog(io.Reader) int { return 0 }
