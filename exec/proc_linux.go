//go:build linux

package exec

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

func init() {
	procConfigure = func(attr *syscall.SysProcAttr) {
		// The kernel kills the shell if vx dies without cleaning up. It is
		// sent when the thread that started the child exits; Go keeps its
		// threads unless a goroutine locked to one ends, which vx does not.
		attr.Pdeathsig = syscall.SIGKILL
	}
	procGroupAlive = linuxGroupAlive
	procAlive = linuxAlive
	pipeHolders = linuxPipeHolders
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

// linuxAlive reports whether pid is alive and not a zombie.
func linuxAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || (b[i+2] != 'Z' && b[i+2] != 'X')
}

// linuxPipeHolders returns the processes other than vx that hold the write
// end of one of the pipes whose read ends are readers: their
// /proc/<pid>/fd links read "pipe:[inode]" and the descriptor is open for
// writing. (A child vx is starting holds copies of vx's read ends until it
// execs; it is no stray.) Processes of other users, whose descriptors
// cannot be read, are not found.
func linuxPipeHolders(readers []*os.File) []int {
	want := map[string]bool{}
	for _, r := range readers {
		rc, err := r.SyscallConn()
		if err != nil {
			continue
		}
		rc.Control(func(fd uintptr) {
			var st unix.Stat_t
			if unix.Fstat(int(fd), &st) == nil {
				want["pipe:["+strconv.FormatUint(st.Ino, 10)+"]"] = true
			}
		})
	}
	if len(want) == 0 {
		return nil
	}
	names, err := filepath.Glob("/proc/[0-9]*/fd")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, dir := range names {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
		if err != nil || pid == self {
			continue
		}
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(dir + "/" + fd.Name()); err == nil && want[target] && writeEnd(pid, fd.Name()) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// writeEnd reports whether descriptor fd of pid is open for writing, from
// the octal "flags:" line of /proc/<pid>/fdinfo/<fd>.
func writeEnd(pid int, fd string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + fd)
	if err != nil {
		return false
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("flags:")); ok {
			flags, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 64)
			return err == nil && flags&unix.O_ACCMODE != unix.O_RDONLY
		}
	}
	return false
}
