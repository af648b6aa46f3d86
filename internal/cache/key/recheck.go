package key

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// This file answers, once a task ran, whether its inputs changed while it
// ran (then its result is not stored): NoteInputs as it starts, Recheck
// when it ends; and notes which of the outputs it stored are the task's
// (NoteStored).

// racyTick is longer than the tick of the clock that file systems take
// times from (a few milliseconds on Linux, about 16 on Windows).
const racyTick = 20 * time.Millisecond

// NoteInputs returns the metadata of files, root-relative, for
// [Computer.Recheck]. A write gives a
// file a new change time (Unix's ctime, NTFS's ChangeTime), but two writes
// within one tick of the file system's clock may give it the same one: when
// a file was written less than racyTick ago, noteInputs waits until
// racyTick has passed since, so that any later write gives it another.
func NoteInputs(root string, files []InputFile) []FileStat {
	sts := make([]fileStat, len(files))
	statPaths(root, len(files), func(i int) string { return files[i].Path }, func(i int, st fileStat) { sts[i] = st })
	var latest int64
	for _, st := range sts {
		latest = max(latest, st.mtime, st.ctime)
	}
	if wait := time.Duration(latest-time.Now().UnixNano()) + racyTick; wait > 0 {
		time.Sleep(min(wait, racyTick))
	}
	return sts
}

// writtenSince returns the first of k's input files whose metadata is not
// what noted says (noteInputs) and whose content is not the key's any more
// (same reads it again), or "". A file skip names is not looked at.
//
// Metadata alone would refuse a task that rewrites one of its inputs with
// the same bytes (a generator whose output is committed) on every run; the
// content is what the output was built from. What this cannot see is an
// edit undone before the task ended: the task may have read the edit, and
// the file holds the key's bytes again.
func writtenSince(root string, files []InputFile, noted []fileStat, skip func(p string) bool, same func(f InputFile) bool) string {
	now := make([]fileStat, len(files))
	statPaths(root, len(files), func(i int) string { return files[i].Path }, func(i int, st fileStat) { now[i] = st })
	for i, f := range files {
		if now[i] != noted[i] && !skip(f.Path) && !same(f) {
			return f.Path
		}
	}
	return ""
}

// Recheck refuses to store the result of k's task, which started at start,
// when its input files changed while it ran: a file whose metadata is not
// what noted says ([NoteInputs] as the task started) and whose content is
// not the key's (writtenSince), or the files as they are now, read again
// rather than taken from this run's look, making another key. yours are
// the user's files under the outputs (project-relative, [YoursOf]). It
// returns the look at the files made now, for [Computer.NoteStored]; an
// error says why not to store.
func (c *Computer) Recheck(k *Key, noted []FileStat, start time.Time, yours map[string]bool) (*Snapshot, error) {
	isYours := func(p string) bool {
		rel, in := projectRel(k.spec.RelDir, p)
		return in && yours[rel]
	}
	sameContent := func(f InputFile) bool {
		st, ok, err := c.sc.hashOne(f.Path, len(f.ID) == 64, time.Now())
		return ok && err == nil && !st.link && st.id == f.ID && st.exec == f.Exec
	}
	if p := writtenSince(c.opts.Root, k.Inputs, noted, isYours, sameContent); p != "" {
		return nil, fmt.Errorf("its inputs changed while it ran (%s changed)", p)
	}
	snap, err := c.sc.scan(scanDirs(k.spec))
	if err != nil {
		return nil, err
	}
	now := c.keyNow(k, start, snap, isYours)
	if now.InputRoot == k.InputRoot {
		return snap, nil
	}
	change := firstChange(k, now)
	p, _, _ := strings.Cut(change, " ")
	switch {
	case !isYours(p):
		return nil, fmt.Errorf("its inputs changed while it ran (%s)", change)
	case tracked(snap, p):
		return nil, fmt.Errorf("it changed %s, a file of its outputs that git tracks (vx stores no result that changes your files)", p)
	case snap.git:
		return nil, fmt.Errorf("it changed %s, a file of its outputs that git would add and vx did not write (add it to .gitignore, or delete it once, for vx to keep it as an output)", p)
	default:
		return nil, fmt.Errorf("it changed %s, a file of its outputs that vx did not write (delete it once, for vx to keep it as an output)", p)
	}
}

// tracked reports whether snap lists p as a file git tracks.
func tracked(snap *snapshot, p string) bool {
	st, _ := snap.get(p)
	return st.tracked
}

// keyNow returns k's key from the files in snap, each read again. A file
// under the outputs is the task's when it is new, or vx wrote it, and git
// does not track it. A new file the task did not write (it appeared
// before the task started: the user's) makes the list differ. File times
// come from a clock that can lag behind time.Now by a tick: a file
// written within racyTick before the start counts as the task's.
func (c *Computer) keyNow(k *Key, start time.Time, snap *snapshot, isYours func(p string) bool) *Key {
	hash := func(p string) (fileState, bool) {
		st, ok, err := c.sc.hashOne(p, false, time.Now())
		return st, ok && err == nil
	}
	started := start.Add(-racyTick).UnixNano()
	files := c.inputFilesOf(snap, k.spec, nil, hash, func(p string, st fileState) bool {
		if isYours(p) || st.tracked {
			return true
		}
		if st.produced {
			return false
		}
		fs, err := lstat(filepath.Join(c.opts.Root, filepath.FromSlash(p)))
		return err == nil && max(fs.ctime, fs.mtime) < started
	})
	return keyOf(k.spec, files, c.inputLines(k.spec, files), c.platform(), c.envKey)
}

// firstChange names the first input that differs between two keys.
func firstChange(before, after *Key) string {
	old := map[string]string{}
	for _, f := range before.Inputs {
		old[f.Path] = f.ID
	}
	for _, f := range after.Inputs {
		if id, ok := old[f.Path]; !ok {
			return f.Path + " appeared"
		} else if id != f.ID {
			return f.Path + " changed"
		}
		delete(old, f.Path)
	}
	for p := range old {
		return p + " disappeared"
	}
	return "the file list changed"
}

// NoteStored notes in the memo which of the outputs of k's task, just
// stored (rels, project-relative under dir), the task owns now: the
// outputs git would add (snap, from [Computer.Recheck]), or all of them
// without git, but only as files that appeared while it ran: the user may
// have written one of them meanwhile (an editor saving a file beside tsc's
// output), so no restore replaces or removes them until vx itself writes
// them (memo.stored).
func (c *Computer) NoteStored(k *Key, snap *Snapshot, dir string, rels []string) {
	for _, p := range rels {
		rootRel := path.Join(k.spec.RelDir, p)
		if _, listed := snap.get(rootRel); listed || !snap.git {
			abs := filepath.Join(dir, filepath.FromSlash(p))
			if st, err := lstat(abs); err == nil {
				c.sc.memo.stored(abs, memoKeyOf(st, false))
			}
		}
	}
}
