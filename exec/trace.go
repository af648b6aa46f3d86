package exec

import (
	"errors"
	"sort"
)

// TraceShimArg is the first argument that makes vx run as the trace shim
// ([RunTraceShim]): never typed by a user.
const TraceShimArg = "__vx-trace-shim"

// ErrTraceUnsupported is returned by [Start] for a traced [Spec] where
// tracing is not available: every system but Linux on amd64 and arm64.
var ErrTraceUnsupported = errors.New("exec: tracing a task is supported on Linux (amd64, arm64) only")

// Access says what a task's processes did with a path; a path seen several
// ways has several bits.
type Access uint16

// The accesses a trace records.
const (
	// Read: opened for reading (a directory so opened was listed).
	Read Access = 1 << iota
	// Write: opened for writing, created, truncated, made (mkdir, link,
	// symlink) or renamed onto.
	Write
	// Stat: its metadata or existence was looked at (stat, access,
	// readlink).
	Stat
	// Exec: run as a program.
	Exec
	// Remove: unlinked, removed, or renamed away.
	Remove
	// ReadFirst: it was read before any process of the tree wrote it.
	ReadFirst
)

// Trace is what every process of a task's tree did with files, as
// absolute, cleaned paths as the processes named them (a symbolic link is
// not resolved: the path a tool named is the one its user would declare).
type Trace struct {
	Files map[string]Access
	// Notes are things the trace could not follow: a setuid program that
	// ran without its privilege, a 32-bit process, a path that could not
	// be read from a process's memory. Each note is a sentence without
	// the task's name.
	Notes []string
}

// Paths returns the paths whose accesses have any of the bits in mask,
// sorted.
func (t *Trace) Paths(mask Access) []string {
	var out []string
	for p, a := range t.Files {
		if a&mask != 0 {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// add records an access, keeping ReadFirst for a read of a path not written
// yet.
func (t *Trace) add(path string, a Access) {
	if t.Files == nil {
		t.Files = map[string]Access{}
	}
	old := t.Files[path]
	if a&(Read|Exec) != 0 && old&Write == 0 {
		a |= ReadFirst
	}
	t.Files[path] = old | a
}

// Merge adds what a later process did (the next script of a pre/post
// chain) to t: a read of a file t wrote is not a first read.
func (t *Trace) Merge(later *Trace) {
	if later == nil {
		return
	}
	for p, a := range later.Files {
		if a&ReadFirst != 0 && t.Files[p]&Write != 0 {
			a &^= ReadFirst
		}
		if t.Files == nil {
			t.Files = map[string]Access{}
		}
		t.Files[p] |= a
	}
	for _, n := range later.Notes {
		t.note(n)
	}
}

// note adds a note once.
func (t *Trace) note(s string) {
	for _, n := range t.Notes {
		if n == s {
			return
		}
	}
	t.Notes = append(t.Notes, s)
}
