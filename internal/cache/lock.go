package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/vxrun/vx/internal/filelock"
	"github.com/vxrun/vx/internal/quote"
)

// Two vx runs in one workspace must not look up, restore, run or store the
// same task at once: one would store outputs the other is writing (or
// restoring) half-way. A task's lock is a file in the workspace,
// node_modules/.cache/vx-locks/<hash of its id>, locked with the OS's file
// lock (released when vx ends, however it ends), held from before the
// task's lookup until its result is stored or given up.

// lockNotice is how long a task waits for another vx's lock before vx
// says so.
const lockNotice = time.Second

// lockPoll is how often a waiting task tries the lock again.
const lockPoll = 50 * time.Millisecond

// ProcState is what vx can tell of another process: whether it is
// stopped (Ctrl-Z, SIGSTOP), where the OS says.
type ProcState int

const (
	ProcUnknown ProcState = iota // the OS does not say (not Linux), or the process is gone
	ProcRunning
	ProcStopped
)

// LockTask takes the lock of k's task in the workspace, waiting while
// another vx holds it: after lockNotice it says so once ("web#build:
// waiting for another vx (pid 1234) running it in this workspace"). A
// holder that is stopped (Ctrl-Z in its terminal; known on Linux from
// /proc) is said once, with what to do: resume it (kill -CONT, fg), end
// it, or run with --no-lock. It returns the function that releases the
// lock, or ok false when the cache's Context ended first (Ctrl-C). A lock
// that cannot be made (a read-only node_modules, a link in its place) is
// one warning in the run, and the tasks go on without locks. With
// Options.NoLock it takes none and waits for none.
func (c *Cache) LockTask(k *Key) (unlock func(), ok bool) {
	if c.opts.NoLock {
		return func() {}, true
	}
	dir := filepath.Join(c.opts.Root, "node_modules", ".cache", "vx-locks")
	sum := sha256.Sum256([]byte(k.Spec().ID))
	path := filepath.Join(dir, hex.EncodeToString(sum[:8]))
	state := c.opts.ProcState
	if state == nil {
		state = procStopped
	}
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// Its files are written (the pid): not through a link vx did not make.
		c.warn("cannot lock tasks against other vx runs in %s (it is a symbolic link, which vx does not write through; remove it); going on without the locks", quote.Q(dir))
		return func() {}, true
	}
	start := time.Now()
	noticed, stopNoticed := false, false
	var lastCheck time.Time
	for {
		l, err := filelock.TryLock(path)
		if errors.Is(err, os.ErrNotExist) {
			if err = os.MkdirAll(dir, 0o755); err == nil {
				l, err = filelock.TryLock(path)
			}
		}
		if err == nil {
			return func() { l.Unlock() }, true
		}
		if !errors.Is(err, filelock.ErrHeld) {
			// Once per run, whatever the task: the reason is the
			// directory's (read-only, not a directory...).
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			c.warn("cannot lock tasks against other vx runs in %s (%v); going on without the locks", quote.Q(dir), err)
			return func() {}, true
		}
		if waited := time.Since(start); waited >= lockNotice && (!noticed || !stopNoticed && time.Since(lastCheck) >= lockNotice) {
			lastCheck = time.Now()
			pid := filelock.Holder(path)
			stopped := pid > 0 && state(pid) == ProcStopped
			if !noticed || stopped {
				c.warn("%s", lockWaitMessage(k.Spec().ID, pid, stopped))
			}
			noticed, stopNoticed = true, stopped
		}
		select {
		case <-time.After(lockPoll):
		case <-c.ctx.Done():
			return nil, false
		}
	}
}

// lockWaitMessage is what a task waiting for another vx's lock says: who
// holds it (pid 0: unknown), and when it is stopped, what to do.
func lockWaitMessage(id string, pid int, stopped bool) string {
	who := "another vx"
	if pid > 0 {
		who = "another vx (pid " + strconv.Itoa(pid) + ")"
	}
	if !stopped {
		return fmt.Sprintf("%s: waiting for %s running it in this workspace", id, who)
	}
	return fmt.Sprintf("%s: waiting for %s, which holds its lock and is stopped (Ctrl-Z?): resume it with \"kill -CONT %d\" "+
		"(or fg in its terminal), end it, or run this one with --no-lock (it then stores no result)", id, who, pid)
}

// parseProcStat returns the state in a /proc/<pid>/stat line: the field
// after the command name, which is in parentheses and may hold any byte.
func parseProcStat(b []byte) ProcState {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return ProcUnknown
	}
	switch b[i+2] {
	case 'T', 't':
		return ProcStopped
	default:
		return ProcRunning
	}
}
