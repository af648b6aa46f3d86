package cache

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/outputs"
	"github.com/vxrun/vx/internal/quote"
)

// This file keeps a retried task's entry to its passing attempt (vx run
// --retries): the logs of failed attempts are dropped ([Cache.Retry]), and
// an output file that a failed attempt wrote and the passing attempt did
// not write again is left out of the entry ([Capture.dropLeftovers]). vx
// never removes such a file: it may have been the user's before the task
// ran. A file the outputs held before the first attempt and that no
// attempt touched is stored as it is without retries.

// attempts is what a capture knows of the output files of a task that may
// be retried.
type attempts struct {
	first   map[string]key.FileStat // at the start of the first attempt, by project-relative path
	tainted map[string]key.FileStat // written by failed attempts: as they were when the latest attempt started
	broken  error                   // the outputs could not be listed: nothing is stored
}

// FirstAttempt notes the output files of k's task, which is about to
// start its first attempt in the project directory dir and may be
// retried; cp is its capture.
func (c *Cache) FirstAttempt(k *Key, cp *Capture, dir string) {
	a := &attempts{}
	a.first, a.broken = c.outputStats(k, dir)
	cp.mu.Lock()
	cp.attempts = a
	cp.mu.Unlock()
}

// Retry readies cp for another attempt of k's task after a failed one:
// the logs kept so far are dropped, and the output files the failed
// attempts wrote are noted, so that the entry holds only those the
// passing attempt wrote.
func (c *Cache) Retry(k *Key, cp *Capture, dir string) {
	cp.mu.Lock()
	a := cp.attempts
	cp.broken = nil
	for _, f := range []interface {
		Truncate(int64) error
		Seek(int64, int) (int64, error)
	}{cp.Stdout, cp.Stderr} {
		if err := f.Truncate(0); err != nil && cp.broken == nil {
			cp.broken = err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil && cp.broken == nil {
			cp.broken = err
		}
	}
	cp.mu.Unlock()
	if a == nil || a.broken != nil {
		return
	}
	now, err := c.outputStats(k, dir)
	if err != nil {
		a.broken = err
		return
	}
	a.tainted = map[string]key.FileStat{}
	for p, st := range now {
		if before, ok := a.first[p]; !ok || before != st {
			a.tainted[p] = st
		}
	}
}

// outputStats returns the metadata of the files k's outputs match under
// dir.
func (c *Cache) outputStats(k *Key, dir string) (map[string]key.FileStat, error) {
	found, err := outputs.Find(k.Spec().Outputs, dir, filepath.Clean(c.store.Dir))
	if err != nil {
		return nil, err
	}
	out := make(map[string]key.FileStat, len(found))
	for _, e := range found {
		st, err := key.Lstat(filepath.Join(dir, filepath.FromSlash(e.Rel)))
		if err != nil {
			return nil, err
		}
		out[e.Rel] = st
	}
	return out, nil
}

// dropLeftovers leaves out of found (the outputs Save is about to store)
// the files failed attempts wrote that the passing attempt did not write
// again, and says so; an error says why nothing may be stored.
func (cp *Capture) dropLeftovers(c *Cache, k *Key, dir string, found []outputs.Entry) ([]outputs.Entry, error) {
	cp.mu.Lock()
	a := cp.attempts
	cp.mu.Unlock()
	if a == nil {
		return found, nil
	}
	if a.broken != nil {
		return nil, fmt.Errorf("its outputs could not be listed between its attempts: %w", a.broken)
	}
	if len(a.tainted) == 0 {
		return found, nil
	}
	var left []string
	kept := slices.DeleteFunc(found, func(e outputs.Entry) bool {
		was, tainted := a.tainted[e.Rel]
		if !tainted {
			return false
		}
		st, err := key.Lstat(filepath.Join(dir, filepath.FromSlash(e.Rel)))
		if err == nil && st != was {
			return false // written again by the passing attempt
		}
		left = append(left, e.Rel)
		return true
	})
	if len(left) > 0 {
		what := quote.Q(left[0])
		if len(left) > 1 {
			what += fmt.Sprintf(" and %d more", len(left)-1)
		}
		c.warn("%s: left out of its entry: %s, which a failed attempt wrote and the passing attempt did not", k.Spec().ID, what)
	}
	return kept, nil
}
