package cache

import (
	"strconv"

	"github.com/vxrun/vx/internal/inputfile"
)

// procStopped reads pid's state from /proc/<pid>/stat: "T" (stopped by a
// signal) or "t" (stopped by a debugger) is stopped.
func procStopped(pid int) ProcState {
	b, err := inputfile.ReadLimit("/proc/"+strconv.Itoa(pid)+"/stat", 4096)
	if err != nil {
		return ProcUnknown
	}
	return parseProcStat(b)
}
