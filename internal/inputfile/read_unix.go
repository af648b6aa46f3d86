//go:build unix

package inputfile

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// read reads the whole regular file name, at most limit bytes.
//
// It spends four or five system calls (open, fstat, read, read, close)
// where os.ReadFile spends ten (it registers the file with the runtime's
// poller, which refuses regular files); this halves the cost of reading a
// thousand small manifests. O_NONBLOCK keeps opening a named pipe from
// blocking; fstat then refuses it. The descriptor stays non-blocking,
// which a read of a regular file ignores; should a file system answer
// EAGAIN all the same, the descriptor is made blocking and the read
// retried.
func read(name string, limit int64, tooLarge error) ([]byte, error) {
	fd, st, err := openRegular(name, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	if st.Size > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: tooLarge}
	}
	buf := make([]byte, 0, max(2048, int(st.Size)+1))
	blocking := false
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN && !blocking:
			if err := setFlags(fd, syscall.O_RDONLY); err != nil {
				return nil, &fs.PathError{Op: "read", Path: name, Err: err}
			}
			blocking = true
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit { // a file that grows, or reports no size
			return nil, &fs.PathError{Op: "read", Path: name, Err: tooLarge}
		}
	}
}

// openRegular opens name with flag and perm (and O_CLOEXEC, O_NONBLOCK), and
// returns its descriptor, still non-blocking, and what fstat says of it
// when it is a regular file. Give it to [os.NewFile] only once [setFlags]
// has made it blocking: the runtime's poller refuses regular files, so a
// non-blocking one would hand EAGAIN to its reader.
func openRegular(name string, flag int, perm uint32) (int, *syscall.Stat_t, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, flag|syscall.O_CLOEXEC|syscall.O_NONBLOCK, perm)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		if flag&syscall.O_NOFOLLOW != 0 && (err == syscall.ELOOP || err == syscall.EMLINK) {
			if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				err = ErrLink
			}
		}
		return -1, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return -1, nil, &fs.PathError{Op: "read", Path: name, Err: notRegular(uint32(st.Mode))}
	}
	return fd, &st, nil
}

// setFlags sets the status flags of fd to those of flag, the flags it was
// opened with: without O_NONBLOCK, it is blocking again. One fcntl where
// syscall.SetNonblock spends two: F_SETFL ignores the access mode and the
// creation flags in flag (POSIX), and keeps O_APPEND when flag has it.
func setFlags(fd, flag int) error {
	for {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flag&^syscall.O_NONBLOCK)
		if err != syscall.EINTR {
			return err
		}
	}
}

// Open opens name for reading when it leads to a regular file, and returns
// the file and what it is; opening a named pipe does not wait for a
// writer. Errors are *fs.PathError values; one wrapping [ErrNotRegular]
// for anything else.
//
// It spends four system calls (open, fstat, fcntl to make the descriptor
// blocking, and os.NewFile's fcntl): the FileInfo comes from the fstat
// that checked the file ([statInfo]).
func Open(name string) (*os.File, fs.FileInfo, error) {
	fd, st, err := openRegular(name, syscall.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := setFlags(fd, syscall.O_RDONLY); err != nil {
		syscall.Close(fd)
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(fd), name)
	fi, err := statInfo(f, name, st)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// OpenWrite opens name as os.OpenFile does, with O_NOFOLLOW: a name that
// is a symbolic link is refused (an error wrapping [ErrLink]), as is one
// that is not a regular file ([ErrNotRegular]; a named pipe is not waited
// for). O_TRUNC is applied only once the file is known to be regular.
func OpenWrite(name string, flag int, perm fs.FileMode) (*os.File, error) {
	trunc := flag&os.O_TRUNC != 0
	fd, _, err := openRegular(name, (flag&^os.O_TRUNC)|syscall.O_NOFOLLOW, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	if err := setFlags(fd, flag); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	if trunc {
		if err := syscall.Ftruncate(fd, 0); err != nil {
			syscall.Close(fd)
			return nil, &fs.PathError{Op: "truncate", Path: name, Err: err}
		}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// notRegular names the kind of file mode is.
func notRegular(mode uint32) error {
	kind := "a special file"
	switch mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		kind = "a directory"
	case syscall.S_IFIFO:
		kind = "a named pipe (FIFO)"
	case syscall.S_IFCHR:
		kind = "a character device"
	case syscall.S_IFBLK:
		kind = "a block device"
	case syscall.S_IFSOCK:
		kind = "a socket"
	}
	return fmt.Errorf("%w but %s", ErrNotRegular, kind)
}
