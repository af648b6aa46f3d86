package watch

import (
	"os"
	"strings"
)

// systemLimit returns the value of the limit a watch ran into.
func systemLimit(_ string, watches bool) string {
	name := "/proc/sys/fs/inotify/max_user_instances"
	if watches {
		name = "/proc/sys/fs/inotify/max_user_watches"
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
