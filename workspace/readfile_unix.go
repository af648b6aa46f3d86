//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// readFile reads a whole file with four system calls (open, read, read,
// close) where os.ReadFile spends ten (it registers the file with the
// runtime's poller, which refuses regular files); this halves the cost of
// reading a thousand small manifests. O_NONBLOCK keeps a FIFO named
// package.json from hanging Discover: reading it fails instead.
func readFile(name string) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 2048)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
