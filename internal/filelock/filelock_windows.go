package filelock

import (
	"errors"
	"os"

	"github.com/vxrun/vx/internal/inputfile"
	"golang.org/x/sys/windows"
)

// Lock is a held lock: the file, open, with a byte locked.
type Lock struct {
	f *os.File
}

// The lock covers one byte far past the end of the file, so that the
// holder's process id, at its start, stays readable to the waiters
// (Windows locks are mandatory for the range they cover).
const lockOffsetHigh = 0x7fffffff

func tryLock(path string) (*Lock, error) {
	// Not through a symbolic link or junction: the pid is written over
	// the file's first bytes.
	f, err := inputfile.OpenWrite(path, os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, inputfile.ErrLink) || errors.Is(err, inputfile.ErrNotRegular) {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotPlain}
	}
	if err != nil {
		return nil, err
	}
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, ErrHeld
		}
		return nil, &os.PathError{Op: "LockFileEx", Path: path, Err: err}
	}
	f.WriteAt(pidLine, 0) // who holds it, for a waiter's message; best effort
	return &Lock{f: f}, nil
}

// Unlock releases the lock. The file stays: removing it could let two
// processes hold locks on two different files of the same name.
func (l *Lock) Unlock() error {
	windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, &windows.Overlapped{OffsetHigh: lockOffsetHigh})
	return l.f.Close()
}
