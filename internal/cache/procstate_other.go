//go:build !linux

package cache

// procStopped cannot tell outside Linux (macOS and the BSDs would need
// sysctl, Windows has no stopped state for a process vx could lock with).
func procStopped(int) ProcState { return ProcUnknown }
