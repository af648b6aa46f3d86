package key

import (
	"bytes"
	"fmt"
	"path"
	"path/filepath"
)

// This file decides which files under a task's outputs are the task's, so
// that a restore replaces or removes only those: files git ignores, and
// files vx itself wrote (restored or stored) that did not change since
// (memo.wrote). Every other file the outputs match is the user's (a file
// git tracks, or one git would add that vx did not write): it is an input
// of the task (inputFiles), never stored in an entry, never replaced or
// removed.

// YoursOf returns the project-relative paths of the user's files that k's
// outputs match: its input files that the outputs match (inputFiles puts
// them there).
func YoursOf(k *Key) map[string]bool {
	yours := map[string]bool{}
	if len(k.spec.Outputs) == 0 {
		return yours
	}
	outputs := compileGlobs(k.spec.Outputs)
	for _, f := range k.Inputs {
		if rel, in := projectRel(k.spec.RelDir, f.Path); in && outputs.match(f.Path, rel, true) {
			yours[rel] = true
		}
	}
	return yours
}

// NotMine says why a restore of k's outputs into the project directory
// dir must not replace or remove the files at rels (project-relative), or
// "" when every one is the task's. A file is the task's when vx wrote it
// and it did not change since, or when git ignores it and does not track
// it: a file the key's scan did not list and that was not written since is
// one (a file written since is asked about with git check-ignore). Without
// git, only the files vx wrote are the task's.
func (c *Computer) NotMine(k *Key, dir string, rels []string) string {
	snap := k.snap
	var ask []string // root-relative
	for _, rel := range rels {
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		st, err := lstat(abs)
		if err != nil {
			continue // gone: nothing to lose
		}
		fs, ok := listed(k, rel)
		if fs.tracked {
			return fmt.Sprintf("it would replace or remove %s, which git tracks", rel)
		}
		if c.sc.memo.onlyAppeared(abs, memoKeyOf(st, false)) {
			return fmt.Sprintf("it would replace or remove %s, which appeared while the task last ran; "+
				"vx cannot tell whether the task or you wrote it", rel)
		}
		if c.sc.memo.isProduced(abs, memoKeyOf(st, false)) {
			continue
		}
		switch {
		case snap == nil || !snap.git:
			return fmt.Sprintf("it would replace or remove %s, which vx did not write", rel)
		case ok:
			return fmt.Sprintf("it would replace or remove %s, which git would add and vx did not write", rel)
		case max(st.mtime, st.ctime) < snap.taken.Add(-racyTick).UnixNano():
			// There when the scan did not list it: git ignores it.
			// (File times come from a clock that can lag a tick.)
		default:
			ask = append(ask, path.Join(k.spec.RelDir, rel))
		}
	}
	if len(ask) == 0 {
		return ""
	}
	ignored := c.checkIgnore(ask)
	for _, p := range ask {
		if !ignored[p] {
			rel, _ := projectRel(k.spec.RelDir, p)
			return fmt.Sprintf("it would replace or remove %s, which git would add and vx did not write", rel)
		}
	}
	return ""
}

// Wrote records the files a restore of k's outputs wrote under the project
// directory dir, or found in place (rels, project-relative; fresh: there
// was no file at its place), as vx's: a later restore may replace them.
// A file git would add that was not there before is recorded once git
// says it does not ignore it ([Computer.RecordPending]).
func (c *Computer) Wrote(k *Key, dir string, rels []string, fresh []bool) {
	snap := k.snap
	for i, rel := range rels {
		_, ok := listed(k, rel)
		if snap != nil && snap.git && !ok && !fresh[i] {
			continue // it was there, unlisted: git ignores it
		}
		abs := filepath.Join(dir, filepath.FromSlash(rel))
		st, err := lstat(abs)
		if err != nil {
			continue
		}
		switch {
		case snap == nil || !snap.git || ok:
			c.sc.memo.wrote(abs, memoKeyOf(st, false))
		case fresh[i]:
			// Whether git ignores it is asked once, at the end of
			// the run (RecordPending).
			c.mu.Lock()
			c.pendingWrote = append(c.pendingWrote, pendingFile{path.Join(k.spec.RelDir, rel), abs, memoKeyOf(st, false)})
			c.mu.Unlock()
		}
	}
}

// listed returns the state of the file at rel (project-relative) in the
// snapshot k was computed from.
func listed(k *Key, rel string) (fileState, bool) {
	if k.snap == nil {
		return fileState{}, false
	}
	return k.snap.get(path.Join(k.spec.RelDir, rel))
}

// pendingFile is a file a restore wrote where there was none, which the
// memo records as vx's unless git ignores it.
type pendingFile struct {
	rel, abs string
	key      memoKey
}

// RecordPending records in the memo the files restores wrote where there
// was none and that git does not ignore: those a later restore may replace
// although git would add them. The run calls it once, at its end.
func (c *Computer) RecordPending() {
	c.mu.Lock()
	pending := c.pendingWrote
	c.pendingWrote = nil
	c.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	rels := make([]string, len(pending))
	for i, f := range pending {
		rels[i] = f.rel
	}
	ignored := c.checkIgnore(rels)
	for _, f := range pending {
		if !ignored[f.rel] {
			c.sc.memo.wrote(f.abs, f.key)
		}
	}
}

// checkIgnore returns which of the root-relative paths git ignores (and
// does not track). A path git cannot answer for counts as not ignored.
func (c *Computer) checkIgnore(paths []string) map[string]bool {
	ignored := map[string]bool{}
	if c.sc.git == "" {
		return ignored
	}
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	out, err := c.sc.runGitInput(&in, "check-ignore", "-z", "--stdin")
	if err != nil {
		return ignored // exit 1: none is ignored; a fault: none is known to be
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			ignored[string(p)] = true
		}
	}
	return ignored
}
