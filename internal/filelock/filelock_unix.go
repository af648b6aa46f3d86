//go:build unix && !aix && !solaris && !illumos

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Lock is a held lock: a file descriptor of the file, flock'ed. Raw
// system calls keep a lock at five (open, fstat, flock, pwrite, close),
// which a run pays per cached task.
type Lock struct {
	fd int
}

func tryLock(path string) (*Lock, error) {
	// O_NOFOLLOW: the pid is written over the file's first bytes, so a
	// symbolic link put in the lock's place (by anything that can write
	// node_modules) must not lead the write to a file of the user's.
	// O_NONBLOCK: a named pipe in its place must not block the open.
	const flags = unix.O_RDWR | unix.O_CREAT | unix.O_CLOEXEC | unix.O_NOFOLLOW | unix.O_NONBLOCK
	fd, err := unix.Open(path, flags, 0o644)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(path, flags, 0o644)
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) {
			err = errNotPlain
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotPlain}
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
