//go:build windows

package exec

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/windows"
)

// writeShim writes node_modules\.bin\<name>.cmd under a new temp dir, the
// way npm writes a package's bin on Windows, and returns the .bin dir.
func writeShim(t *testing.T, name, body string) string {
	t.Helper()
	bin := filepath.Join(testdir.New(t), "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, name+".cmd"), []byte("@echo off\r\n"+body+"\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestWindowsCmdShimByBareName: a .cmd shim in a node_modules\.bin that
// only the child's Path names is found by its bare name, in any case, and
// runs through cmd.exe /d /s /c.
func TestWindowsCmdShimByBareName(t *testing.T) {
	t.Parallel()
	bin := writeShim(t, "hello", "echo shim says %*")
	if p, err := LookPath("hello", testEnv(t)); err == nil {
		t.Fatalf("LookPath(hello) with vx's own Path = %q; want not found (test setup)", p)
	}
	env := withBin(testEnv(t), bin)
	for _, name := range []string{"hello", "HELLO", "hello.cmd"} {
		got, err := LookPath(name, env)
		if err != nil || !strings.EqualFold(got, filepath.Join(bin, "hello.cmd")) {
			t.Errorf("LookPath(%q) = %q, %v; want %q", name, got, err, filepath.Join(bin, "hello.cmd"))
		}
	}
	out := newSyncBuffer()
	p := startT(t, Spec{Script: "hello", Args: []string{"a b"}, Env: env, Stdout: out, Stderr: out})
	res, err := waitWithin(t, p)
	if err != nil || res != (Result{}) {
		t.Fatalf("Wait() = %+v, %v; want exit 0; output:\n%s", res, err, out)
	}
	if got, want := strings.TrimSpace(out.String()), `shim says "a b"`; got != want {
		t.Errorf("output = %q, want %q", got, want)
	}
}

// withBin returns env with dir put first on its Path.
func withBin(env []string, dir string) []string {
	for i, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, "Path") {
			env[i] = "Path=" + dir + ";" + v
		}
	}
	return env
}

// isWine reports whether the test runs under Wine rather than Windows.
func isWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// TestWindowsArgsThroughBatchShim: arguments reach a program started by a
// .cmd shim unchanged: cmd.exe parses them twice (the command line, then
// %* in the batch file), so they are escaped twice, as npm does.
func TestWindowsArgsThroughBatchShim(t *testing.T) {
	t.Parallel()
	bin := writeShim(t, "printargs", `"`+mustExecutable(t)+`" %*`)
	args := roundTripArgs
	if isWine() {
		args = withoutPercent(args) // see withoutPercent
	}
	got := argsReceived(t, Spec{Script: "printargs", Args: args, Env: withBin(testEnv(t, helperEnv+"=args"), bin)})
	if diff := cmp.Diff(args, got); diff != "" {
		t.Errorf("args received mismatch (-want +got):\n%s", diff)
	}
}

// TestWindowsPercentArgs: "%NAME%" in an argument must not be expanded,
// directly or through a batch file. A caret does not stop cmd.exe (Wine's
// expands ^%PATH^% too); the arguments carry %%cd:~,% instead, as Rust's
// standard library does since CVE-2024-24576.
func TestWindowsPercentArgs(t *testing.T) {
	t.Parallel()
	args := []string{"%PATH%", "100%", "%%", "%~dp0", "%OS%%CD%", "a %PATH% b", "%cd:~,%", "!PATH!", "%", "%1", "%*"}
	bin := writeShim(t, "printargs", `"`+mustExecutable(t)+`" %*`)
	env := withBin(testEnv(t, helperEnv+"=args"), bin)
	scripts := []string{testBinary(t), "printargs"}
	if isWine() {
		scripts = scripts[:1] // see withoutPercent
	}
	for _, script := range scripts {
		got := argsReceived(t, Spec{Script: script, Args: args, Env: env})
		if diff := cmp.Diff(args, got); diff != "" {
			t.Errorf("%s: args received mismatch (-want +got):\n%s", script, diff)
		}
	}
}

// withoutPercent returns the arguments that hold no %. Under Wine only,
// no argument holding a % goes through a batch file in these tests.
// Windows' cmd.exe expands %NAME% once, when it reads a line: the text a
// batch file's %* inserts is not expanded again, so the % that %%cd:~,%
// leaves on the command line reaches the program. Wine 8's cmd.exe expands that inserted text again
// (handleExpansion goes on scanning after WCMD_strsubstW): %PATH% becomes
// the Path, and an argument "%*" makes it recurse until it crashes. The
// direct case (a program that is no batch file) runs under Wine with every
// percent argument.
func withoutPercent(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.Contains(a, "%") {
			out = append(out, a)
		}
	}
	return out
}

// TestWindowsLineBreakArgRefused: cmd.exe ends its command at a line
// break, so an argument holding one is refused before anything starts.
func TestWindowsLineBreakArgRefused(t *testing.T) {
	t.Parallel()
	_, err := Start(context.Background(), Spec{Script: testBinary(t), Args: []string{"a\nb"}, Env: testEnv(t, helperEnv+"=args")})
	if err == nil || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("Start with an argument holding a newline: error %v, want one about the line break", err)
	}
}

func TestWindowsExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script string
		want   Result
	}{
		{"exit /b 0", Result{}},
		{"exit /b 42", Result{ExitCode: 42}},
		{"echo hello& exit /b 3", Result{ExitCode: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			t.Parallel()
			out := newSyncBuffer()
			p := startT(t, Spec{Script: tt.script, Env: testEnv(t), Stdout: out})
			got, err := waitWithin(t, p)
			if err != nil || got != tt.want {
				t.Errorf("Wait() = %+v, %v; want %+v; output %q", got, err, tt.want, out)
			}
		})
	}
}

// startTree starts a task whose program starts a grandchild, and returns
// the task and the grandchild's pid.
func startTree(t *testing.T, script string) (*Process, int) {
	t.Helper()
	out := newSyncBuffer()
	p := startT(t, Spec{Script: script, Env: testEnv(t, helperEnv+"=spawn"), Stdout: out, Stderr: out})
	line := out.waitFor(t, "grandchild ")
	f := strings.Fields(line[strings.Index(line, "grandchild "):])
	pid, err := strconv.Atoi(f[1])
	if err != nil {
		t.Fatalf("bad output %q", line)
	}
	return p, pid
}

// requireProcessGone fails unless process pid has exited (or never was).
func requireProcessGone(t *testing.T, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // no such process any more
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, uint32(deadline/time.Millisecond))
	if ev != windows.WAIT_OBJECT_0 {
		t.Errorf("process %d is still alive after the tree was ended (%d, %v)", pid, ev, err)
	}
}

// TestWindowsKillTree: Kill terminates the job, grandchild included.
func TestWindowsKillTree(t *testing.T) {
	t.Parallel()
	p, grandchild := startTree(t, testBinary(t))
	if err := p.Kill(); err != nil {
		t.Fatalf("Kill() error: %v", err)
	}
	res, err := waitWithin(t, p)
	if want := (Result{ExitCode: 137, Signal: "SIGKILL"}); err != nil || res != want {
		t.Errorf("Wait() = %+v, %v; want %+v", res, err, want)
	}
	requireProcessGone(t, grandchild)
}

// TestWindowsInterruptTree: os.Interrupt ends the tree, by CTRL_BREAK_EVENT
// when the console allows, else by terminating the job.
func TestWindowsInterruptTree(t *testing.T) {
	t.Parallel()
	p, grandchild := startTree(t, testBinary(t))
	if err := p.Signal(os.Interrupt); err != nil {
		t.Fatalf("Signal(os.Interrupt) error: %v", err)
	}
	res, err := waitWithin(t, p)
	if err != nil || (res != Result{ExitCode: 130, Signal: "SIGINT"} && res != Result{ExitCode: 137, Signal: "SIGKILL"}) {
		t.Errorf("Wait() = %+v, %v; want 130/SIGINT (CTRL_BREAK) or 137/SIGKILL (no console)", res, err)
	}
	if res.ExitCode == 137 {
		t.Logf("CTRL_BREAK_EVENT could not be sent (GenerateConsoleCtrlEvent: %v), so Signal terminated the job; see TestWindowsInterruptWithConsole", p.os.breakErr)
	}
	requireProcessGone(t, grandchild)
}

func init() {
	// breakrun plays vx with a console of its own: it runs a task that
	// starts a grandchild, interrupts it with Signal(os.Interrupt), and
	// prints "result <code> <signal> break=<error>" and the task's output.
	registerHelper("breakrun", func(args []string) int {
		// Under CREATE_NO_WINDOW the process has a console already; this
		// only matters when it has none.
		windows.NewLazySystemDLL("kernel32.dll").NewProc("AllocConsole").Call()
		out := newSyncBuffer()
		env := append(os.Environ(), helperEnv+"=spawn")
		p, err := Start(context.Background(), Spec{Script: `"` + args[0] + `"`, Env: env, Stdout: out})
		if err != nil {
			fmt.Println("start:", err)
			return 1
		}
		for i := 0; i < 600 && !strings.Contains(out.String(), "grandchild "); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		p.Signal(os.Interrupt)
		res, err := p.Wait()
		fmt.Printf("result %d %s %v break=%v\n%s", res.ExitCode, res.Signal, err, p.os.breakErr, out)
		return 0
	})
}

func init() {
	// jobowner plays vx: it starts a task whose program starts a
	// grandchild, prints the task's output, and sleeps until killed.
	registerHelper("jobowner", func(args []string) int {
		out := newSyncBuffer()
		env := append(os.Environ(), helperEnv+"=spawn")
		if _, err := Start(context.Background(), Spec{Script: `"` + args[0] + `"`, Env: env, Stdout: out}); err != nil {
			fmt.Println("start:", err)
			return 1
		}
		for i := 0; i < 600 && !strings.Contains(out.String(), "grandchild "); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		fmt.Print(out.String())
		time.Sleep(300 * time.Second)
		return 0
	})
}

// TestWindowsTreeDiesWithVx: when vx dies without cleaning up (killed),
// the system closes its job handles and KILL_ON_JOB_CLOSE ends every
// task's tree.
func TestWindowsTreeDiesWithVx(t *testing.T) {
	t.Parallel()
	self := mustExecutable(t)
	vx := osexec.Command(self, self)
	vx.Env = append(os.Environ(), helperEnv+"=jobowner")
	out := newSyncBuffer()
	vx.Stdout = out
	if err := vx.Start(); err != nil {
		t.Fatal(err)
	}
	line := out.waitFor(t, "grandchild ")
	pid, err := strconv.Atoi(strings.Fields(line[strings.Index(line, "grandchild "):])[1])
	if err != nil {
		t.Fatalf("bad output %q", line)
	}
	vx.Process.Kill() // TerminateProcess: no clean-up code runs in vx
	vx.Wait()
	requireProcessGone(t, pid)
}

// TestWindowsInterruptWithConsole: when vx has a console, os.Interrupt
// reaches the task's tree as CTRL_BREAK_EVENT and the task reports 130.
func TestWindowsInterruptWithConsole(t *testing.T) {
	t.Parallel()
	self := mustExecutable(t)
	c := osexec.Command(self, self)
	c.Env = append(os.Environ(), helperEnv+"=breakrun")
	c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NO_WINDOW}
	outb, err := c.CombinedOutput()
	out := strings.ReplaceAll(string(outb), "\r\n", "\n")
	if err != nil || !strings.Contains(out, "result ") {
		t.Fatalf("breakrun helper: %v\n%s", err, out)
	}
	if i := strings.Index(out, "grandchild "); i >= 0 {
		if pid, err := strconv.Atoi(strings.Fields(out[i:])[1]); err == nil {
			requireProcessGone(t, pid)
		}
	}
	if strings.Contains(out, "break=<nil>") {
		if !strings.Contains(out, "result 130 SIGINT <nil>") {
			t.Errorf("after CTRL_BREAK_EVENT, want result 130 SIGINT; got:\n%s", out)
		}
		return
	}
	if isWine() {
		t.Skipf("skipped under Wine: GenerateConsoleCtrlEvent fails in Wine 8 even in a process with a console "+
			"(CREATE_NO_WINDOW, CREATE_NEW_CONSOLE, or DETACHED_PROCESS plus AllocConsole), so CTRL_BREAK_EVENT "+
			"cannot be checked; Signal fell back to terminating the job, and the tree is gone:\n%s", out)
	}
	t.Errorf("CTRL_BREAK_EVENT was not sent although the helper has a console:\n%s", out)
}

// TestWindowsWaitEndsLeftovers: cmd.exe exits at once, leaving a process
// in the job that holds the output pipe. Wait returns and ends it.
func TestWindowsWaitEndsLeftovers(t *testing.T) {
	t.Parallel()
	p, grandchild := startTree(t, "start /b \"\" "+testBinary(t)+" & ping -n 2 127.0.0.1 >nul & echo shell done")
	p.leftoverGrace = 200 * time.Millisecond
	res, err := waitWithin(t, p)
	if err != nil || res.ExitCode != 0 {
		t.Errorf("Wait() = %+v, %v; want exit 0", res, err)
	}
	requireProcessGone(t, grandchild)
}

// TestWindowsSignalUnsupported: only interrupt, terminate and kill mean
// something for a Windows tree.
func TestWindowsSignalUnsupported(t *testing.T) {
	t.Parallel()
	p := startT(t, Spec{Script: testBinary(t), Env: testEnv(t, helperEnv+"=sleep")})
	if err := p.Signal(windowsSIGHUP{}); err == nil {
		t.Errorf("Signal(SIGHUP) = nil, want an error")
	}
	p.Kill()
	waitWithin(t, p)
}

type windowsSIGHUP struct{}

func (windowsSIGHUP) String() string { return "hangup" }
func (windowsSIGHUP) Signal()        {}
