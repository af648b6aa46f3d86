//go:build linux

package exec

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

func init() {
	procConfigure = func(attr *syscall.SysProcAttr) {
		// The kernel kills the shell if vx dies without cleaning up. It is
		// sent when the thread that started the child exits; Go keeps its
		// threads unless a goroutine locked to one ends, which vx does not.
		attr.Pdeathsig = syscall.SIGKILL
	}
	procGroupAlive = linuxGroupAlive
}

// linuxGroupAlive reports whether a process of group pgid is alive and not
// a zombie. Zombies count for kill(-pgid, 0) until their parent reaps them;
// the orphans a task leaves belong to init, which may reap slowly (seconds,
// in containers), and a zombie has nothing left to kill. When /proc cannot
// be read the group counts as alive.
func linuxGroupAlive(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	want := []byte(strconv.Itoa(pgid))
	buf := make([]byte, 512)
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		f, err := os.Open("/proc/" + name + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		n, _ := f.Read(buf)
		f.Close()
		// "pid (comm) state ppid pgrp ...": comm may hold spaces and ')'.
		stat := buf[:n]
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		fields := bytes.Fields(stat[i+1:])
		if len(fields) < 3 {
			continue
		}
		if bytes.Equal(fields[2], want) && !bytes.Equal(fields[0], []byte("Z")) && !bytes.Equal(fields[0], []byte("X")) {
			return true
		}
	}
	return false
}
