package filelock

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vxrun/vx/internal/inputfile"
)

// ErrHeld is returned by [TryLock] when another process (or another open
// of the file in this process) holds the lock.
var ErrHeld = errors.New("filelock: held by another process")

// errNotPlain is the error of a lock file that is a symbolic link or not
// a regular file: vx neither writes through it nor locks it.
var errNotPlain = errors.New("is a symbolic link or not a regular file, which vx does not write to (remove it; vx makes its lock files itself)")

// TryLock creates the file at path if needed and takes its exclusive lock
// without waiting: ErrHeld when it is held. The locked file then holds the
// process id of its holder. The file is not inherited by child processes.
// A path that is a symbolic link, or leads to anything but a regular file,
// is refused (an *os.PathError): the pid is written in the file, and must
// never be written over a file the link names.
func TryLock(path string) (*Lock, error) { return tryLock(path) }

// pidLine is this process's id as the lock file holds it, padded to a
// fixed width so that it overwrites a longer one without a truncate.
var pidLine = []byte(fmt.Sprintf("%-19d\n", os.Getpid()))

// Holder returns the process id written in the lock file at path, or 0
// when it names none.
func Holder(path string) int {
	b, err := inputfile.ReadLimit(path, 64)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
