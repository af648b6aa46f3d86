package exec

import "golang.org/x/sys/unix"

// traceArch is the audit arch of the system calls traceSyscalls numbers.
const traceArch = unix.AUDIT_ARCH_X86_64

// traceX32 is the bit that marks an x32 system call, which the filter
// reports whatever its number (the numbers below would not match it).
const traceX32 = 0x40000000

// traceSyscalls are the system calls that name a path, on amd64: the old
// path-only calls beside the *at ones.
var traceSyscalls = map[uint32]sysPath{
	unix.SYS_OPEN:       {dirfd: -1, path: 0, flags: 1},
	unix.SYS_CREAT:      {dirfd: -1, path: 0, flags: -1, op: Write},
	unix.SYS_OPENAT:     {dirfd: 0, path: 1, flags: 2},
	unix.SYS_OPENAT2:    {dirfd: 0, path: 1, flags: flagsOpenHow},
	unix.SYS_EXECVE:     {dirfd: -1, path: 0, flags: -1, op: Exec},
	unix.SYS_EXECVEAT:   {dirfd: 0, path: 1, flags: -1, op: Exec},
	unix.SYS_STAT:       {dirfd: -1, path: 0, flags: -1, op: Stat},
	unix.SYS_LSTAT:      {dirfd: -1, path: 0, flags: -1, op: Stat},
	unix.SYS_NEWFSTATAT: {dirfd: 0, path: 1, flags: -1, op: Stat, fdFlags: 3},
	unix.SYS_STATX:      {dirfd: 0, path: 1, flags: -1, op: Stat, fdFlags: 2},
	unix.SYS_ACCESS:     {dirfd: -1, path: 0, flags: -1, op: Stat},
	unix.SYS_FACCESSAT:  {dirfd: 0, path: 1, flags: -1, op: Stat},
	unix.SYS_FACCESSAT2: {dirfd: 0, path: 1, flags: -1, op: Stat},
	unix.SYS_READLINK:   {dirfd: -1, path: 0, flags: -1, op: Stat},
	unix.SYS_READLINKAT: {dirfd: 0, path: 1, flags: -1, op: Stat},
	unix.SYS_RENAME:     {dirfd: -1, path: 0, flags: -1, op: Remove, dirfd2: -1, path2: 1},
	unix.SYS_RENAMEAT:   {dirfd: 0, path: 1, flags: -1, op: Remove, dirfd2: 2, path2: 3},
	unix.SYS_RENAMEAT2:  {dirfd: 0, path: 1, flags: -1, op: Remove, dirfd2: 2, path2: 3},
	unix.SYS_UNLINK:     {dirfd: -1, path: 0, flags: -1, op: Remove},
	unix.SYS_UNLINKAT:   {dirfd: 0, path: 1, flags: -1, op: Remove},
	unix.SYS_RMDIR:      {dirfd: -1, path: 0, flags: -1, op: Remove},
	unix.SYS_MKDIR:      {dirfd: -1, path: 0, flags: -1, op: Write},
	unix.SYS_MKDIRAT:    {dirfd: 0, path: 1, flags: -1, op: Write},
	unix.SYS_LINK:       {dirfd: -1, path: 0, flags: -1, op: Stat, dirfd2: -1, path2: 1},
	unix.SYS_LINKAT:     {dirfd: 0, path: 1, flags: -1, op: Stat, dirfd2: 2, path2: 3},
	unix.SYS_SYMLINK:    {dirfd: -1, path: 1, flags: -1, op: Write},
	unix.SYS_SYMLINKAT:  {dirfd: 1, path: 2, flags: -1, op: Write},
	unix.SYS_TRUNCATE:   {dirfd: -1, path: 0, flags: -1, op: Write},
}

// traceShimMachine is the ELF machine of traceShimCode: EM_X86_64.
const traceShimMachine = 62
