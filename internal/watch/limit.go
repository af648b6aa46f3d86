package watch

import (
	"errors"
	"fmt"
	"syscall"
)

// isLimit reports whether err says that the system will not watch more:
// no inotify watch left (ENOSPC), or no file descriptor left (kqueue
// opens one per file and directory; inotify one per instance).
func isLimit(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// limitError explains a failure to watch after n directories were: for a
// limit of the system's, which one and how to raise it (limit is its value
// as the system says it, "" when unknown).
func limitError(goos string, err error, n int) error {
	if !isLimit(err) {
		return fmt.Errorf("watch: %w", err)
	}
	return errors.New(limitMessage(goos, errors.Is(err, syscall.ENOSPC), n, systemLimit(goos, errors.Is(err, syscall.ENOSPC))))
}

// limitMessage is limitError's text: watches says the limit is inotify's
// count of watches, not of open files.
func limitMessage(goos string, watches bool, n int, limit string) string {
	is := func(name string) string {
		if limit == "" {
			return name
		}
		return name + " = " + limit
	}
	fewer := "or watch fewer tasks (--filter) or fewer files (the tasks' \"inputs\")"
	switch {
	case goos == "linux" && watches:
		return fmt.Sprintf("watch: the system's limit of inotify watches (%s) is reached after %d directories; "+
			"raise it: sudo sysctl fs.inotify.max_user_watches=524288 (and put that line in /etc/sysctl.d/ to keep it), %s",
			is("fs.inotify.max_user_watches"), n, fewer)
	case goos == "linux":
		return fmt.Sprintf("watch: no inotify instance or file descriptor left (%s); close other watching programs, "+
			"or raise it: sudo sysctl fs.inotify.max_user_instances=1024", is("fs.inotify.max_user_instances"))
	case goos == "windows":
		return fmt.Sprintf("watch: the system refused to watch more than %d directories; %s", n, fewer)
	default: // kqueue: macOS, the BSDs
		return fmt.Sprintf("watch: out of file descriptors after %d directories (%s): kqueue, which vx watches with here, "+
			"holds one open file for every watched file and directory; raise the limit (ulimit -n; on macOS also "+
			"sudo sysctl kern.maxfilesperproc=...), %s", n, is("open files"), fewer)
	}
}
