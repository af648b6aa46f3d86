package main

// processAlive reports whether process pid is still running (the Unix
// one is in reliability_unix_test.go).
func processAlive(pid int) bool { return processAliveWin(pid) }
