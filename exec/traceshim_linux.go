//go:build linux && (amd64 || arm64)

package exec

import (
	"encoding/binary"
	"errors"
	"os"
	osexec "os/exec"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

//go:generate sh testdata/traceshim/gen.sh

// The trace shim is, first, a program of a few hundred bytes of machine
// code (testdata/traceshim/shim_<arch>.S, traceShimCode) that vx writes
// once into a sealed memory file (memfd) and starts through
// /proc/<vx>/fd/<n>: it does what [RunTraceShim] does with no runtime to
// start, which makes a traced task's start cost one exec more than an
// untraced one, not the start of vx (a Go program: several threads, its
// packages' inits). Where that file cannot be made or run (no memfd, /proc
// not mounted, memfd execution forbidden by vm.memfd_noexec), the shim is
// [Spec.TraceShim]: vx itself, re-executed.

// traceFastShim says whether Start may use the machine-code shim; a test
// turns it off to check the fallback.
var traceFastShim = true

var fastShim struct {
	once sync.Once
	path string // "/proc/<vx>/fd/<n>", or "" when it cannot be used
	err  error  // why not
}

// fastTraceShim returns the path of the machine-code shim, made at the
// first call, or "" when it cannot be used.
func fastTraceShim() string {
	if !traceFastShim {
		return ""
	}
	fastShim.once.Do(func() { fastShim.path, fastShim.err = makeFastShim() })
	return fastShim.path
}

// makeFastShim writes the shim into a sealed memfd, keeps a read-only
// descriptor of it open (close-on-exec) for the life of vx, and checks
// that it runs: started with no arguments it must exit 127.
func makeFastShim() (string, error) {
	fd, err := unix.MemfdCreate("vx-trace-shim", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if err == unix.EINVAL { // before Linux 6.3, which has no MFD_EXEC
		fd, err = unix.MemfdCreate("vx-trace-shim", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	elf := traceShimELF(traceShimCode, traceShimMachine)
	if n, err := unix.Write(fd, elf); err != nil || n != len(elf) {
		return "", errors.New("exec: trace shim: short write")
	}
	// Sealed, it cannot change: a task cannot write code into it through
	// /proc/<vx>/fd/<n> for the next task's shim to run. A read-only
	// descriptor of it leaves no writer, which execve would refuse.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS,
		unix.F_SEAL_SEAL|unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE); err != nil {
		return "", err
	}
	ro, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	path := "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/" + strconv.Itoa(ro)
	cmd := &osexec.Cmd{Path: path, Args: []string{path}}
	err = cmd.Run()
	var exit *osexec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 127 {
		unix.Close(ro)
		if err == nil {
			err = errors.New("exit 0")
		}
		return "", err
	}
	return path, nil
}

// traceShimELF makes a static ELF executable of code: one segment, read and
// execute, loaded at 0x400000 and entered at code's first byte, and a
// non-executable stack.
func traceShimELF(code []byte, machine uint16) []byte {
	const (
		base    = 0x400000
		ehsize  = 64
		phsize  = 56
		phnum   = 2
		codeOff = ehsize + phsize*phnum
	)
	le := binary.LittleEndian
	b := make([]byte, codeOff, codeOff+len(code))
	copy(b, "\x7fELF\x02\x01\x01") // 64-bit, little-endian, version 1, System V
	le.PutUint16(b[16:], 2)        // ET_EXEC
	le.PutUint16(b[18:], machine)
	le.PutUint32(b[20:], 1)
	le.PutUint64(b[24:], base+codeOff) // entry
	le.PutUint64(b[32:], ehsize)       // program headers
	le.PutUint16(b[52:], ehsize)
	le.PutUint16(b[54:], phsize)
	le.PutUint16(b[56:], phnum)
	le.PutUint16(b[58:], 64) // section header size, with none
	ph := b[ehsize:]
	le.PutUint32(ph[0:], 1)     // PT_LOAD
	le.PutUint32(ph[4:], 5)     // PF_R|PF_X
	le.PutUint64(ph[16:], base) // vaddr
	le.PutUint64(ph[24:], base) // paddr
	size := uint64(codeOff + len(code))
	le.PutUint64(ph[32:], size) // filesz
	le.PutUint64(ph[40:], size) // memsz
	le.PutUint64(ph[48:], 0x1000)
	ph = ph[phsize:]
	le.PutUint32(ph[0:], 0x6474e551) // PT_GNU_STACK
	le.PutUint32(ph[4:], 6)          // PF_R|PF_W
	le.PutUint64(ph[48:], 16)
	return append(b, code...)
}
