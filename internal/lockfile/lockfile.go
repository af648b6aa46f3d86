package lockfile

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// ErrHeld is returned by [TryLock] when another process (or another open
// of the file in this process) holds the lock.
var ErrHeld = errors.New("lockfile: held by another process")

// Lock is a held lock.
type Lock struct {
	f *os.File
}

// TryLock creates the file at path if needed and takes its exclusive lock
// without waiting: ErrHeld when it is held. The locked file then holds the
// process id of its holder.
func TryLock(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, err
	}
	// Who holds it, for a waiter's message; best effort.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. The file stays: removing it could let two
// processes hold locks on two different files of the same name.
func (l *Lock) Unlock() error {
	unlock(l.f)
	return l.f.Close()
}

// Holder returns the process id written in the lock file at path, or 0
// when it names none.
func Holder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
