# The trace shim of vx on Linux amd64: exec/traceshim_linux.go runs it from
# the bytes gen.sh makes of this file. It is started as
#   shim __vx-trace-shim <program> <argv0> <args>...
# with a SOCK_SEQPACKET socket as descriptor 3 on which vx has written the
# seccomp filter (struct sock_filter[]). It reads the filter, sets
# no_new_privs, installs the filter with a new listener, hands the listener
# to vx on descriptor 3 ("ok" with SCM_RIGHTS), closes both and executes the
# program. A failure before the program runs is written to descriptor 3 as
# "err:<what>" and ends the shim with 127. It uses no memory but its stack.
	.text
	.globl _start
_start:
	mov	(%rsp), %r12		# argc
	lea	8(%rsp), %r13		# argv
	lea	16(%rsp,%r12,8), %r14	# envp: argv + argc + 1
	sub	$4352, %rsp		# 0..255 scratch, 256.. the filter
	and	$-16, %rsp
	# n = read(3, filter, 4096), first: a socket closed with unread
	# data resets its peer, which would then not read why
	xor	%eax, %eax
	mov	$3, %edi
	lea	256(%rsp), %rsi
	mov	$4096, %edx
	syscall
	mov	%rax, %r15
	lea	usage(%rip), %rsi
	mov	$usage_len, %edx
	cmp	$4, %r12
	jl	fail
	lea	nofilter(%rip), %rsi
	mov	$nofilter_len, %edx
	cmp	$8, %r15
	jl	fail
	shr	$3, %r15
	# prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	mov	$157, %eax
	mov	$38, %edi
	mov	$1, %esi
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	syscall
	lea	nonewprivs(%rip), %rsi
	mov	$nonewprivs_len, %edx
	test	%rax, %rax
	jnz	fail
	# struct sock_fprog at 0: len, filter
	movq	$0, (%rsp)
	mov	%r15w, (%rsp)
	lea	256(%rsp), %rax
	mov	%rax, 8(%rsp)
	# seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)
	mov	$317, %eax
	mov	$1, %edi
	mov	$8, %esi
	mov	%rsp, %rdx
	syscall
	lea	noseccomp(%rip), %rsi
	mov	$noseccomp_len, %edx
	test	%rax, %rax
	js	fail
	mov	%rax, %rbx		# the listener
	# "ok" at 64; iovec at 16; cmsghdr (SCM_RIGHTS, one descriptor) at 80;
	# msghdr at 112
	movq	$0x6b6f, 64(%rsp)
	lea	64(%rsp), %rax
	mov	%rax, 16(%rsp)
	movq	$2, 24(%rsp)
	movq	$20, 80(%rsp)
	movl	$1, 88(%rsp)
	movl	$1, 92(%rsp)
	mov	%ebx, 96(%rsp)
	movl	$0, 100(%rsp)
	movq	$0, 112(%rsp)
	movq	$0, 120(%rsp)
	lea	16(%rsp), %rax
	mov	%rax, 128(%rsp)
	movq	$1, 136(%rsp)
	lea	80(%rsp), %rax
	mov	%rax, 144(%rsp)
	movq	$24, 152(%rsp)
	movq	$0, 160(%rsp)
send:	# sendmsg(3, &msg, 0), again on EINTR
	mov	$46, %eax
	mov	$3, %edi
	lea	112(%rsp), %rsi
	xor	%edx, %edx
	syscall
	cmp	$-4, %rax
	je	send
	lea	nosend(%rip), %rsi
	mov	$nosend_len, %edx
	test	%rax, %rax
	js	fail
	mov	$3, %eax		# close(listener)
	mov	%rbx, %rdi
	syscall
	mov	$3, %eax		# close(3)
	mov	$3, %edi
	syscall
	# execve(argv[2], argv + 3, envp)
	mov	$59, %eax
	mov	16(%r13), %rdi
	lea	24(%r13), %rsi
	mov	%r14, %rdx
	syscall
	# it failed: "vx: <program>: cannot run it" on stderr, exit 127
	mov	$1, %eax
	mov	$2, %edi
	lea	vx(%rip), %rsi
	mov	$4, %edx
	syscall
	mov	16(%r13), %rsi
	xor	%edx, %edx
len:	cmpb	$0, (%rsi,%rdx)
	je	1f
	inc	%rdx
	jmp	len
1:	mov	$1, %eax
	mov	$2, %edi
	syscall
	mov	$1, %eax
	mov	$2, %edi
	lea	cannot(%rip), %rsi
	mov	$cannot_len, %edx
	syscall
	jmp	exit
fail:	# write(3, what, len)
	mov	$1, %eax
	mov	$3, %edi
	syscall
exit:	mov	$231, %eax		# exit_group(127)
	mov	$127, %edi
	syscall
	hlt

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
