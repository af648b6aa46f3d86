// The trace shim of vx on Linux arm64: what shim_amd64.S does (read it
// first), with the same stack layout.
	.text
	.globl _start
_start:
	ldr	x19, [sp]		// argc
	add	x20, sp, #8		// argv
	add	x21, x20, x19, lsl #3
	add	x21, x21, #8		// envp: argv + argc + 1
	sub	sp, sp, #4096		// 0..255 scratch, 256.. the filter
	sub	sp, sp, #256
	// n = read(3, filter, 4096), first (see shim_amd64.S)
	mov	x0, #3
	add	x1, sp, #256
	mov	x2, #4096
	mov	x8, #63
	svc	#0
	mov	x22, x0
	adr	x1, usage
	mov	x2, #usage_len
	cmp	x19, #4
	b.lt	fail
	adr	x1, nofilter
	mov	x2, #nofilter_len
	cmp	x22, #8
	b.lt	fail
	lsr	x22, x22, #3
	// prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	mov	x0, #38
	mov	x1, #1
	mov	x2, #0
	mov	x3, #0
	mov	x4, #0
	mov	x8, #167
	svc	#0
	adr	x1, nonewprivs
	mov	x2, #nonewprivs_len
	cbnz	x0, fail
	// struct sock_fprog at 0: len, filter
	str	xzr, [sp]
	strh	w22, [sp]
	add	x0, sp, #256
	str	x0, [sp, #8]
	// seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)
	mov	x0, #1
	mov	x1, #8
	mov	x2, sp
	mov	x8, #277
	svc	#0
	adr	x1, noseccomp
	mov	x2, #noseccomp_len
	tbnz	x0, #63, fail
	mov	x23, x0			// the listener
	// "ok" at 64; iovec at 16; cmsghdr (SCM_RIGHTS, one descriptor) at 80;
	// msghdr at 112
	mov	x0, #0x6b6f
	str	x0, [sp, #64]
	add	x0, sp, #64
	str	x0, [sp, #16]
	mov	x0, #2
	str	x0, [sp, #24]
	mov	x0, #20
	str	x0, [sp, #80]
	mov	w0, #1
	str	w0, [sp, #88]
	str	w0, [sp, #92]
	str	w23, [sp, #96]
	str	wzr, [sp, #100]
	str	xzr, [sp, #112]
	str	xzr, [sp, #120]
	add	x0, sp, #16
	str	x0, [sp, #128]
	mov	x0, #1
	str	x0, [sp, #136]
	add	x0, sp, #80
	str	x0, [sp, #144]
	mov	x0, #24
	str	x0, [sp, #152]
	str	xzr, [sp, #160]
send:	// sendmsg(3, &msg, 0), again on EINTR
	mov	x0, #3
	add	x1, sp, #112
	mov	x2, #0
	mov	x8, #211
	svc	#0
	cmn	x0, #4
	b.eq	send
	adr	x1, nosend
	mov	x2, #nosend_len
	tbnz	x0, #63, fail
	mov	x0, x23			// close(listener)
	mov	x8, #57
	svc	#0
	mov	x0, #3			// close(3)
	mov	x8, #57
	svc	#0
	// execve(argv[2], argv + 3, envp)
	ldr	x0, [x20, #16]
	add	x1, x20, #24
	mov	x2, x21
	mov	x8, #221
	svc	#0
	// it failed: "vx: <program>: cannot run it" on stderr, exit 127
	mov	x0, #2
	adr	x1, vx
	mov	x2, #4
	mov	x8, #64
	svc	#0
	ldr	x1, [x20, #16]
	mov	x2, #0
len:	ldrb	w3, [x1, x2]
	cbz	w3, 1f
	add	x2, x2, #1
	b	len
1:	mov	x0, #2
	mov	x8, #64
	svc	#0
	mov	x0, #2
	adr	x1, cannot
	mov	x2, #cannot_len
	mov	x8, #64
	svc	#0
	b	exit
fail:	// write(3, what, len)
	mov	x0, #3
	mov	x8, #64
	svc	#0
exit:	mov	x0, #127		// exit_group(127)
	mov	x8, #94
	svc	#0
	brk	#0

usage:	.ascii "err:the trace shim needs a program and its argv"
	.set usage_len, . - usage
nofilter:	.ascii "err:the trace shim got no filter"
	.set nofilter_len, . - nofilter
nonewprivs:	.ascii "err:no_new_privs could not be set"
	.set nonewprivs_len, . - nonewprivs
noseccomp:	.ascii "err:seccomp user notification is not available here"
	.set noseccomp_len, . - noseccomp
nosend:	.ascii "err:handing the listener to vx failed"
	.set nosend_len, . - nosend
vx:	.ascii "vx: "
cannot:	.ascii ": cannot run it\n"
	.set cannot_len, . - cannot
