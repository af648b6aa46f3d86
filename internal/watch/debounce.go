package watch

import (
	"sort"
	"time"
)

// A Debouncer gathers the changes of a burst into one batch: a batch is
// due once no change has come for Quiet (an editor's save, which writes a
// temporary file and renames it, and a git checkout of a thousand files
// are each one batch), or Max after its first change, so that a file
// written without pause (a log) cannot hold back the others for ever.
//
// It is pure: the caller says what time it is. The zero value is not
// ready: set Quiet and Max.
type Debouncer struct {
	Quiet, Max time.Duration

	first, last time.Time
	pending     map[string]time.Time // path → the time of its latest change
}

// Add records a change of path at time at.
func (d *Debouncer) Add(path string, at time.Time) {
	if len(d.pending) == 0 {
		d.first = at
		if d.pending == nil {
			d.pending = map[string]time.Time{}
		}
	}
	if at.After(d.last) {
		d.last = at
	}
	if prev, ok := d.pending[path]; !ok || at.After(prev) {
		d.pending[path] = at
	}
}

// Pending reports whether changes wait.
func (d *Debouncer) Pending() bool { return len(d.pending) > 0 }

// Due returns when the waiting changes make a batch; ok is false when
// none wait.
func (d *Debouncer) Due() (at time.Time, ok bool) {
	if len(d.pending) == 0 {
		return time.Time{}, false
	}
	at = d.last.Add(d.Quiet)
	if max := d.first.Add(d.Max); max.Before(at) {
		at = max
	}
	return at, true
}

// Take returns the batch due at now, sorted by path, each path once with
// the time of its latest change, and starts a new one; nil when no batch
// is due yet.
func (d *Debouncer) Take(now time.Time) []Change {
	if at, ok := d.Due(); !ok || now.Before(at) {
		return nil
	}
	out := make([]Change, 0, len(d.pending))
	for p, t := range d.pending {
		out = append(out, Change{Path: p, Time: t})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	clear(d.pending)
	d.first, d.last = time.Time{}, time.Time{}
	return out
}
