//go:build unix

package jsconfig

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// alive reports whether the process pid runs (a zombie does not).
func alive(pid string) bool {
	n, err := strconv.Atoi(pid)
	if err != nil || syscall.Kill(n, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	return err != nil || !strings.Contains(string(stat), ") Z ")
}
