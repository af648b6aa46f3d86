package main

// Reliability proofs on Windows, run for real under Wine by
// ../shared/wine/wine-test.sh -count=1 -run Reliability ./cmd/vx/
// (see docs/reliability.md for what Wine cannot show).

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/windows"

	"github.com/vxrun/vx/internal/testdir"
)

// platformHelpers are the Windows vxrel commands. (A variable, not an
// init function: variables are set before the init that dispatches.)
var platformHelpers = map[string]func(args []string) int{"jobhold": jobHold}

// jobHold (vxrel jobhold PIDFILE) puts a child "vxrel sleep 300" in a new
// job object that kills its processes when its last handle closes, writes
// the child's pid to PIDFILE and sleeps: the test terminates it to see
// whether the system then kills the child.
func jobHold(args []string) int {
	job, err := newKillOnCloseJob()
	if err != nil {
		return 3
	}
	self, _ := os.Executable()
	child := exec.Command(self, "sleep", "300")
	child.Args[0] = relHelperName
	if err := child.Start(); err != nil {
		return 3
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(child.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
	}
	if err != nil {
		child.Process.Kill()
		return 3
	}
	os.WriteFile(args[0], []byte(strconv.Itoa(child.Process.Pid)), 0o644)
	time.Sleep(300 * time.Second)
	return 0
}

func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, err
	}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP}
}

// killProcessGroup kills vx; its job objects then end the task trees.
func killProcessGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

// platformBrokenCases: symlinks need a privilege on Windows and Wine maps
// them to the host's; the Unix run covers those cases.
func platformBrokenCases() []brokenCase { return nil }

// lookupFold returns env's value for name compared case-insensitively, and
// the spelling found.
func lookupFold(env map[string]string, name string) (key, value string, ok bool) {
	for k, v := range env {
		if strings.EqualFold(k, name) {
			return k, v, true
		}
	}
	return "", "", false
}

// processAliveWin reports whether process pid is still running.
func processAliveWin(pid int) bool {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false // no such process
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, 0)
	return err == nil && ev == uint32(windows.WAIT_TIMEOUT)
}

// TestReliabilityWindows runs vx as a Windows program with cmd.exe as the
// shell: the child sees PATH spelled as the parent spells it (Path) with
// the bins in front, SystemRoot, ComSpec and PATHEXT, and nothing of the
// secrets in vx's environment; a .cmd shim in node_modules\.bin runs by
// bare name; killing vx kills its tasks' trees (job objects).
func TestReliabilityWindows(t *testing.T) {
	watchInterrupts(t)
	root, err := filepath.EvalSymlinks(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(root, "node_modules", ".bin")
	installHelper(t, bin)
	writeTree(t, root, map[string]string{
		"package.json": mustJSON(t, map[string]any{"name": "root", "private": true, "workspaces": []string{"packages/*"}}),
		"packages/web/package.json": mustJSON(t, map[string]any{"name": "web", "version": "2.0.0", "scripts": map[string]string{
			"dump":  "vxrel envdump env.out",
			"shim":  "tool envdump shim.out",
			"tree":  "tool tree pids.txt",
			"tree2": "vxrel tree pids2.txt",
		}}),
		"packages/web/node_modules/.bin/.keep": "",
		"node_modules/.bin/tool.cmd":           "@\"%~dp0vxrel.exe\" %*\r\n",
	})
	web := filepath.Join(root, "packages", "web")
	other := testdir.New(t)

	// The parent environment: the test's own, with PATH spelled Path as on
	// Windows (os.Setenv in TestMain may have respelled it).
	var parentEnv []string
	parent := map[string]string{}
	for _, kv := range testEnv() {
		k, v, ok := strings.Cut(kv[min(1, len(kv)):], "=")
		if !ok {
			continue
		}
		k = kv[:min(1, len(kv))] + k
		if strings.EqualFold(k, "PATH") {
			k = "Path"
		}
		parent[k] = v
		parentEnv = append(parentEnv, k+"="+v)
	}
	secrets := []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "NPM_TOKEN", "npm_config__auth", "NODE_AUTH_TOKEN"}
	for _, s := range secrets {
		parentEnv = append(parentEnv, s+"=secret-"+s)
	}
	parentEnv = append(parentEnv, "VX_RUN_TASK=other#build", "VX_RUN_WORKSPACE="+other, "vx_run_task=lower")
	pathKey, pathVal, ok := lookupFold(parent, "PATH")
	if !ok {
		t.Fatal("the test's environment has no PATH")
	}

	t.Run("env", func(t *testing.T) {
		r := runVx(t, 60*time.Second, web, parentEnv, "run", "dump")
		if r.code != 0 {
			t.Fatalf("vx run dump exit code = %d; stdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		got := readEnvDump(t, filepath.Join(web, "env.out"))

		e := runVx(t, 60*time.Second, web, parentEnv, "env", "dump", "--json")
		if e.code != 0 {
			t.Fatalf("vx env dump exit code = %d; stderr %s", e.code, e.stderr)
		}
		var shown struct {
			Env map[string]string `json:"env"`
		}
		if err := json.Unmarshal(e.stdout, &shown); err != nil {
			t.Fatalf("vx env --json: %v\n%s", err, e.stdout)
		}

		// vx env: PATH keeps the parent's spelling and gets the bins in
		// front; the Windows essentials pass with their values; nothing
		// else of the parent but the essentials.
		wantPath := filepath.Join(web, "node_modules", ".bin") + ";" + bin + ";" + pathVal
		if v, ok := shown.Env[pathKey]; !ok || v != wantPath {
			t.Errorf("vx env: %s = %q (present %v), want %q", pathKey, v, ok, wantPath)
		}
		for _, name := range []string{"SystemRoot", "ComSpec", "PATHEXT", "windir"} {
			pk, pv, ok := lookupFold(parent, name)
			if !ok {
				t.Errorf("the test's environment has no %s", name)
				continue
			}
			if k, v, ok := lookupFold(shown.Env, name); !ok || v != pv || k != pk {
				t.Errorf("vx env: %s = %q (spelled %q, present %v), want %s=%q", name, v, k, ok, pk, pv)
			}
		}
		essential := append(slices.Clone(essentialNames), "VX_RUN_WORKSPACE", "VX_RUN_TASK", "VX_RUN_CHAIN", "npm_lifecycle_event",
			"npm_lifecycle_script", "npm_package_name", "npm_package_version", "npm_package_json", "PWD",
			"INIT_CWD", "npm_config_user_agent", "npm_execpath")
		for k := range shown.Env {
			if !slices.ContainsFunc(essential, func(e string) bool { return strings.EqualFold(e, k) }) {
				t.Errorf("vx env: %s is neither an essential nor a variable vx sets", k)
			}
		}
		if _, v, _ := lookupFold(shown.Env, "VX_RUN_TASK"); v != "web#dump" {
			t.Errorf("vx env: VX_RUN_TASK = %q, want web#dump", v)
		}
		if _, v, _ := lookupFold(shown.Env, "VX_RUN_WORKSPACE"); v != root {
			t.Errorf("vx env: VX_RUN_WORKSPACE = %q, want %q", v, root)
		}

		// The child: exactly what the same script run by the same cmd.exe
		// with vx env's environment sees (Wine and cmd.exe add their own
		// variables to both); the secrets nowhere.
		var shownEnv []string
		for k, v := range shown.Env {
			shownEnv = append(shownEnv, k+"="+v)
		}
		_, comspec, _ := lookupFold(shown.Env, "ComSpec")
		probe := exec.Command(comspec)
		probe.SysProcAttr = &syscall.SysProcAttr{CmdLine: comspec + ` /d /s /c "vxrel envdump probe.out"`}
		probe.Dir, probe.Env = web, shownEnv
		if out, err := probe.CombinedOutput(); err != nil {
			t.Fatalf("cmd /c vxrel envdump with the env of vx env: %v %s", err, out)
		}
		direct := readEnvDump(t, filepath.Join(web, "probe.out"))
		if diff := cmp.Diff(direct, got); diff != "" {
			t.Errorf("the child's environment differs from that of cmd.exe run with the env vx env shows (-cmd +child):\n%s", diff)
		}
		var added []string
		for k := range got {
			if _, _, ok := lookupFold(shown.Env, k); !ok {
				added = append(added, k)
			}
		}
		slices.Sort(added)
		t.Logf("names the child has beyond vx env (added by Wine/cmd.exe): %q", added)
		for _, s := range secrets {
			if k, v, ok := lookupFold(got, s); ok {
				t.Errorf("the child received %s=%q", k, v)
			}
		}
		if k, v, _ := lookupFold(got, "VX_RUN_TASK"); k != "VX_RUN_TASK" || v != "web#dump" {
			t.Errorf("the child's VX_RUN_TASK is %s=%q, want VX_RUN_TASK=web#dump", k, v)
		}
		if v := got[pathKey]; v != wantPath {
			t.Errorf("the child's %s = %q, want %q", pathKey, v, wantPath)
		}
		var pathKeys []string
		for k := range got {
			if strings.EqualFold(k, "PATH") {
				pathKeys = append(pathKeys, k)
			}
		}
		if len(pathKeys) != 1 {
			t.Errorf("the child has %d PATH entries %q, want one", len(pathKeys), pathKeys)
		}
	})

	t.Run("cmd shim by bare name", func(t *testing.T) {
		r := runVx(t, 60*time.Second, web, parentEnv, "run", "shim")
		if r.code != 0 {
			t.Fatalf("vx run shim (script %q) exit code = %d; stdout %s\nstderr %s", "tool envdump shim.out", r.code, r.stdout, r.stderr)
		}
		got := readEnvDump(t, filepath.Join(web, "shim.out"))
		if got["npm_lifecycle_event"] != "shim" {
			t.Errorf("the shim's program saw npm_lifecycle_event = %q, want shim", got["npm_lifecycle_event"])
		}
	})

	for _, tc := range []struct{ task, pids string }{{"tree", "pids.txt"}, {"tree2", "pids2.txt"}} {
		t.Run("killing vx kills the tree of "+tc.task, func(t *testing.T) {
			cmd := exec.Command(vxBinary(t), "run", tc.task)
			cmd.Dir, cmd.Env = web, parentEnv
			newProcessGroup(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pids []int
			t.Cleanup(func() {
				for _, pid := range pids {
					if p, err := os.FindProcess(pid); err == nil {
						p.Kill()
					}
				}
			})
			deadline := time.Now().Add(60 * time.Second)
			for len(pids) < 2 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the task did not record its two pids within 60s")
				}
				time.Sleep(50 * time.Millisecond)
				b, _ := os.ReadFile(filepath.Join(web, tc.pids))
				pids = pids[:0]
				for _, f := range strings.Fields(string(b)) {
					if n, err := strconv.Atoi(f); err == nil {
						pids = append(pids, n)
					}
				}
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			var alive []int
			for end := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				alive = slices.DeleteFunc(slices.Clone(pids), func(pid int) bool { return !processAliveWin(pid) })
				if len(alive) == 0 || time.Now().After(end) {
					break
				}
			}
			if len(alive) == 0 {
				return
			}
			if !killOnCloseWorks(t) {
				t.Skipf("processes %v of the task outlived vx, but this Wine does not implement JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE "+
					"(a probe job closed with a live process in it left the process running), so this cannot be shown here", alive)
			}
			var desc []string
			for _, pid := range alive {
				desc = append(desc, describeProcess(pid))
			}
			t.Errorf("processes of the task's tree outlived vx by 5s (pids recorded: %v):\n  %s", pids, strings.Join(desc, "\n  "))
		})
	}
}

var procIsProcessInJob = windows.NewLazySystemDLL("kernel32.dll").NewProc("IsProcessInJob")

// describeProcess names a live process: its program and whether it is in
// a job object.
func describeProcess(pid int) string {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return fmt.Sprintf("pid %d: %v", pid, err)
	}
	defer windows.CloseHandle(h)
	buf := make([]uint16, 1024)
	n := uint32(len(buf))
	name := "?"
	if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) == nil {
		name = windows.UTF16ToString(buf[:n])
	}
	var inJob int32
	r, _, jobErr := procIsProcessInJob.Call(uintptr(h), 0, uintptr(unsafe.Pointer(&inJob)))
	if r == 0 {
		return fmt.Sprintf("pid %d (%s), in a job: %v", pid, name, jobErr)
	}
	return fmt.Sprintf("pid %d (%s), in a job: %v", pid, name, inJob != 0)
}

// killOnCloseWorks probes whether the system kills a job's processes when
// the process holding the job's only handle is terminated (the way vx's
// jobs end when vx is killed); Wine may not.
func killOnCloseWorks(t *testing.T) bool {
	dir := testdir.New(t)
	installHelper(t, dir)
	pidFile := filepath.Join(dir, "child.pid")
	holder := exec.Command(filepath.Join(dir, relHelperName+".exe"), "jobhold", pidFile)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	var child int
	for end := time.Now().Add(30 * time.Second); child == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("probe: the job holder did not start its child within 30s")
		}
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(string(b))
	}
	defer func() {
		if p, err := os.FindProcess(child); err == nil {
			p.Kill()
		}
	}()
	holder.Process.Kill()
	holder.Wait()
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !processAliveWin(child) {
			return true
		}
	}
	return false
}
