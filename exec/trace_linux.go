//go:build linux && (amd64 || arm64)

package exec

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// How tracing works (Linux): the task's program is started through a shim,
// vx itself with [TraceShimArg], which sets no_new_privs, installs a
// seccomp filter that sends the path system calls of traceSyscalls to a
// listener (SECCOMP_FILTER_FLAG_NEW_LISTENER), hands the listener to vx
// over a socket (SCM_RIGHTS) and executes the task's program. The filter is
// inherited across fork, clone and execve and cannot be removed, so every
// process of the tree is seen: daemons that double-fork or setsid, threads,
// vfork and posix_spawn, static binaries. vx's supervisor answers each
// call with "continue" after reading its path from the process's memory
// (process_vm_readv) and resolving it against the process's cwd or dirfd
// (/proc/<pid>/cwd, /proc/<pid>/fd/<n>): the call itself is the kernel's,
// unchanged. The supervisor learns that the whole tree is gone when the
// listener hangs up.

// sysPath says where a traced system call keeps its path: the index of its
// dirfd argument (-1: relative to the cwd), of its path argument, of its
// open flags (-1: none, the access is op; flagsOpenHow: openat2's struct),
// for rename and link the second path, made (path2 0: none), and for the
// stat calls that take AT_EMPTY_PATH the index of that flags argument
// (fdFlags 0: none).
type sysPath struct {
	dirfd, path, flags int
	op                 Access
	dirfd2, path2      int
	fdFlags            int
}

const flagsOpenHow = -2

// The kernel's structures (linux/seccomp.h).
type seccompData struct {
	Nr   int32
	Arch uint32
	IP   uint64
	Args [6]uint64
}

type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Data  seccompData
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// traceFilter is the BPF program of the filter: every system call of
// another architecture (or x32) and every one of traceSyscalls goes to the
// listener, the rest is allowed, and so is a stat call given
// AT_EMPTY_PATH: glibc's and libuv's fstat, a look at a descriptor the
// process holds, which the trace does not record (it is nearly half of the
// calls a program's start makes). Such a call that also names a path is
// not seen: a stat is never a read.
func traceFilter() []unix.SockFilter {
	nrs := make([]uint32, 0, len(traceSyscalls))
	for nr := range traceSyscalls {
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)
	n := len(nrs)
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	// 0 ld arch; 1 jeq native ? 3 : 2; 2 ret notify; 3 ld nr; 4 jge x32;
	// 5.. jeq nr each (to notify, or to its AT_EMPTY_PATH check); 5+n ret
	// allow; 6+n ret notify; 7+n.. each check: ld flags; jset
	// AT_EMPTY_PATH ? allow : notify; ret allow; ret notify (BPF jumps
	// only forward).
	prog := []unix.SockFilter{
		{Code: ld, K: 4},
		{Code: jeq, Jt: 1, Jf: 0, K: traceArch},
		{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF},
		{Code: ld, K: 0},
	}
	x32 := uint32(traceX32)
	if x32 == 0 {
		x32 = 0xffffffff // never reached by a real number
	}
	prog = append(prog, unix.SockFilter{Code: jge, Jt: uint8(n + 1), K: x32})
	var checks []unix.SockFilter
	for i, nr := range nrs {
		at, notify := 5+i, 6+n
		if a := traceSyscalls[nr].fdFlags; a != 0 {
			notify = 7 + n + len(checks)
			// seccomp_data: nr, arch, ip, then the arguments, 8 bytes
			// each; the flags are the low (first, little-endian) half.
			checks = append(checks,
				unix.SockFilter{Code: ld, K: uint32(16 + 8*a)},
				unix.SockFilter{Code: jset, Jt: 0, Jf: 1, K: unix.AT_EMPTY_PATH},
				unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
				unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
		}
		prog = append(prog, unix.SockFilter{Code: jeq, Jt: uint8(notify - at - 1), K: nr})
	}
	prog = append(prog,
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
	return append(prog, checks...)
}

// traceFilterBytes is traceFilter as the kernel reads it (struct
// sock_filter[]), which vx hands the shim.
var traceFilterBytes = sync.OnceValue(func() []byte {
	f := traceFilter()
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*int(unsafe.Sizeof(f[0])))...)
})

// RunTraceShim is the trace shim when vx runs it (see traceshim_linux.go
// for the one that usually does): vx started with [TraceShimArg] by a
// traced [Start]. args are the program to run and its argv (argv[0]
// first), env its environment; descriptor 3 is the socket on which vx has
// written the filter (struct sock_filter[]) and through which the shim
// hands vx the listener. It returns only when it cannot run the program.
func RunTraceShim(args []string, env []string) int {
	const sock = 3
	fail := func(err error) int {
		unix.Write(sock, []byte("err:"+err.Error()))
		fmt.Fprintf(os.Stderr, "vx: trace: %v\n", err)
		return 127
	}
	// The filter is installed on this thread only; execve from the same
	// thread makes it the whole process's.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("no_new_privs: %w", err))
	}
	var filter [512]unix.SockFilter
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&filter[0])), len(filter)*int(unsafe.Sizeof(filter[0])))
	n, err := unix.Read(sock, buf)
	for err == unix.EINTR {
		n, err = unix.Read(sock, buf)
	}
	// The filter is read first: a socket closed with unread data resets
	// its peer, which would then not read why.
	if len(args) < 2 {
		return fail(errors.New("the trace shim needs a program and its argv"))
	}
	if n < int(unsafe.Sizeof(filter[0])) {
		return fail(errors.New("the trace shim got no filter"))
	}
	prog := unix.SockFprog{Len: uint16(n / int(unsafe.Sizeof(filter[0]))), Filter: &filter[0]}
	fd, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return fail(fmt.Errorf("seccomp user notification is not available here: %w", errno))
	}
	err = unix.Sendmsg(sock, []byte("ok"), unix.UnixRights(int(fd)), nil, 0)
	for err == unix.EINTR {
		err = unix.Sendmsg(sock, []byte("ok"), unix.UnixRights(int(fd)), nil, 0)
	}
	if err != nil {
		return fail(fmt.Errorf("handing the listener to vx: %w", err))
	}
	unix.Close(int(fd))
	unix.Close(sock)
	err = unix.Exec(args[0], args[1:], env)
	fmt.Fprintf(os.Stderr, "vx: %s: %v\n", args[0], err)
	return 127
}

// tracer is the supervisor of one traced task.
type tracer struct {
	sock     *os.File // vx's end of the socket the shim hands the listener through
	listener int
	wakeR    int // end() writes to wakeW to stop the loop
	wakeW    int
	done     chan struct{}
	trace    Trace
	buf      []byte
	calls    int // notified calls answered
}

// traceSetup makes p start its program through the shim.
func (p *Process) traceSetup(spec Spec) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("exec: trace: %w", err)
	}
	// The filter waits in the socket for the shim to read it.
	if _, err := unix.Write(fds[0], traceFilterBytes()); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return fmt.Errorf("exec: trace: %w", err)
	}
	parent, child := os.NewFile(uintptr(fds[0]), "trace"), os.NewFile(uintptr(fds[1]), "trace-shim")
	p.tracer = &tracer{sock: parent, listener: -1, wakeR: -1, wakeW: -1}
	shim := fastTraceShim()
	if shim == "" {
		shim = spec.TraceShim
	}
	p.cmd.Args = append([]string{shim, TraceShimArg, p.cmd.Path}, p.cmd.Args...)
	p.cmd.Path = shim
	p.cmd.ExtraFiles = []*os.File{child}
	p.closers = append(p.closers, child)
	return nil
}

// begin receives the listener from the shim, which has started, and starts
// the supervisor.
func (t *tracer) begin() error {
	defer t.sock.Close()
	fd := int(t.sock.Fd())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 30})
	buf := make([]byte, 512)
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = unix.Recvmsg(fd, buf, oob, 0)
		if err != unix.EINTR { // Go's own signals (preemption) interrupt the wait
			break
		}
	}
	if err != nil {
		return fmt.Errorf("exec: trace: waiting for the shim: %w", err)
	}
	if msg := string(buf[:n]); len(msg) > 4 && msg[:4] == "err:" {
		return fmt.Errorf("exec: trace: %s", msg[4:])
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return errors.New("exec: trace: the shim ended before tracing began")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return errors.New("exec: trace: the shim sent no listener")
	}
	t.listener = fds[0]
	unix.CloseOnExec(t.listener)
	var wake [2]int
	if err := unix.Pipe2(wake[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		unix.Close(t.listener)
		return fmt.Errorf("exec: trace: %w", err)
	}
	t.wakeR, t.wakeW = wake[0], wake[1]
	t.done = make(chan struct{})
	t.buf = make([]byte, 4096)
	go t.loop()
	return nil
}

// loop answers the tree's notified calls until it is gone or end() asks.
func (t *tracer) loop() {
	defer close(t.done)
	fds := []unix.PollFd{{Fd: int32(t.listener), Events: unix.POLLIN}, {Fd: int32(t.wakeR), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			t.trace.note("the trace stopped early: " + err.Error())
			return
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			var n seccompNotif
			if ioctl(t.listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)) != nil {
				continue // the caller died before its call was read
			}
			t.calls++
			t.handle(&n)
			resp := seccompNotifResp{ID: n.ID, Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
			ioctl(t.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
			continue
		}
		if fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 || fds[1].Revents != 0 {
			return // no process of the tree is left, or vx is done with it
		}
	}
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// end stops the supervisor and returns the trace. Processes of the tree
// still alive (none, once Wait ended the tree) see their path calls fail.
func (t *tracer) end() *Trace {
	if t.done != nil {
		unix.Write(t.wakeW, []byte{0})
		<-t.done
		unix.Close(t.listener)
		unix.Close(t.wakeR)
		unix.Close(t.wakeW)
	}
	return &t.trace
}

// handle records what one call does.
func (t *tracer) handle(n *seccompNotif) {
	if n.Data.Arch != traceArch || (traceX32 != 0 && uint32(n.Data.Nr)&traceX32 != 0) {
		t.trace.note("a process made 32-bit or x32 system calls: what they did with files is not traced")
		return
	}
	sp, ok := traceSyscalls[uint32(n.Data.Nr)]
	if !ok {
		return
	}
	pid := int(n.Pid)
	args := &n.Data.Args
	op := sp.op
	switch {
	case sp.flags >= 0:
		op = openAccess(args[sp.flags])
	case sp.flags == flagsOpenHow:
		var how [8]byte
		if t.read(pid, uintptr(args[2]), how[:]) != nil {
			op = Read | Write // unknown: count both
		} else {
			op = openAccess(*(*uint64)(unsafe.Pointer(&how[0])))
		}
	}
	p1, ok1 := t.path(pid, sp.dirfd, args, sp.path)
	var p2 string
	ok2 := false
	if sp.path2 != 0 {
		p2, ok2 = t.path(pid, sp.dirfd2, args, sp.path2)
	}
	// What was read may belong to another process if the caller died and
	// its pid was reused: the kernel says whether the call still waits.
	id := n.ID
	if ioctl(t.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) != nil {
		return
	}
	if ok1 {
		t.trace.add(p1, op)
		if op&Exec != 0 {
			if fi, err := os.Stat(p1); err == nil && fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0 {
				t.trace.note(fmt.Sprintf("%s is setuid or setgid: traced, it runs without that privilege", p1))
			}
		}
	}
	if ok2 {
		t.trace.add(p2, Write)
	}
}

// openAccess is what open flags say: a read, a write, or a look (O_PATH).
func openAccess(flags uint64) Access {
	switch {
	case flags&unix.O_PATH != 0:
		return Stat
	case flags&(unix.O_CREAT|unix.O_TRUNC) != 0, flags&unix.O_ACCMODE == unix.O_WRONLY:
		return Write
	case flags&unix.O_ACCMODE == unix.O_RDWR:
		return Read | Write
	}
	return Read
}

// path reads the path argument i of a call and makes it absolute.
func (t *tracer) path(pid, dirfd int, args *[6]uint64, i int) (string, bool) {
	s, err := t.readString(pid, uintptr(args[i]))
	if err != nil {
		t.trace.note("a path could not be read from a process's memory: " + err.Error())
		return "", false
	}
	if s == "" {
		return "", false // AT_EMPTY_PATH: a call on the descriptor itself
	}
	if s[0] == '/' {
		return filepath.Clean(s), true
	}
	link := "/proc/" + strconv.Itoa(pid) + "/cwd"
	if dirfd >= 0 && int32(args[dirfd]) != unix.AT_FDCWD {
		link = "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(int(int32(args[dirfd])))
	}
	base, err := os.Readlink(link)
	if err != nil || base == "" || base[0] != '/' {
		return "", false // the process is gone, or the fd is not a directory of the tree
	}
	return filepath.Join(base, s), true
}

// readString reads a NUL-terminated string of at most 4096 bytes at addr
// in pid's memory, a page at a time (the next page may not be mapped).
func (t *tracer) readString(pid int, addr uintptr) (string, error) {
	if addr == 0 {
		return "", errors.New("null pointer")
	}
	const page = 4096
	var out []byte
	for len(out) < unix.PathMax {
		chunk := page - int(addr%page)
		b := t.buf[:chunk]
		if err := t.read(pid, addr, b); err != nil {
			return "", err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return string(append(out, b[:i]...)), nil
		}
		out = append(out, b...)
		addr += uintptr(chunk)
	}
	return "", errors.New("path too long")
}

// read fills b from pid's memory at addr.
func (t *tracer) read(pid int, addr uintptr, b []byte) error {
	local := []unix.Iovec{{Base: &b[0]}}
	local[0].SetLen(len(b))
	remote := []unix.RemoteIovec{{Base: addr, Len: len(b)}}
	n, err := unix.ProcessVMReadv(pid, local, remote, 0)
	if err != nil {
		return err
	}
	if n != len(b) {
		return errors.New("short read")
	}
	return nil
}
