// Package filelock holds exclusive locks on files that the operating system
// releases when the process ends, however it ends (flock on Unix,
// LockFileEx on Windows): a vx killed with SIGKILL leaves no lock behind.
// The holder's process id is written in the file, so that a process
// waiting for the lock can say whom it waits for.
package filelock
