package watch

import "time"

// A Change is a file that changed.
type Change struct {
	Path string    // slash-separated, from the workspace root
	Time time.Time // when vx learnt of its latest change
	// Mod is the file's modification time as the system recorded it
	// (its clock may lag the real time by a tick); zero once it is gone.
	Mod time.Time
	// Ignored: git ignores the file (it is no task's input, but for a
	// project's package.json and the lockfiles).
	Ignored bool
}

// A Batch is the changes of one burst, sorted by path.
type Batch struct {
	Changes []Change
	// Overflow: the system dropped events (its queue was full), so any
	// file may have changed: every watched task should be looked at again.
	Overflow bool
}
