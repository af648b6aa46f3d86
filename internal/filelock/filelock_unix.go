//go:build unix && !aix && !solaris && !illumos

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Lock is a held lock: a file descriptor of the file, flock'ed. Raw
// system calls keep a lock at four (open, flock, pwrite, close), which a
// run pays per cached task.
type Lock struct {
	fd int
}

func tryLock(path string) (*Lock, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrHeld
		}
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	unix.Pwrite(fd, pidLine, 0) // who holds it, for a waiter's message; best effort
	return &Lock{fd: fd}, nil
}

// Unlock releases the lock: closing the only descriptor of the open file
// releases its flock. The file stays: removing it could let two processes
// hold locks on two different files of the same name.
func (l *Lock) Unlock() error { return unix.Close(l.fd) }
