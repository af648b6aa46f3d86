//go:build linux && (amd64 || arm64)

package exec

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

func init() {
	// threads: opens each file named in args from its own goroutine, the
	// Go runtime spreading them over threads; a static binary.
	registerHelper("trace-threads", func(args []string) int {
		done := make(chan struct{})
		for _, a := range args {
			go func() {
				if f, err := os.Open(a); err == nil {
					f.Close()
				}
				done <- struct{}{}
			}()
		}
		for range args {
			<-done
		}
		return 0
	})
}

// traced runs script traced in dir and returns what it did with the files
// under dir, relative to it.
func traced(t *testing.T, dir, script string, env ...string) (map[string]Access, *Trace) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env = append(env, "PATH="+os.Getenv("PATH"))
	p := startT(t, Spec{Script: script, Dir: dir, Env: env, TraceShim: self, Stderr: os.Stderr, Stdout: os.Stderr})
	res, err := waitWithin(t, p)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%q: exit %d, %v", script, res.ExitCode, err)
	}
	if res.Trace == nil {
		t.Fatal("no trace in the result of a traced task")
	}
	got := map[string]Access{}
	for p, a := range res.Trace.Files {
		if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
			got[rel] = a
		}
	}
	return got, res.Trace
}

func traceDir(t *testing.T, files ...string) string {
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTraceSyscallFamilies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  []string
		script string
		want   map[string]Access
	}{
		{"read", []string{"in.txt"}, "cat in.txt >/dev/null",
			map[string]Access{"in.txt": Read | ReadFirst}},
		{"write", nil, "echo x > out.txt",
			map[string]Access{"out.txt": Write}},
		{"read after write", nil, "echo x > out.txt; cat out.txt >/dev/null",
			map[string]Access{"out.txt": Write | Read}},
		{"read before write", []string{"out.txt"}, "cat out.txt >/dev/null; echo x > out.txt",
			map[string]Access{"out.txt": Read | ReadFirst | Write}},
		{"stat", []string{"a"}, "test -e a && test -e missing || true",
			map[string]Access{"a": Stat, "missing": Stat}},
		{"rename and remove", []string{"a", "c"}, "mv a b && rm c",
			map[string]Access{"a": Remove, "b": Write, "c": Remove}},
		{"mkdir", nil, "mkdir d",
			map[string]Access{"d": Write}},
		{"relative to cwd", []string{"in.txt", "sub/x"}, "cd sub && cat ../in.txt >/dev/null",
			map[string]Access{"in.txt": Read | ReadFirst}},
		{"exec", []string{"run.sh", "in"}, "chmod +x run.sh; printf '#!/bin/sh\\ncat in >/dev/null 2>&1\\n' > run.sh; ./run.sh",
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := traceDir(t, tc.files...)
			got, _ := traced(t, dir, tc.script)
			if tc.want == nil {
				if got["run.sh"]&Exec == 0 || got["in"]&Read == 0 {
					t.Errorf("exec: run.sh %v, in %v: want run.sh executed and in read", got["run.sh"], got["in"])
				}
				return
			}
			// mv and rm stat their operands first; keep only what the
			// case is about.
			for k, v := range got {
				if _, ok := tc.want[k]; !ok {
					t.Logf("also: %s %b", k, v)
					delete(got, k)
				}
			}
			if tc.name != "stat" {
				for k := range got {
					got[k] &^= Stat
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("accesses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTraceNothingEscapes: what a task's tree does is seen however its
// processes came to be.
func TestTraceNothingEscapes(t *testing.T) {
	self, _ := os.Executable()
	cases := []struct {
		name, script string
		env          []string
		read         []string
	}{
		{"double fork", "sh -c '(cat a >/dev/null &)'; sleep 0.3", nil, []string{"a"}},
		{"setsid daemon", "setsid sh -c 'cat a >/dev/null' & wait", nil, []string{"a"}},
		{"threads in a static binary", self + " a b c", []string{helperEnv + "=trace-threads"}, []string{"a", "b", "c"}},
	}
	if py, err := exec.LookPath("python3"); err == nil {
		cases = append(cases, struct {
			name, script string
			env          []string
			read         []string
		}{"posix_spawn (vfork)", py + ` -c 'import os; pid = os.posix_spawn("/bin/cat", ["cat", "a"], {}); os.waitpid(pid, 0)' >/dev/null`, nil, []string{"a"}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := traceDir(t, "a", "b", "c")
			got, _ := traced(t, dir, tc.script, tc.env...)
			for _, f := range tc.read {
				if got[f]&Read == 0 {
					t.Errorf("%s: not seen read (got %v)", f, got)
				}
			}
		})
	}
}

func TestTraceSetuidIsNoted(t *testing.T) {
	su := "/bin/su"
	if fi, err := os.Stat(su); err != nil || fi.Mode()&os.ModeSetuid == 0 {
		t.Skip("trace: skipped TestTraceSetuidIsNoted: no setuid /bin/su here")
	}
	_, tr := traced(t, t.TempDir(), su+" --help >/dev/null 2>&1; true")
	if !strings.Contains(strings.Join(tr.Notes, "\n"), "setuid") {
		t.Errorf("notes %q: want one about the setuid program", tr.Notes)
	}
}

// TestTraceKilledTaskLeavesNothing: a traced task ended mid-run leaves no
// process behind, and Wait returns.
func TestTraceKilledTaskLeavesNothing(t *testing.T) {
	self, _ := os.Executable()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, Spec{Script: "while :; do cat /dev/null; done & sleep 30", Dir: dir,
		Env: []string{"PATH=" + os.Getenv("PATH")}, TraceShim: self, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	pgid := p.Pid()
	cancel()
	res, _ := waitWithin(t, p)
	if res.Trace == nil || len(res.Trace.Files) == 0 {
		t.Errorf("trace of the killed task: %v, want what it did before", res.Trace)
	}
	if linuxGroupAlive(pgid) {
		t.Errorf("a process of the traced task's group %d is still alive", pgid)
	}
}

// TestTraceManyAtOnce: traced tasks started together all start and end
// (the hand-over of the listener once lost a task to Go's own signals).
func TestTraceManyAtOnce(t *testing.T) {
	self, _ := os.Executable()
	dir := traceDir(t, "a")
	const n = 24
	errs := make(chan error, n)
	for range n {
		go func() {
			p, err := Start(context.Background(), Spec{Script: "cat a >/dev/null", Dir: dir,
				Env: []string{"PATH=" + os.Getenv("PATH")}, TraceShim: self})
			if err != nil {
				errs <- err
				return
			}
			res, err := p.Wait()
			if err == nil && (res.ExitCode != 0 || res.Trace.Files[filepath.Join(dir, "a")]&Read == 0) {
				err = fmt.Errorf("exit %d, trace %v", res.ExitCode, res.Trace.Files)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// BenchmarkStartWaitTraced is BenchmarkStartWait traced: the fixed cost
// tracing adds to a task (the shim's start, the calls of sh's own start).
func BenchmarkStartWaitTraced(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	var out strings.Builder
	for b.Loop() {
		p, err := Start(context.Background(), Spec{Script: "true", Env: env, Stdout: &out, Stderr: &out, TraceShim: self})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := p.Wait(); err != nil || res.ExitCode != 0 {
			b.Fatalf("Wait() = %+v, %v", res, err)
		}
	}
}

func init() {
	// fdstat: looks at descriptor 0 n times with newfstatat and statx
	// given AT_EMPTY_PATH, as glibc's and libuv's fstat do.
	registerHelper("trace-fdstat", func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		for range n {
			var st unix.Stat_t
			var stx unix.Statx_t
			if unix.Fstatat(0, "", &st, unix.AT_EMPTY_PATH) != nil || unix.Statx(0, "", unix.AT_EMPTY_PATH, unix.STATX_BASIC_STATS, &stx) != nil {
				return 1
			}
		}
		return 0
	})
}

// TestTraceFdStatIsNotNotified: a stat of a descriptor (AT_EMPTY_PATH)
// does not stop the process for vx, and a stat of a path still does.
func TestTraceFdStatIsNotNotified(t *testing.T) {
	self, _ := os.Executable()
	dir := traceDir(t, "a")
	const n = 200
	p := startT(t, Spec{Script: self + " " + strconv.Itoa(n) + " && test -e a", Dir: dir,
		Env: []string{"PATH=" + os.Getenv("PATH"), helperEnv + "=trace-fdstat"}, TraceShim: self})
	res, err := waitWithin(t, p)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exit %d, %v", res.ExitCode, err)
	}
	if p.tracer.calls >= n {
		t.Errorf("%d notified calls for %d stats of a descriptor and a program's start: want them not notified", p.tracer.calls, 2*n)
	}
	if res.Trace.Files[filepath.Join(dir, "a")]&Stat == 0 {
		t.Errorf("the stat of a path was not seen: %v", res.Trace.Files)
	}
}

// TestTraceShimFallback: where the machine-code shim cannot be used, vx
// itself is the shim, and sees the same.
func TestTraceShimFallback(t *testing.T) {
	traceFastShim = false
	t.Cleanup(func() { traceFastShim = true })
	dir := traceDir(t, "a")
	got, _ := traced(t, dir, "cat a >/dev/null")
	if got["a"]&Read == 0 {
		t.Errorf("a: not seen read through vx's own shim (got %v)", got)
	}
}

// TestTraceShimIsMachineCode: on Linux the shim is the few hundred bytes
// of traceShimCode, not vx started again.
func TestTraceShimIsMachineCode(t *testing.T) {
	if fastTraceShim() == "" {
		t.Fatalf("the machine-code shim cannot be used here: %v", fastShim.err)
	}
	f, err := elf.NewFile(bytes.NewReader(traceShimELF(traceShimCode, traceShimMachine)))
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != elf.ET_EXEC || f.Machine != elf.Machine(traceShimMachine) || len(f.Progs) != 2 ||
		f.Entry != f.Progs[0].Vaddr+64+2*56 || f.Progs[0].Filesz != uint64(64+2*56+len(traceShimCode)) {
		t.Errorf("ELF header: %+v, programs %+v", f.FileHeader, f.Progs)
	}
}

// TestTraceShimProtocol: both shims, the machine code and vx's own, speak
// the same to vx on descriptor 3: "err:<what>" and exit 127 when they
// cannot trace; "ok" with the listener, then the program, whose failure
// to start is a line on stderr and exit 127.
func TestTraceShimProtocol(t *testing.T) {
	self, _ := os.Executable()
	shims := map[string]string{"machine code": fastTraceShim(), "vx": self}
	cases := []struct {
		name       string
		args       []string
		filter     bool
		wantMsg    string
		wantStderr string
	}{
		{"no argv", []string{"/bin/true"}, true, "err:the trace shim needs a program and its argv", ""},
		{"no filter", []string{"/bin/true", "true"}, false, "err:the trace shim got no filter", ""},
		{"the program cannot run", []string{"/nonexistent/x", "x"}, true, "ok", "vx: /nonexistent/x: "},
	}
	for name, shim := range shims {
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				vx, child := os.NewFile(uintptr(fds[0]), "vx"), os.NewFile(uintptr(fds[1]), "shim")
				defer vx.Close()
				if tc.filter {
					vx.Write(traceFilterBytes())
				} else {
					unix.Shutdown(fds[0], unix.SHUT_WR) // the shim reads nothing
				}
				var stderr strings.Builder
				cmd := &exec.Cmd{Path: shim, Args: append([]string{shim, TraceShimArg}, tc.args...),
					ExtraFiles: []*os.File{child}, Stderr: &stderr}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				child.Close()
				buf, oob := make([]byte, 512), make([]byte, unix.CmsgSpace(4))
				n, oobn, _, _, err := unix.Recvmsg(int(vx.Fd()), buf, oob, 0)
				if err != nil {
					t.Fatal(err)
				}
				if got := string(buf[:n]); got != tc.wantMsg {
					t.Errorf("message %q, want %q", got, tc.wantMsg)
				}
				if msgs, _ := unix.ParseSocketControlMessage(oob[:oobn]); (len(msgs) == 1) != (tc.wantMsg == "ok") {
					t.Errorf("%d control messages: want the listener with ok and only then", len(msgs))
				} else if len(msgs) == 1 {
					if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil {
						for _, fd := range fds {
							unix.Close(fd) // the program's calls fail with ENOSYS from here
						}
					}
				}
				err = cmd.Wait()
				if cmd.ProcessState.ExitCode() != 127 {
					t.Errorf("exit %v, want 127", err)
				}
				if !strings.HasPrefix(stderr.String(), tc.wantStderr) || (tc.wantStderr == "" && tc.wantMsg == "ok") {
					t.Errorf("stderr %q, want it to start with %q", stderr.String(), tc.wantStderr)
				}
			})
		}
	}
}

// TestTraceArgvIsTheTasks: a traced task's Argv is what an untraced one's
// is, without the shim in front.
func TestTraceArgvIsTheTasks(t *testing.T) {
	self, _ := os.Executable()
	spec := Spec{Script: "true", Dir: t.TempDir(), Env: []string{"PATH=" + os.Getenv("PATH")}}
	_, want, err := Resolve(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.TraceShim = self
	p := startT(t, spec)
	waitWithin(t, p)
	if diff := cmp.Diff(want, p.Argv()); diff != "" {
		t.Errorf("Argv() (-want +got):\n%s", diff)
	}
}
