package exec

import "golang.org/x/sys/unix"

// traceArch is the audit arch of the system calls traceSyscalls numbers.
const traceArch = unix.AUDIT_ARCH_AARCH64

// traceX32 is 0: arm64 has no second numbering to catch.
const traceX32 = 0

// traceSyscalls are the system calls that name a path, on arm64, which has
// only the *at forms.
var traceSyscalls = map[uint32]sysPath{
	unix.SYS_OPENAT:     {dirfd: 0, path: 1, flags: 2},
	unix.SYS_OPENAT2:    {dirfd: 0, path: 1, flags: flagsOpenHow},
	unix.SYS_EXECVE:     {dirfd: -1, path: 0, flags: -1, op: Exec},
	unix.SYS_EXECVEAT:   {dirfd: 0, path: 1, flags: -1, op: Exec},
	unix.SYS_NEWFSTATAT: {dirfd: 0, path: 1, flags: -1, op: Stat, fdFlags: 3},
	unix.SYS_STATX:      {dirfd: 0, path: 1, flags: -1, op: Stat, fdFlags: 2},
	unix.SYS_FACCESSAT:  {dirfd: 0, path: 1, flags: -1, op: Stat},
	unix.SYS_FACCESSAT2: {dirfd: 0, path: 1, flags: -1, op: Stat},
	unix.SYS_READLINKAT: {dirfd: 0, path: 1, flags: -1, op: Stat},
	unix.SYS_RENAMEAT:   {dirfd: 0, path: 1, flags: -1, op: Remove, dirfd2: 2, path2: 3},
	unix.SYS_RENAMEAT2:  {dirfd: 0, path: 1, flags: -1, op: Remove, dirfd2: 2, path2: 3},
	unix.SYS_UNLINKAT:   {dirfd: 0, path: 1, flags: -1, op: Remove},
	unix.SYS_MKDIRAT:    {dirfd: 0, path: 1, flags: -1, op: Write},
	unix.SYS_LINKAT:     {dirfd: 0, path: 1, flags: -1, op: Stat, dirfd2: 2, path2: 3},
	unix.SYS_SYMLINKAT:  {dirfd: 1, path: 2, flags: -1, op: Write},
	unix.SYS_TRUNCATE:   {dirfd: -1, path: 0, flags: -1, op: Write},
}

// traceShimMachine is the ELF machine of traceShimCode: EM_AARCH64.
const traceShimMachine = 183
