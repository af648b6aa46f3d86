package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
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

// LockTask takes the lock of k's task in the workspace, waiting while
// another vx holds it: after lockNotice it says so once ("web#build:
// waiting for another vx (pid 1234) running it in this workspace"). It
// returns the function that releases the lock, or ok false when the
// cache's Context ended first (Ctrl-C). A lock that cannot be made (a
// read-only node_modules) is one warning in the run, and the tasks go on
// without locks.
func (c *Cache) LockTask(k *Key) (unlock func(), ok bool) {
	dir := filepath.Join(c.opts.Root, "node_modules", ".cache", "vx-locks")
	sum := sha256.Sum256([]byte(k.spec.ID))
	path := filepath.Join(dir, hex.EncodeToString(sum[:8]))
	start := time.Now()
	noticed := false
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
		if !noticed && time.Since(start) >= lockNotice {
			noticed = true
			who := "another vx"
			if pid := filelock.Holder(path); pid > 0 {
				who = "another vx (pid " + strconv.Itoa(pid) + ")"
			}
			c.warn("%s: waiting for %s running it in this workspace", k.spec.ID, who)
		}
		select {
		case <-time.After(lockPoll):
		case <-c.ctx.Done():
			return nil, false
		}
	}
}
