package main

// Every way vx ends is a way its tasks end: the signals other than SIGINT
// and SIGTERM, a closed output, and a signal before any task has started.
// Leftovers are found by walking /proc for processes whose environment
// names the test's own workspace (VX_RUN_WORKSPACE, which every task
// process inherits), so a process that left its task's process group is
// counted too. See docs/reliability.md.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testtool"
)

// marked returns the live processes whose environment holds
// VX_RUN_WORKSPACE=root: the task processes of a run in the workspace root,
// wherever they are in the process tree.
func marked(root string) []int {
	want := []byte("\x00VX_RUN_WORKSPACE=" + root + "\x00")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(append([]byte{0}, env...), want) {
			continue
		}
		if st, _, ok := procStat(pid); ok && st != 'Z' && st != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids
}

// leftovers polls for up to d until no task process of the workspace root
// is alive, and describes those still alive then.
func leftovers(root string, d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		pids := marked(root)
		if len(pids) == 0 || time.Now().After(deadline) {
			var out []string
			for _, pid := range pids {
				st, pgrp, _ := procStat(pid)
				out = append(out, fmt.Sprintf("pid %d (%s), state %c, group %d", pid, cmdline(pid), st, pgrp))
			}
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killMarked ends whatever a failing test left behind.
func killMarked(t *testing.T, root string) {
	t.Cleanup(func() {
		for _, pid := range marked(root) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

// sleepWorkspace is a workspace whose projects have one script, "work".
func sleepWorkspace(t *testing.T, scripts map[string]string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{"package.json": wsRoot}
	for name, script := range scripts {
		files["packages/"+name+"/package.json"] = pkg(name, map[string]string{"work": script})
	}
	writeTree(t, root, files)
	killMarked(t, root)
	return root
}

// TestReliabilityStopSignals proves that SIGHUP (a closed terminal, a
// dropped SSH session) and SIGQUIT (Ctrl-\) end vx the way SIGTERM does: the
// task trees end, vx prints its summary and exits 128+N, with no goroutine
// dump. Each task leaves a background sleep, which a non-interactive shell
// starts with SIGINT and SIGQUIT ignored.
func TestReliabilityStopSignals(t *testing.T) {
	watchInterrupts(t)
	script := `sleep 300 & touch ready; sleep 301`
	tests := []struct {
		name     string
		sig      syscall.Signal
		several  bool
		wantCode int
		summary  string
	}{
		{"SIGHUP, two tasks", syscall.SIGHUP, true, 129, "stopped by SIGHUP"},
		{"SIGQUIT, two tasks", syscall.SIGQUIT, true, 131, "stopped by SIGQUIT"},
		{"SIGHUP, one task", syscall.SIGHUP, false, 129, ""},
		{"SIGQUIT, one task", syscall.SIGQUIT, false, 131, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := sleepWorkspace(t, map[string]string{"a": script, "b": script})
			dir, projects := root, []string{"a", "b"}
			if !tc.several {
				dir, projects = filepath.Join(root, "packages", "a"), []string{"a"}
			}
			cmd, output := startVx(t, dir, "run", "work", "--grace", "500ms")
			var ready []string
			for _, p := range projects {
				ready = append(ready, filepath.Join(root, "packages", p, "ready"))
			}
			waitFiles(t, 15*time.Second, exitedFunc(cmd), ready...)
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			res, ok := waitDeadline(cmd, 15*time.Second)
			_, stderr := output()
			if !ok {
				t.Fatalf("vx did not exit within 15s of %v; stderr:\n%s", tc.sig, stderr)
			}
			if res.code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; stderr:\n%s", res.code, tc.wantCode, stderr)
			}
			if strings.Contains(stderr, "goroutine") {
				t.Errorf("vx printed a goroutine dump:\n%s", stderr)
			}
			if tc.summary != "" && !strings.Contains(stderr, tc.summary) {
				t.Errorf("stderr lacks the summary %q:\n%s", tc.summary, stderr)
			}
			if alive := leftovers(root, 3*time.Second); len(alive) > 0 {
				t.Errorf("%d task processes outlived vx by 3s:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
		})
	}
}

// TestReliabilityClosedOutput proves that a reader that goes away
// (`vx run work | head -1`) does not kill vx with the tasks left running:
// vx ends the task trees and exits 141 without a word, with tasks that keep
// writing, alone (the task itself gets the SIGPIPE) or several (vx's own
// write fails); and `vx ls`, `vx env` with a closed output exit 141 with
// nothing on stderr.
func TestReliabilityClosedOutput(t *testing.T) {
	watchInterrupts(t)
	script := `sleep 300 & touch ready; while :; do echo tick; sleep 0.02; done`
	for _, several := range []bool{true, false} {
		t.Run(fmt.Sprintf("run, several=%v", several), func(t *testing.T) {
			root := sleepWorkspace(t, map[string]string{"a": script, "b": script})
			dir := root
			if !several {
				dir = filepath.Join(root, "packages", "a")
			}
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd := exec.Command(vxBinary(t), "run", "work", "--grace", "500ms")
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, testEnv(), w, &stderr
			newProcessGroup(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			t.Cleanup(func() {
				if cmd.ProcessState == nil {
					killProcessGroup(cmd)
					cmd.Wait()
				}
			})
			buf := make([]byte, 5)
			if _, err := r.Read(buf); err != nil {
				t.Fatalf("reading vx's first output: %v", err)
			}
			r.Close() // head -1 has what it wanted
			res, ok := waitDeadline(cmd, 15*time.Second)
			if !ok {
				t.Fatalf("vx did not exit within 15s of its output closing; stderr:\n%s", stderr.String())
			}
			if res.code != 141 || stderr.Len() > 0 {
				t.Errorf("exit code = %d, stderr %q; want 141 and nothing", res.code, stderr.String())
			}
			if alive := leftovers(root, 3*time.Second); len(alive) > 0 {
				t.Errorf("%d task processes outlived vx by 3s:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
		})
	}
	for _, args := range [][]string{{"ls"}, {"ls", "--json"}, {"env", "a#work"}, {"run", "work", "--dry-run"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			root := sleepWorkspace(t, map[string]string{"a": script})
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			var stderr bytes.Buffer
			cmd := exec.Command(vxBinary(t), args...)
			cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = root, testEnv(), w, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			res, ok := waitDeadline(cmd, 15*time.Second)
			if !ok || res.code != 141 || stderr.Len() > 0 {
				t.Errorf("vx %s with a closed output: exit code %d (ended: %v), stderr %q; want 141 and nothing", strings.Join(args, " "), res.code, ok, stderr.String())
			}
		})
	}
}

// TestReliabilitySignalBeforeTasks proves that vx reacts to a signal in
// the phases before any task starts: caught while it walks a `packages/**`
// tree of 4,000 directories (vx is frozen with SIGSTOP the moment one of
// them is open, signalled, then let go), `vx ls`, `vx env` and `vx run` must
// exit 128+N without printing a listing or starting a task.
func TestReliabilitySignalBeforeTasks(t *testing.T) {
	watchInterrupts(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"package.json":            `{"name": "root", "private": true, "workspaces": ["packages/**"]}`,
		"packages/a/package.json": pkg("a", map[string]string{"work": "touch started"}),
	})
	for i := range 40 {
		for j := range 100 {
			if err := os.MkdirAll(filepath.Join(root, "packages", "d"+strconv.Itoa(i), "e"+strconv.Itoa(j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	killMarked(t, root)
	tests := []struct {
		args []string
		sig  syscall.Signal
	}{
		{[]string{"ls"}, syscall.SIGINT},
		{[]string{"env", "a#work"}, syscall.SIGHUP},
		{[]string{"run", "work"}, syscall.SIGTERM},
		{[]string{"run", "work", "--dry-run"}, syscall.SIGQUIT},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			started := filepath.Join(root, "packages", "a", "started")
			os.Remove(started)
			cmd, output := startVx(t, root, tc.args...)
			if !stopInside(cmd.Process.Pid, filepath.Join(root, "packages")+"/", 15*time.Second) {
				t.Skip("vx finished walking the tree before it could be caught in it (a very fast disk?)")
			}
			cmd.Process.Signal(tc.sig)
			cmd.Process.Signal(syscall.SIGCONT)
			res, ok := waitDeadline(cmd, 10*time.Second)
			stdout, stderr := output()
			if !ok {
				t.Fatalf("vx did not exit within 10s of %v during discovery", tc.sig)
			}
			if want := 128 + int(tc.sig); res.code != want || stdout != "" {
				t.Errorf("exit code = %d, stdout %q; want %d and nothing; stderr:\n%s", res.code, stdout, want, stderr)
			}
			if _, err := os.Stat(started); err == nil {
				t.Errorf("a task started after %v came during discovery", tc.sig)
			}
		})
	}
}

// stopInside polls pid's open files until one is under dir, then stops
// the process with SIGSTOP; false if the process never opened one within d
// or has ended.
func stopInside(pid int, dir string, d time.Duration) bool {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ents, err := os.ReadDir(fdDir)
		if err != nil || !processAlive(pid) {
			return false
		}
		for _, e := range ents {
			if target, err := os.Readlink(fdDir + e.Name()); err == nil && strings.HasPrefix(target, dir) {
				syscall.Kill(pid, syscall.SIGSTOP)
				return true
			}
		}
	}
	return false
}

// TestReliabilityEscapes proves that processes which leave their task's
// process group do not outlive vx, and do not hold a task open: vx is the
// child subreaper of its tasks (Linux), so what escapes is re-parented to
// it and ended before it exits; a stray that keeps the task's output pipe
// is found by that pipe and ended when its task's own tree is gone, before
// a dependent task starts.
func TestReliabilityEscapes(t *testing.T) {
	watchInterrupts(t)
	testtool.Need(t, "apt-get install util-linux", "setsid")
	escapes := map[string]string{
		// holds the output pipe; the dependent task b reports its state
		"a": `setsid sleep 300 & echo $! > stray; echo a`,
		"b": `echo "stray:$(cut -d' ' -f3 /proc/$(cat ../a/stray)/stat 2>/dev/null)"`,
		// a new session with the output closed, and a double fork
		"c": `setsid sleep 300 >/dev/null 2>&1 < /dev/null & sh -c 'setsid sleep 301 >/dev/null 2>&1 &'; echo c`,
	}
	cfg := `{"tasks": {"b#work": {"dependsOn": ["a#work"]}}}`
	for _, several := range []bool{true, false} {
		t.Run(fmt.Sprintf("several=%v", several), func(t *testing.T) {
			root := sleepWorkspace(t, escapes)
			writeTree(t, root, map[string]string{"vx.json": cfg})
			dir, args := root, []string{"run", "work"}
			if !several {
				dir = filepath.Join(root, "packages", "c")
			}
			cmd, output := startVx(t, dir, args...)
			res, ok := waitDeadline(cmd, 20*time.Second)
			stdout, stderr := output()
			if !ok {
				t.Fatalf("vx did not end within 20s; stderr:\n%s", stderr)
			}
			if res.code != 0 {
				t.Errorf("exit code = %d, want 0; stdout:\n%s\nstderr:\n%s", res.code, stdout, stderr)
			}
			if several && !strings.Contains(stdout, "stray:Z\n") && !strings.Contains(stdout, "stray:\n") {
				t.Errorf("when b#work started, a#work's stray (which held its output pipe) was still alive; stdout:\n%s", stdout)
			}
			// Nothing may be left, not even for a moment after vx.
			if alive := leftovers(root, 0); len(alive) > 0 {
				t.Errorf("%d escaped task processes outlived vx:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
		})
	}
}

// TestReliabilityNestedKilled proves that the tasks of an inner vx (a
// task of the outer run runs vx in another workspace) do not survive when
// the user presses Ctrl-C twice: the second signal kills the outer task's
// tree, inner vx included, before inner vx could end its own tasks, which
// live in their own process groups; re-parented to the outer vx, they are
// ended by it.
func TestReliabilityNestedKilled(t *testing.T) {
	watchInterrupts(t)
	// Each inner task notes the SIGINT it gets (its foreground sleep dies
	// of it, then the trap runs) and goes on running, so that the inner vx
	// waits out its grace; the background sleep ignores SIGINT.
	const script = `trap 'touch interrupted' INT; sleep 300 & touch ready; sleep 313; sleep 302`
	inner := sleepWorkspace(t, map[string]string{"x": script, "y": script})
	outer := sleepWorkspace(t, map[string]string{
		"o": `cd ` + inner + ` && vx run work --grace 30s`,
	})
	cmd, output := startVx(t, filepath.Join(outer, "packages", "o"), "run", "work", "--grace", "30s")
	waitFiles(t, 15*time.Second, exitedFunc(cmd), filepath.Join(inner, "packages/x/ready"), filepath.Join(inner, "packages/y/ready"))
	// A SIGINT that reaches a task's shell before its foreground sleep has
	// started is not seen by that sleep, and dash runs the trap only once
	// the sleep ends: wait until both foreground sleeps run.
	if !waitUntil(15*time.Second, func() bool { return countProcs("sleep\x00313\x00") >= 2 }) {
		t.Fatalf("the inner tasks' foreground sleeps did not start within 15s")
	}
	// Two SIGINTs sent back to back can reach vx as one (the kernel and
	// Go's runtime each keep one pending signal of a kind): the second is
	// sent once the first has gone through both vx processes to an inner
	// task. (Only one is awaited: when the signal comes as the shell runs
	// `touch ready`, dash may run its trap only after the next command.)
	cmd.Process.Signal(syscall.SIGINT)
	if !waitUntil(15*time.Second, func() bool {
		return fileExists(filepath.Join(inner, "packages/x/interrupted")) || fileExists(filepath.Join(inner, "packages/y/interrupted"))
	}) {
		_, stderr := output()
		t.Fatalf("no inner task got the first SIGINT within 15s; stderr:\n%s", stderr)
	}
	cmd.Process.Signal(syscall.SIGINT)
	res, ok := waitDeadline(cmd, 15*time.Second)
	_, stderr := output()
	if !ok {
		t.Fatalf("vx did not exit within 15s of a double Ctrl-C; stderr:\n%s", stderr)
	}
	t.Logf("outer vx exited %d", res.code)
	if alive := leftovers(inner, 0); len(alive) > 0 {
		t.Errorf("%d tasks of the inner vx outlived the outer vx:\n  %s", len(alive), strings.Join(alive, "\n  "))
	}
}

// TestReliabilityKilled measures what survives `kill -9` of vx, which
// runs no code of vx: the kernel kills each task's shell (Pdeathsig), and
// vx's watchdog, a second process that sees vx's end as the end of a pipe,
// ends each task's process group. What left its task's group (setsid) is
// not in any group vx knows and survives; docs/reliability.md says so, and
// this test checks that exactly that survives.
func TestReliabilityKilled(t *testing.T) {
	watchInterrupts(t)
	tests := []struct {
		name    string
		scripts map[string]string
		project string // one task in this project; "" = all
		survive int    // processes expected to survive: the setsid ones
	}{
		{"two tasks", map[string]string{
			"a": `sleep 300 & sleep 301 & touch ready; sleep 302`,
			"b": `sleep 300 & touch ready; sleep 302`,
		}, "", 0},
		{"one task", map[string]string{"a": `sleep 300 & sleep 301 & touch ready; sleep 302`}, "a", 0},
		{"a task leaves its group", map[string]string{"a": `setsid sleep 303 & sleep 300 & touch ready; sleep 302`}, "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.survive > 0 {
				testtool.Need(t, "apt-get install util-linux", "setsid")
			}
			root := sleepWorkspace(t, tc.scripts)
			dir := root
			if tc.project != "" {
				dir = filepath.Join(root, "packages", tc.project)
			}
			cmd, output := startVx(t, dir, "run", "work")
			var ready []string
			for p := range tc.scripts {
				ready = append(ready, filepath.Join(root, "packages", p, "ready"))
			}
			waitFiles(t, 15*time.Second, exitedFunc(cmd), ready...)
			waitUntil(5*time.Second, func() bool { return len(marked(root)) >= 2*len(tc.scripts)+tc.survive })
			// The watchdog starts once tasks have run a while (a short run
			// pays for no second process): kill vx only when it is up.
			if !waitUntil(5*time.Second, func() bool { return hasWatchdog(cmd.Process.Pid) }) {
				t.Fatal("vx started no watchdog within 5s of its tasks")
			}
			before := len(marked(root))
			cmd.Process.Kill()
			waitDeadline(cmd, 5*time.Second)
			alive := leftovers(root, 3*time.Second)
			_, stderr := output()
			t.Logf("%d task processes before kill -9, %d alive 3s after", before, len(alive))
			if len(alive) != tc.survive {
				t.Errorf("%d task processes outlived kill -9 of vx by 3s, want %d:\n  %s\nstderr:\n%s", len(alive), tc.survive, strings.Join(alive, "\n  "), stderr)
			}
		})
	}
}

// hasWatchdog reports whether the process vx has a child started as its
// watchdog (vx __vx-watchdog).
func hasWatchdog(vx int) bool {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil || !bytes.HasSuffix(bytes.TrimRight(cmdline, "\x00"), []byte("\x00"+watchdogArg)) {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", d.Name(), "status"))
		if err == nil && bytes.Contains(status, []byte(fmt.Sprintf("\nPPid:\t%d\n", vx))) && pid != vx {
			return true
		}
	}
	return false
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// countProcs counts the processes whose /proc/<pid>/cmdline is cmdline.
func countProcs(cmdline string) int {
	n := 0
	eachProc(cmdline, func(int) { n++ })
	return n
}

// procByCmdline returns the pid of a process whose /proc/<pid>/cmdline is
// cmdline (the program's arguments, each ended by a NUL), 0 when none: a
// process that has one has run exec.
func procByCmdline(cmdline string) int {
	pid := 0
	eachProc(cmdline, func(p int) { pid = p })
	return pid
}

// eachProc calls f with the pid of each process whose cmdline is cmdline.
func eachProc(cmdline string, f func(pid int)) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && string(b) == cmdline {
			f(pid)
		}
	}
}
