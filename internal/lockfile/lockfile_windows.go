package lockfile

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// The lock covers one byte far past the end of the file, so that the
// holder's process id, at its start, stays readable to the waiters
// (Windows locks are mandatory for the range they cover).
const lockOffsetHigh = 0x7fffffff

func lock(f *os.File) error {
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return ErrHeld
	}
	return err
}

func unlock(f *os.File) {
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &windows.Overlapped{OffsetHigh: lockOffsetHigh})
}
