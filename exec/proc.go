package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Spec describes one task's script run by [Start].
type Spec struct {
	// Script is the package.json script: shell code, run by sh on POSIX
	// and by cmd.exe on Windows (see [Resolve]).
	Script string
	// Program, when not empty, is a program to start directly, without a
	// shell, in place of Script: a path (vx's helpers, node), looked up
	// like a name holding a separator in [LookPath]. Args are its
	// arguments.
	Program string
	// Args are the extra arguments (those after "--"), appended to the
	// script quoted so that each reaches the program as one argument.
	Args []string
	// Dir is the working directory of the child, an absolute path; empty
	// means vx's own.
	Dir string
	// Env is the complete environment of the child, KEY=VALUE entries,
	// already built; nothing of vx's own environment is added (a nil Env is
	// an empty environment, not vx's). The shell is looked up in the PATH
	// of this env (on Windows ComSpec from it first), never in vx's.
	Env []string
	// Stdin, Stdout and Stderr are the child's standard streams; nil means
	// the null device. An [*os.File] is handed to the child as it is (the
	// way to give a task vx's terminal); any other value is fed through a
	// pipe, and Wait returns once the task's tree is gone even if a stray
	// process still holds that pipe.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Foreground (Unix) gives the terminal to the task: its process group
	// becomes the terminal's foreground group, so Ctrl-C reaches the task's
	// processes once (vx does not receive it) and interactive tools can
	// read the terminal. Wait gives the terminal back to vx's group. It
	// applies only when one of the standard streams is a terminal whose
	// foreground group is vx's own; otherwise, and on Windows, it is
	// ignored. Meant for single-task runs.
	Foreground bool
	// Grace is how long the tree has, once the context given to [Start] is
	// done, between the polite signal and [Process.Kill]; 0 kills at once
	// after the signal.
	Grace time.Duration
	// Shells, when not nil, remembers the files checked while looking for
	// the shell; a run shares one across its tasks (see [ShellCache]).
	Shells *ShellCache
	// TraceShim, when not empty, traces the task: the task's program is
	// started through a shim so that every process of its tree is
	// observed, and [Result.Trace] says what they did with files. The
	// shim is a few hundred bytes of machine code Start keeps in a sealed
	// memory file; where that cannot run, it is TraceShim: the path of a
	// program that calls [RunTraceShim] when its first argument is
	// [TraceShimArg] (vx itself). Linux (amd64, arm64) only: elsewhere
	// Start returns [ErrTraceUnsupported].
	TraceShim string
}

// A ShellCache remembers, for each file [Resolve] checked while looking for
// the shell, whether it may be run, so that a run of many tasks checks each
// file once instead of once per task. The tasks' PATHs differ only in their
// first entries (the project's node_modules/.bin), which seldom hold a shell,
// and each check is a system call: with a cache, a task costs one check
// instead of one per PATH entry. A shell put in a PATH directory while the
// run goes on is therefore not seen by later tasks of the run. The lookup of
// a script's first word (the Windows batch-file decision) is never
// remembered: a task may install the program another task calls. The zero
// value is ready to use; it is safe for concurrent use.
type ShellCache struct {
	mu      sync.Mutex
	checked map[string]error // candidate path -> nil (may run) or why not
}

// lookPath is lookPath for the shell, through the cache when there is one.
func (c *ShellCache) lookPath(shell string, env []string, goos string, isExec func(string) error) (string, error) {
	if c == nil {
		return lookPath(shell, "", env, goos, isExec)
	}
	return lookPath(shell, "", env, goos, func(path string) error {
		c.mu.Lock()
		err, ok := c.checked[path]
		c.mu.Unlock()
		if !ok {
			err = isExec(path)
			c.mu.Lock()
			if c.checked == nil {
				c.checked = map[string]error{}
			}
			c.checked[path] = err
			c.mu.Unlock()
		}
		return err
	})
}

// Interrupt is the cause to cancel a [Start] context with (see
// [context.WithCancelCause]) when vx itself received a signal: the task's
// tree gets that signal, once. SIGPIPE, which says that vx's own output is
// gone rather than how tasks should stop, becomes SIGTERM; so does any other
// cause.
type Interrupt struct{ Signal os.Signal }

func (i *Interrupt) Error() string { return fmt.Sprintf("exec: interrupted by %v", i.Signal) }

// CauseSignal returns the signal named by the cause of ctx (an [*Interrupt]
// in its chain), or nil when ctx is not done or was cancelled otherwise.
func CauseSignal(ctx context.Context) os.Signal {
	var in *Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in.Signal
	}
	return nil
}

// Result is how a task ended.
type Result struct {
	// ExitCode is the shell's exit status, or 128+N when it was killed by
	// signal N (130 for SIGINT, 143 for SIGTERM, 137 for SIGKILL), as shells
	// report it. On Windows, a tree ended by [Process.Kill] gives 137 and one
	// ended by CTRL_BREAK (STATUS_CONTROL_C_EXIT) gives 130.
	ExitCode int
	// Signal names the signal that killed the shell ("SIGINT"), or is "".
	// On Windows it is "SIGKILL" after Kill and "SIGINT" for
	// STATUS_CONTROL_C_EXIT.
	Signal string
	// TerminalStop names the signal, SIGTTIN or SIGTTOU, that stopped a
	// task which tried to use a terminal it does not own (not a
	// Foreground task): vx ended its tree rather than wait forever (Linux).
	TerminalStop string
	// Trace is what the tree did with files, for a traced Spec; nil
	// otherwise.
	Trace *Trace
}

// Process is a running task: its shell and everything the shell starts,
// kept together in a process group (Unix) or a job object (Windows).
//
// It exists, rather than a plain os/exec.Cmd with CommandContext, Cancel
// and WaitDelay, because vx must end a task's whole tree, including what
// the shell left running after it exited, and Cmd knows only the one
// process it started: its Cancel cannot reach the tree once the shell is
// gone, and its Wait either waits forever for a pipe a stray holds or
// abandons the copy with the stray still running.
type Process struct {
	cmd *osexec.Cmd
	os  procOS // per-OS state

	// leftoverGrace is how long processes left behind by the shell get
	// between SIGTERM and SIGKILL; pipeGrace how long Wait waits, once the
	// tree is gone, for output pipes still held by processes that left it.
	leftoverGrace, pipeGrace time.Duration

	stdinW  *os.File   // parent end of the stdin pipe, or nil
	closers []*os.File // child ends, closed in the parent after start
	readers []*os.File // parent ends of output pipes
	copiers sync.WaitGroup

	mu        sync.Mutex
	done      bool // the tree is gone: Signal and Kill must not touch the ids
	killed    bool // Kill was called
	signalled bool // Signal was called: the tree already had its polite signal
	copyErr   error
	writing   atomic.Int32 // copiers in a Write to their destination
	moved     atomic.Int64 // bytes the copiers have read from the pipes
	// terminalStop names the signal (SIGTTIN, SIGTTOU) that stopped a
	// task that does not own the terminal, when its tree was ended for it.
	terminalStop string

	tracer *tracer // the supervisor of a traced task, or nil

	once   sync.Once
	result Result
	err    error
	exited chan struct{} // closed once the tree is gone; ends the context watch
}

// Default time allowances of Wait, see Process; strayCheck is how long
// Wait lets output pipes drain, once the tree is gone, before it looks for
// processes outside the tree that hold them.
const (
	defaultLeftoverGrace = 2 * time.Second
	defaultPipeGrace     = 2 * time.Second
	strayCheck           = 200 * time.Millisecond
)

// Resolve returns the program [Start] runs for spec and its argument list,
// argv[0] being the program's path: the shell found in the child's PATH (on
// Windows the child's ComSpec, or cmd.exe found in its PATH when ComSpec is
// unset or empty) and the script with the arguments quoted for it, the way
// npm runs a script:
//
//   - on every OS but Windows: {sh, "-c", line}, line being the script
//     followed by each argument, single-quoted unless it is made only of
//     characters no POSIX shell treats specially;
//   - on Windows: {cmd.exe, "/d", "/e:ON", "/v:OFF", "/s", "/c",
//     `"` + line + `"`}, the verbatim command line; each argument is quoted for
//     CommandLineToArgvW, its cmd.exe metacharacters escaped with ^ (twice
//     when the script's first word, looked up in the child's PATH and Dir,
//     is a batch file) and each % written %%cd:~,% (see shellCommand). An
//     argument holding a line break is an error: cmd.exe cannot pass it.
//
// A spec with a Program starts it as it is: {program, args...}, each
// argument quoted for CommandLineToArgvW on Windows.
//
// Use it to show what would run.
func Resolve(spec Spec) (path string, argv []string, err error) {
	return resolve(spec, runtime.GOOS, isExecutable)
}

func resolve(spec Spec, goos string, isExec func(string) error) (string, []string, error) {
	win := goos == "windows"
	if spec.Program != "" {
		path, err := lookPath(spec.Program, "", spec.Env, goos, isExec)
		if err != nil {
			return "", nil, err
		}
		argv := []string{path}
		for _, a := range spec.Args {
			if win {
				a = shQuoteArgv(a) // the command line is these, joined by spaces
			}
			argv = append(argv, a)
		}
		return path, argv, nil
	}
	batch := false
	if win {
		if err := shCmdArgError(spec.Args); err != nil {
			return "", nil, err
		}
		word := shFirstWord(spec.Script)
		found, err := lookPath(word, spec.Dir, spec.Env, goos, isExec)
		if err != nil {
			found = word
		}
		batch = shIsBatch(found)
	}
	shell, argv := shellCommand(spec.Script, spec.Args, goos, batch)
	if win {
		if cs := lpGetenv(spec.Env, "ComSpec", true); cs != "" {
			shell = cs
		}
	}
	path, err := spec.Shells.lookPath(shell, spec.Env, goos, isExec)
	if err != nil {
		return "", nil, err
	}
	argv[0] = path
	return path, argv, nil
}

// Start runs spec's script in a new process group (Unix; on Linux the shell
// also gets SIGKILL if vx dies) or a new job object that kills its
// processes when vx exits (Windows), and returns without waiting. Lookup
// errors are [*os/exec.Error] values (see [LookPath]).
//
// ctx cancels the task the way os/exec's CommandContext, Cancel and
// WaitDelay do, but for the whole tree: when ctx is done before the tree is
// gone, the tree gets the signal [CauseSignal] names (SIGTERM when there is
// none, or for SIGPIPE), once, and is killed spec.Grace later if any of it
// is still alive. A ctx already done when Start is called starts nothing
// and returns its cause.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	path, argv, err := Resolve(spec)
	if err != nil {
		return nil, err
	}
	env := spec.Env
	if env == nil {
		env = []string{}
	}
	p := &Process{
		cmd:           &osexec.Cmd{Path: path, Args: argv, Env: env, Dir: spec.Dir},
		leftoverGrace: defaultLeftoverGrace,
		pipeGrace:     defaultPipeGrace,
		exited:        make(chan struct{}),
	}
	if err := p.pipes(spec); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("exec: start %q: %w", spec.what(), err)
	}
	if spec.TraceShim != "" {
		if err := p.traceSetup(spec); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	if err := p.startOS(spec); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("exec: start %q in %q: %w", spec.what(), spec.Dir, err)
	}
	for _, f := range p.closers {
		f.Close()
	}
	p.closers = nil
	if p.tracer != nil {
		if err := p.tracer.begin(); err != nil {
			p.Kill()
			p.Wait()
			return nil, err
		}
	}
	if p.stdinW != nil {
		go func(w *os.File, r io.Reader) {
			io.Copy(w, r) // an error means the child stopped reading
			w.Close()
		}(p.stdinW, spec.Stdin)
	}
	if ctx.Done() != nil {
		go p.watch(ctx, spec.Grace)
	}
	return p, nil
}

// what names what spec starts, for errors.
func (spec Spec) what() string {
	if spec.Program != "" {
		return spec.Program
	}
	return spec.Script
}

// Argv returns what was started: the program found in the task's PATH (the
// shell) and its arguments (traced, not the shim in front of them).
func (p *Process) Argv() []string {
	args := p.cmd.Args
	if p.tracer != nil {
		args = args[3:] // the shim, TraceShimArg, the program's path
	}
	return append([]string(nil), args...)
}

// watch ends the tree when ctx is done: the polite signal, then Kill after
// grace unless the tree is gone by then.
func (p *Process) watch(ctx context.Context, grace time.Duration) {
	select {
	case <-ctx.Done():
	case <-p.exited:
		return
	}
	p.Signal(politeSignal(CauseSignal(ctx)))
	if grace <= 0 {
		p.Kill()
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
		p.Kill()
	case <-p.exited:
	}
}

// pipes connects the standard streams, making pipes for those that are not
// files.
func (p *Process) pipes(spec Spec) error {
	switch in := spec.Stdin.(type) {
	case nil:
	case *os.File:
		p.cmd.Stdin = in
	default:
		r, w, err := os.Pipe()
		if err != nil {
			return err
		}
		p.cmd.Stdin, p.stdinW = r, w
		p.closers = append(p.closers, r)
	}
	out, err := p.output(spec.Stdout)
	if err != nil {
		return err
	}
	p.cmd.Stdout = out
	if spec.Stderr != nil && sameWriter(spec.Stdout, spec.Stderr) {
		p.cmd.Stderr = out
		return nil
	}
	errw, err := p.output(spec.Stderr)
	p.cmd.Stderr = errw
	return err
}

// output returns what the child writes to for w: w itself when it is a
// file, else the write end of a pipe copied to w until every holder has
// closed it.
func (p *Process) output(w io.Writer) (io.Writer, error) {
	switch w := w.(type) {
	case nil:
		return nil, nil
	case *os.File:
		return w, nil
	}
	r, cw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.closers = append(p.closers, cw)
	p.readers = append(p.readers, r)
	p.copiers.Add(1)
	go p.copy(w, r)
	return cw, nil
}

// copy moves the child's output to w. After a write error it keeps reading
// (and discards) so the child never blocks on a full pipe; the first error
// is returned by Wait.
func (p *Process) copy(w io.Writer, r *os.File) {
	defer p.copiers.Done()
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var werr error
	for {
		n, err := r.Read(buf)
		p.moved.Add(int64(n))
		if n > 0 && werr == nil {
			p.writing.Add(1)
			_, werr = w.Write(buf[:n])
			p.writing.Add(-1)
			if werr != nil {
				p.mu.Lock()
				if p.copyErr == nil {
					p.copyErr = fmt.Errorf("exec: writing output: %w", werr)
				}
				p.mu.Unlock()
			}
		}
		if err != nil {
			return
		}
	}
}

// delivering reports whether a copier is passing output on: writing to
// its destination now, or starting to within a short look (a copier that
// keeps up with a slow destination spends nearly all its time writing, and
// reads the next piece at once).
func (p *Process) delivering() bool {
	for range 10 {
		if p.writing.Load() > 0 {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// copyBufs holds the buffers of copy: a run of many short tasks would
// otherwise allocate (and zero) 32 KiB per stream per task.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// sameWriter reports whether a and b are the same writer, without
// panicking on types that cannot be compared.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func (p *Process) closeAll() {
	for _, f := range p.closers {
		f.Close()
	}
	for _, f := range p.readers {
		f.Close()
	}
	if p.stdinW != nil {
		p.stdinW.Close()
	}
	p.copiers.Wait()
}

// Pid returns the process id of the task's shell; on Unix it is also the id
// of the task's process group.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to every process of the task's tree. Unix: kill(-pgid,
// sig) on the task's process group. Windows: os.Interrupt and SIGTERM send
// CTRL_BREAK_EVENT to the task's process group, which shares vx's console;
// when that is impossible (no console) the job is terminated, as for
// os.Kill and SIGKILL, which call Kill; other signals are refused. After the
// tree is gone Signal returns [os.ErrProcessDone].
func (p *Process) Signal(sig os.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return os.ErrProcessDone
	}
	p.signalled = true
	return p.signalOS(sig)
}

// Kill ends every process of the task's tree at once: SIGKILL to the
// process group (Unix), TerminateJobObject (Windows). After the tree is
// gone it returns [os.ErrProcessDone].
func (p *Process) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return os.ErrProcessDone
	}
	p.killed = true
	return p.killOS()
}

// Wait waits for the task's shell to exit, then ends what the shell left
// running in its tree (SIGTERM, then SIGKILL after a short grace on Unix;
// CTRL_BREAK, then TerminateJobObject on Windows), then waits for the
// output copies to finish: it returns once nothing of the task is left,
// even if a stray process keeps a pipe open. Output still being passed on
// to a slow Stdout or Stderr (vx run | less, paused) is waited for, however
// long: the pipe grace ends only copies that have nothing to pass on. The
// error is non-nil only when
// waiting failed or output could not be written to Stdout or Stderr; the
// exit status is never an error. Calling Wait again returns the same.
func (p *Process) Wait() (Result, error) {
	p.once.Do(func() { p.result, p.err = p.wait() })
	return p.result, p.err
}

func (p *Process) wait() (Result, error) {
	werr := p.cmd.Wait()
	state := p.cmd.ProcessState
	p.leaderExited()
	p.endTree()
	p.mu.Lock()
	p.done = true
	killed := p.killed
	p.mu.Unlock()
	close(p.exited)
	p.release()

	copied := make(chan struct{})
	go func() { p.copiers.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-time.After(strayCheck):
		// The tree is gone, yet an output pipe is still open: a process
		// that left the task's group (setsid, a daemon) holds it. It is
		// the task's all the same; where it can be found, end it as the
		// tree's leftovers were ended, so that the task is done when its
		// own processes are, not after the pipe grace with the stray
		// still running.
		if strays := pipeHolders(p.readers); len(strays) > 0 {
			endStrays(strays, p.leftoverGrace)
		}
		moved := p.moved.Load()
	grace:
		for {
			select {
			case <-copied:
			case <-time.After(p.pipeGrace):
				if p.delivering() || p.moved.Load() != moved {
					// Not a stray holding the pipe: the output is still
					// being passed on, to a reader downstream slower than
					// the task (vx run | less, paused), or the copy is
					// still draining what the task wrote (a loaded
					// machine, a run whose output lock is busy). Closing
					// now would lose what the pipe still holds.
					moved = p.moved.Load()
					continue
				}
				for _, r := range p.readers {
					r.Close()
				}
				<-copied
			}
			break grace
		}
	}
	for _, r := range p.readers {
		r.Close()
	}
	if p.stdinW != nil {
		p.stdinW.Close()
	}

	var trace *Trace
	if p.tracer != nil {
		trace = p.tracer.end()
	}
	if state == nil {
		return Result{ExitCode: -1, Trace: trace}, fmt.Errorf("exec: wait: %w", werr)
	}
	res := exitResult(state, killed)
	res.Trace = trace
	var exitErr *osexec.ExitError
	if werr != nil && !errors.As(werr, &exitErr) {
		return res, fmt.Errorf("exec: wait: %w", werr)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	res.TerminalStop = p.terminalStop
	return res, p.copyErr
}

// endTree ends what the shell left behind: a polite signal, a grace
// period, then the hard kill, and a last short wait for the kernel. A tree
// that was already sent a signal (Signal) is not sent another: each
// process of a task sees vx's relay once, then only the kill.
func (p *Process) endTree() {
	if !p.treeAlive() {
		return
	}
	p.mu.Lock()
	if !p.signalled {
		p.terminateTree()
	}
	p.mu.Unlock()
	if p.awaitTree(p.leftoverGrace) {
		return
	}
	p.mu.Lock()
	p.killTree()
	p.mu.Unlock()
	p.awaitTree(time.Second)
}

// awaitTree polls until the tree is gone or d has passed, and reports
// whether it is gone.
func (p *Process) awaitTree(d time.Duration) bool {
	deadline := time.Now().Add(d)
	pause := time.Millisecond
	for p.treeAlive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
	return true
}

// politeSignal is the signal a tree gets when its context is done because
// of sig (nil: cancelled without a signal).
func politeSignal(sig os.Signal) os.Signal {
	if sig == nil || sig == syscall.SIGPIPE {
		return syscall.SIGTERM
	}
	return sig
}
