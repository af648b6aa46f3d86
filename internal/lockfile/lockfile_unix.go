//go:build unix && !aix && !solaris && !illumos

package lockfile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

func lock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrHeld
		}
		return err
	}
}

func unlock(f *os.File) { unix.Flock(int(f.Fd()), unix.LOCK_UN) }
