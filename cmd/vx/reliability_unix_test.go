//go:build unix

package main

// Reliability proofs that need a POSIX shell, process groups and signals:
// no leak, no orphan, the guard under pressure, and the bad inputs that need
// symlinks, permissions or byte-string file names. See docs/reliability.md.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testtool"
)

// platformHelpers are the vxrel commands of this OS (none on Unix).
var platformHelpers = map[string]func(args []string) int{}

func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcessGroup(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// procStat returns the state letter and process group of pid from
// /proc/<pid>/stat; ok is false when it cannot be read (no /proc, or pid
// gone).
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	pgrp, _ = strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, true
}

// processAlive reports whether pid is a live process: kill(pid, 0) finds
// it and it is not a zombie (a zombie has nothing left to kill; orphans
// are reaped by init, which may be slow in a container).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return false
	}
	if st, _, ok := procStat(pid); ok && (st == 'Z' || st == 'X') {
		return false
	}
	return true
}

// groupMembers returns the live processes of process group pgid, found in
// /proc (empty where there is no /proc).
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, g, ok := procStat(pid); ok && g == pgid && st != 'Z' && st != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

func cmdline(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

// readPids reads the pids a script appended to a file, one a line.
func readPids(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: bad pid %q", file, f)
		}
		pids = append(pids, pid)
	}
	return pids
}

// tree is what the tests know of the task processes: the pids the scripts
// recorded and the process groups those belonged to while alive.
type tree struct {
	pids   []int
	groups []int
}

func (tr *tree) add(pids []int) {
	for _, pid := range pids {
		if slices.Contains(tr.pids, pid) {
			continue
		}
		tr.pids = append(tr.pids, pid)
		if _, g, ok := procStat(pid); ok && !slices.Contains(tr.groups, g) {
			tr.groups = append(tr.groups, g)
		}
	}
}

// survivors polls for up to d and returns the processes of the tree still
// alive then, described.
func (tr *tree) survivors(d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		var alive []string
		seen := map[int]bool{}
		for _, pid := range tr.pids {
			if processAlive(pid) {
				seen[pid] = true
				alive = append(alive, fmt.Sprintf("pid %d (%s)", pid, cmdline(pid)))
			}
		}
		for _, g := range tr.groups {
			for _, pid := range groupMembers(g) {
				if !seen[pid] {
					seen[pid] = true
					alive = append(alive, fmt.Sprintf("pid %d of task group %d (%s)", pid, g, cmdline(pid)))
				}
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends whatever is left, so a failing test does not leave sleeps
// behind.
func (tr *tree) kill() {
	for _, g := range tr.groups {
		syscall.Kill(-g, syscall.SIGKILL)
	}
	for _, pid := range tr.pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitFiles waits until every file exists, or fails the test after d, or
// as soon as the process p has exited.
func waitFiles(t *testing.T, d time.Duration, exited func() bool, files ...string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		missing := ""
		for _, f := range files {
			if _, err := os.Stat(f); err != nil {
				missing = f
				break
			}
		}
		if missing == "" {
			return
		}
		if exited() {
			t.Fatalf("vx ended before %s appeared", missing)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %v", missing, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// counterJS is a node program that counts the SIGINTs and SIGTERMs it
// receives into the file "signals" of its directory, appends its pid to
// "pids" and creates "ready" once its handlers are installed. Its argument:
// "stubborn" ignores signals (only SIGKILL ends it), "polite" exits 200 ms
// after the first signal, a number exits by itself after that many ms.
const counterJS = `const fs = require('fs');
const mode = process.argv[2];
let ints = 0, terms = 0;
const save = () => fs.writeFileSync('signals', 'INT=' + ints + ' TERM=' + terms + '\n');
const on = (name) => () => {
  if (name === 'INT') ints++; else terms++;
  save();
  if (mode === 'polite') setTimeout(() => process.exit(0), 200);
};
process.on('SIGINT', on('INT'));
process.on('SIGTERM', on('TERM'));
save();
fs.appendFileSync('pids', process.pid + '\n');
fs.writeFileSync('ready', '');
if (/^[0-9]+$/.test(mode)) setTimeout(() => process.exit(0), Number(mode));
setInterval(() => {}, 1 << 30);
`

// orphanScripts are the task trees of the no-orphan tests, by project. Each
// records its pids in "pids" and creates "ready" when everything runs.
var orphanScripts = map[string]string{
	// two background sleeps (a non-interactive sh starts them with SIGINT
	// ignored, so only the final kill ends them), the shell waiting
	"shell": `sleep 300 & echo $! >> pids; sleep 300 & echo $! >> pids; echo $$ >> pids; touch ready; wait`,
	// sleep 300 & sleep 300, the second in the foreground
	"fg": `sleep 300 & echo $! >> pids; echo $$ >> pids; touch ready; sleep 300`,
	// node under sh that ignores signals, beside a background sleep
	"stubborn": `sleep 300 & echo $! >> pids; echo $$ >> pids; node ../../counter.js stubborn`,
	// node under sh that exits on the first signal
	"polite": `echo $$ >> pids; node ../../counter.js polite`,
}

func orphanWorkspace(t *testing.T, scripts map[string]string) string {
	t.Helper()
	testtool.Need(t, "Node.js; .ci/run has it: the signal counter is a node program", "node")
	root := t.TempDir()
	files := map[string]string{
		"package.json": wsRoot,
		"counter.js":   counterJS,
	}
	for name, script := range scripts {
		files["packages/"+name+"/package.json"] = pkg(name, map[string]string{"work": script})
	}
	writeTree(t, root, files)
	return root
}

// startVx starts vx in its own process group with its output going to
// files (a pipe would be held open by a stray process and hide the
// problem), and returns the command and a function that reads the output.
func startVx(t *testing.T, dir string, args ...string) (*exec.Cmd, func() (string, string)) {
	t.Helper()
	outDir := t.TempDir()
	stdout, err := os.Create(filepath.Join(outDir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := os.Create(filepath.Join(outDir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(vxBinary(t), args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, testEnv(), stdout, stderr
	newProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close()
	stderr.Close()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			killProcessGroup(cmd)
			cmd.Wait()
		}
	})
	return cmd, func() (string, string) {
		o, _ := os.ReadFile(stdout.Name())
		e, _ := os.ReadFile(stderr.Name())
		return string(o), string(e)
	}
}

// exitedFunc reports whether cmd's process has ended, without reaping it
// (an ended child stays a zombie until cmd.Wait).
func exitedFunc(cmd *exec.Cmd) func() bool {
	return func() bool { return !processAlive(cmd.Process.Pid) }
}

// TestReliabilityNoOrphan proves that interrupting vx leaves nothing of
// the task trees behind: with tasks that start grandchildren (background
// sleeps that ignore SIGINT, a node process under sh that ignores every
// signal, one that exits on the first), SIGINT or SIGTERM sent to vx alone
// (docker stop, a CI cancel) or to vx's whole process group (what a
// terminal does on Ctrl-C; vx runs in its own group here so the test can do
// it) must end every process of every tree once vx has exited after
// --grace 500ms; each node process must have received exactly one signal,
// the one sent; vx exits 128+signal.
func TestReliabilityNoOrphan(t *testing.T) {
	watchInterrupts(t)
	type sigCounts = map[string]string // project -> its "signals" file
	counts := func(sig syscall.Signal, projects ...string) sigCounts {
		m := sigCounts{}
		for _, p := range projects {
			if sig == syscall.SIGINT {
				m[p] = "INT=1 TERM=0\n"
			} else {
				m[p] = "INT=0 TERM=1\n"
			}
		}
		return m
	}
	all := []string{"fg", "polite", "shell", "stubborn"}
	tests := []struct {
		name     string
		project  string // run one task in this project; "" = all, at the root
		sig      syscall.Signal
		group    bool
		wantCode int
	}{
		{"SIGINT to vx", "", syscall.SIGINT, false, 130},
		{"SIGTERM to vx", "", syscall.SIGTERM, false, 143},
		{"SIGINT to vx's group", "", syscall.SIGINT, true, 130},
		{"SIGTERM to vx's group", "", syscall.SIGTERM, true, 143},
		{"SIGINT to vx running one task", "stubborn", syscall.SIGINT, false, 130},
		{"SIGINT to the group of vx running one task", "stubborn", syscall.SIGINT, true, 130},
		{"SIGTERM to vx running one task", "stubborn", syscall.SIGTERM, false, 143},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := orphanWorkspace(t, orphanScripts)
			projects := all
			dir := root
			if tc.project != "" {
				projects = []string{tc.project}
				dir = filepath.Join(root, "packages", tc.project)
			}
			var ready []string
			for _, p := range projects {
				ready = append(ready, filepath.Join(root, "packages", p, "ready"))
			}
			cmd, output := startVx(t, dir, "run", "work", "--grace", "500ms", "--concurrency", "4")
			var tr tree
			t.Cleanup(tr.kill)
			waitFiles(t, 15*time.Second, exitedFunc(cmd), ready...)
			for _, p := range projects {
				tr.add(readPids(t, filepath.Join(root, "packages", p, "pids")))
			}
			// The foreground sleep of "fg" starts right after "ready".
			time.Sleep(50 * time.Millisecond)
			for _, g := range tr.groups {
				tr.add(groupMembers(g))
			}
			if slices.Contains(tr.groups, cmd.Process.Pid) {
				t.Errorf("a task process is in vx's own process group %d: a terminal's Ctrl-C would reach it twice", cmd.Process.Pid)
			}

			target := cmd.Process.Pid
			if tc.group {
				target = -target
			}
			sent := time.Now()
			if err := syscall.Kill(target, tc.sig); err != nil {
				t.Fatal(err)
			}
			res, ok := waitDeadline(cmd, 15*time.Second)
			took := time.Since(sent)
			stdout, stderr := output()
			if !ok {
				t.Fatalf("vx did not exit within 15s of %v; stderr:\n%s", tc.sig, stderr)
			}
			t.Logf("vx exited %d, %v after %v", res.code, took.Round(time.Millisecond), tc.sig)
			if res.code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; stdout:\n%s\nstderr:\n%s", res.code, tc.wantCode, stdout, stderr)
			}
			if alive := tr.survivors(2 * time.Second); len(alive) > 0 {
				t.Errorf("%d task processes outlived vx by 2s:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
			var counted []string
			for _, p := range projects {
				if p == "stubborn" || p == "polite" {
					counted = append(counted, p)
				}
			}
			want := counts(tc.sig, counted...)
			got := sigCounts{}
			for p := range want {
				b, _ := os.ReadFile(filepath.Join(root, "packages", p, "signals"))
				got[p] = string(b)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("signals received by the node processes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReliabilityNoOrphanAfterExit proves that processes a task leaves
// running do not outlive vx when nobody signals it: a task that fails under
// the default bail while others still run (they are let finish, each
// leaving a background sleep 300 in its tree), and tasks that succeed but
// leave a background process, alone and among others.
func TestReliabilityNoOrphanAfterExit(t *testing.T) {
	watchInterrupts(t)
	leaves := `sleep 300 & echo $! >> pids; echo $$ >> pids; touch ready; echo done`
	tests := []struct {
		name     string
		scripts  map[string]string
		project  string
		args     []string
		wantCode int
		notRun   []string // projects whose script must not have started
	}{
		{
			name: "a task fails under bail while others run",
			scripts: map[string]string{
				"fails": `sleep 300 & echo $! >> pids; echo $$ >> pids; touch ready; while [ ! -f ../slow/ready ] || [ ! -f ../node/ready ]; do sleep 0.02; done; touch failed; exit 3`,
				// runs on until the failure, so that zlater cannot take its slot
				"slow":   `sleep 300 & echo $! >> pids; echo $$ >> pids; touch ready; while [ ! -f ../fails/failed ]; do sleep 0.02; done; sleep 0.5`,
				"node":   `sleep 300 & echo $! >> pids; echo $$ >> pids; node ../../counter.js 1500`,
				"zlater": `touch ready; echo $$ >> pids; sleep 300`,
			},
			args:     []string{"run", "work", "--concurrency", "3", "--grace", "500ms"},
			wantCode: 1,
			notRun:   []string{"zlater"},
		},
		{
			name:     "one task leaves a background process",
			scripts:  map[string]string{"leaves": leaves},
			project:  "leaves",
			args:     []string{"run", "work"},
			wantCode: 0,
		},
		{
			name:     "several tasks leave background processes",
			scripts:  map[string]string{"a": leaves, "b": leaves, "c": leaves},
			args:     []string{"run", "work", "--concurrency", "2"},
			wantCode: 0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := orphanWorkspace(t, tc.scripts)
			dir := root
			if tc.project != "" {
				dir = filepath.Join(root, "packages", tc.project)
			}
			cmd, output := startVx(t, dir, tc.args...)
			var tr tree
			t.Cleanup(tr.kill)
			// Record the trees while vx runs, as they appear.
			start := time.Now()
			exited := exitedFunc(cmd)
			for !exited() && time.Since(start) < 20*time.Second {
				for p := range tc.scripts {
					tr.add(readPids(t, filepath.Join(root, "packages", p, "pids")))
				}
				time.Sleep(5 * time.Millisecond)
			}
			res, ok := waitDeadline(cmd, time.Second)
			stdout, stderr := output()
			if !ok {
				t.Fatalf("vx did not end within 20s; stderr:\n%s", stderr)
			}
			for p := range tc.scripts {
				tr.add(readPids(t, filepath.Join(root, "packages", p, "pids")))
			}
			t.Logf("vx exited %d after %v", res.code, time.Since(start).Round(time.Millisecond))
			if res.code != tc.wantCode {
				t.Errorf("exit code = %d, want %d; stdout:\n%s\nstderr:\n%s", res.code, tc.wantCode, stdout, stderr)
			}
			if len(tr.pids) == 0 {
				t.Fatalf("no task recorded a pid; stderr:\n%s", stderr)
			}
			if alive := tr.survivors(2 * time.Second); len(alive) > 0 {
				t.Errorf("%d task processes outlived vx by 2s:\n  %s", len(alive), strings.Join(alive, "\n  "))
			}
			for _, p := range tc.notRun {
				if _, err := os.Stat(filepath.Join(root, "packages", p, "ready")); err == nil {
					t.Errorf("%s#work started after a failure under bail", p)
				}
			}
		})
	}
}

// leakSecrets are names a CI machine or a developer's shell commonly holds
// and no task declared: each must stay out of every child unless declared.
// They include the variables vx itself sets (as an outer vx run or npm
// would have set them for another package) and, on Unix where names are
// case-sensitive, other spellings of the essentials.
var leakSecrets = []string{
	"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "GH_TOKEN",
	"NPM_TOKEN", "NODE_AUTH_TOKEN", "npm_config__auth", "npm_config__authToken", "npm_config_registry",
	"NPM_CONFIG_USERCONFIG", "SSH_AUTH_SOCK", "DOCKER_AUTH_CONFIG", "DATABASE_URL", "SENTRY_AUTH_TOKEN",
	"VX_RUN_TASK", "npm_lifecycle_event", "npm_lifecycle_script", "npm_package_name",
	"npm_package_version", "npm_package_json", "npm_config_user_agent", "INIT_CWD",
	"OLDPWD", "_", "SHLVL", "ENV", "BASH_ENV", "PS4", "CDPATH",
	"path", "Path", "home", "Home", "SystemRoot", "ComSpec", "PathExt", "tmpdir",
	"NEXT_PUBLIC_API", "NEXT_PUBLIC_KEY", "NEXT_PUBLICITY", "next_public_lower", "AWS_REGION",
	"with space", "A.B", "Ünïcödé", "1LEADING_DIGIT", "x-y", "PAT", "PATHS",
}

// leakPatterns are passThrough prefixes a declaration may use.
var leakPatterns = []string{"NEXT_PUBLIC_*", "AWS_*", "npm_*", "npm_config_*", "VX_*", "RND_1*", "next_*", "NOPE_*", "PAT*", "Ü*"}

type leakDecl struct {
	PassThrough []string          `json:"passThrough,omitempty"`
	Define      map[string]string `json:"define,omitempty"`
}

// wrapEnv returns the "tasks" object of vx.json for declarations.
func wrapEnv(tasks map[string]leakDecl) map[string]any {
	m := map[string]any{}
	for k, d := range tasks {
		m[k] = map[string]any{"env": d}
	}
	return m
}

type leakProject struct {
	name, dir, version, script string
}

var leakProjects = []leakProject{
	{"web", "packages/web", "2.0.0", "vxrel envdump env.out"},
	{"api", "packages/api", "", "vxrel envdump env.out # api"},
	{"@scope/lib", "packages/lib", "0.1.0-rc.1", "vxrel  envdump  env.out"},
}

// TestReliabilityNoLeak is a property test: for random parent environments
// seeded with secret-looking names and random declarations (passThrough
// names present or not, prefixes, defines overriding essentials, PATH and
// vx's own names), the environment a real task child receives (dumped by
// the child itself) is exactly: the essentials the parent has, the declared
// names the parent has, the defines, PATH with the project's and the
// root's node_modules/.bin in front, and the variables vx sets
// (VX_RUN_WORKSPACE, VX_RUN_TASK, npm_lifecycle_event,
// npm_lifecycle_script, npm_package_name and npm_package_version when the
// package.json has them, npm_package_json, PWD: the task's directory, which
// the shell keeps).
// `vx env` must print the same environment (no drift). Even seeds run all
// tasks from the root (prefixed output), odd seeds one task (passthrough).
func TestReliabilityNoLeak(t *testing.T) {
	t.Parallel() // its own workspaces, no signal; the signal tests, which are not parallel, have ended
	watchInterrupts(t)
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	other := t.TempDir() // the workspace of an outer vx run
	writeTree(t, other, map[string]string{"package.json": pkg("other", build)})
	shPath, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	for seed := range rounds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			leakRound(t, uint64(seed), other, shPath)
		})
	}
}

func leakRound(t *testing.T, seed uint64, other, shPath string) {
	rng := rand.New(rand.NewPCG(seed, 0x1ea4))
	maybe := func(p float64) bool { return rng.Float64() < p }
	value := func() string {
		switch rng.IntN(9) {
		case 0:
			return ""
		case 1:
			return "a=b=c"
		case 2:
			return "line one\nline two\n"
		case 3:
			return " ünï cödé "
		case 4:
			return `$HOME '"` + "`x`"
		case 5:
			return strings.Repeat("long", 300)
		default:
			return "v" + strconv.Itoa(rng.IntN(1000))
		}
	}

	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	// The parent environment vx is started with.
	parent := map[string]string{}
	for _, k := range essentialNames {
		if maybe(0.5) {
			parent[k] = value()
		}
	}
	switch {
	case maybe(0.8):
		parent["PATH"] = "/usr/local/bin:/usr/bin:/bin"
	case maybe(0.5):
		parent["PATH"] = ""
	default:
		delete(parent, "PATH")
	}
	for _, k := range leakSecrets {
		if maybe(0.8) {
			parent[k] = "secret-" + k
		}
	}
	for range rng.IntN(20) {
		parent["RND_"+strconv.Itoa(rng.IntN(40))] = value()
	}
	switch rng.IntN(3) {
	case 0:
		parent["VX_RUN_WORKSPACE"] = other
	case 1:
		parent["VX_RUN_WORKSPACE"] = filepath.Join(other, "gone") // stale
	}
	if maybe(0.5) { // an outer chain of nested runs, carried on
		parent["VX_RUN_CHAIN"] = filepath.Join(other, "outer") + "::" + filepath.Join(other, "gone")
	}
	var parentEnv []string
	for k, v := range parent {
		parentEnv = append(parentEnv, k+"="+v)
	}
	slices.Sort(parentEnv)

	// Random declarations: a generic entry and some project entries.
	pool := []string{"MISSING_A", "MISSING_B", "VX_RUN_WORKSPACE", "VX_RUN_TASK", "npm_package_name", "npm_package_version", "npm_lifecycle_event"}
	pool = append(pool, essentialNames...)
	for k := range parent {
		pool = append(pool, k)
	}
	slices.Sort(pool)
	pool = slices.Compact(pool)
	decl := func() leakDecl {
		var d leakDecl
		for range rng.IntN(8) {
			d.PassThrough = append(d.PassThrough, pool[rng.IntN(len(pool))])
		}
		for range rng.IntN(3) {
			d.PassThrough = append(d.PassThrough, leakPatterns[rng.IntN(len(leakPatterns))])
		}
		for i := range rng.IntN(5) {
			if d.Define == nil {
				d.Define = map[string]string{}
			}
			name := "DEFINED_" + strconv.Itoa(i)
			if maybe(0.6) {
				name = pool[rng.IntN(len(pool))]
			}
			d.Define[name] = value()
		}
		return d
	}
	tasks := map[string]leakDecl{"dump": decl()}
	for _, p := range leakProjects {
		if maybe(0.4) {
			tasks[p.name+"#dump"] = decl()
		}
	}

	files := map[string]string{
		"package.json": wsRoot,
		"vx.json":      mustJSON(t, map[string]any{"tasks": wrapEnv(tasks)}),
	}
	for _, p := range leakProjects {
		m := map[string]any{"name": p.name, "scripts": map[string]string{"dump": p.script}}
		if p.version != "" {
			m["version"] = p.version
		}
		files[p.dir+"/package.json"] = mustJSON(t, m)
	}
	files["packages/web/node_modules/.bin/.keep"] = ""
	writeTree(t, root, files)
	bin := filepath.Join(root, "node_modules", ".bin")
	installHelper(t, bin)
	// sh is found through the bins even when the parent has no PATH.
	if err := os.Symlink(shPath, filepath.Join(bin, "sh")); err != nil {
		t.Fatal(err)
	}

	// The model: what each child must receive.
	expect := func(p leakProject, start string, shown map[string]string) map[string]string {
		d, ok := tasks[p.name+"#dump"]
		if !ok {
			d = tasks["dump"]
		}
		want := map[string]string{}
		for _, k := range essentialNames {
			if v, ok := parent[k]; ok {
				want[k] = v
			}
		}
		for _, pt := range d.PassThrough {
			if prefix, ok := strings.CutSuffix(pt, "*"); ok {
				for k, v := range parent {
					if strings.HasPrefix(k, prefix) {
						want[k] = v
					}
				}
			} else if v, ok := parent[pt]; ok {
				want[pt] = v
			}
		}
		for k, v := range d.Define {
			want[k] = v
		}
		dir := filepath.Join(root, filepath.FromSlash(p.dir))
		bins := filepath.Join(dir, "node_modules", ".bin") + ":" + bin
		if old := want["PATH"]; old != "" {
			want["PATH"] = bins + ":" + old
		} else {
			want["PATH"] = bins
		}
		want["VX_RUN_WORKSPACE"] = root
		want["VX_RUN_TASK"] = p.name + "#dump"
		var chain []string // the outer chain, then the outer workspace unless last, then root
		for _, w := range strings.Split(parent["VX_RUN_CHAIN"], ":") {
			if w != "" {
				chain = append(chain, w)
			}
		}
		if ws := parent["VX_RUN_WORKSPACE"]; ws != "" && (len(chain) == 0 || chain[len(chain)-1] != ws) {
			chain = append(chain, ws)
		}
		want["VX_RUN_CHAIN"] = strings.Join(append(chain, root), ":")
		want["npm_lifecycle_event"] = "dump"
		want["npm_lifecycle_script"] = p.script
		want["npm_package_json"] = filepath.Join(dir, "package.json")
		want["PWD"] = dir
		want["INIT_CWD"] = dir // the project's, wherever vx started
		// The package manager's variables describe what is installed on
		// this machine (npm, found through PATH): check their form, and
		// that npm_execpath names a file, then take them as shown.
		delete(want, "npm_config_user_agent")
		delete(want, "npm_execpath")
		if ua, ok := shown["npm_config_user_agent"]; ok && npmAgent.MatchString(ua) {
			want["npm_config_user_agent"] = ua
		}
		if ep, ok := shown["npm_execpath"]; ok {
			if fi, err := os.Stat(ep); err == nil && fi.Mode().IsRegular() {
				want["npm_execpath"] = ep
			}
		}
		delete(want, "npm_package_name")
		if p.name != "" {
			want["npm_package_name"] = p.name
		}
		delete(want, "npm_package_version")
		if p.version != "" {
			want["npm_package_version"] = p.version
		}
		return want
	}

	run := leakProjects
	dir := root
	if seed%2 == 1 {
		p := leakProjects[int(seed/2)%len(leakProjects)]
		run = []leakProject{p}
		dir = filepath.Join(root, filepath.FromSlash(p.dir))
	}
	r := runVx(t, 30*time.Second, dir, parentEnv, "run", "dump", "--concurrency", "3")
	if r.code != 0 {
		t.Fatalf("vx run dump exit code = %d, want 0\nstdout:\n%s\nstderr:\n%s\nvx.json: %.3000s", r.code, r.stdout, r.stderr, files["vx.json"])
	}
	for _, p := range run {
		pdir := filepath.Join(root, filepath.FromSlash(p.dir))
		got := readEnvDump(t, filepath.Join(pdir, "env.out"))

		// 1. vx env shows exactly the policy.
		e := runVx(t, 20*time.Second, dir, parentEnv, "env", p.name+"#dump", "--json")
		if e.code != 0 {
			t.Fatalf("vx env %s#dump exit code = %d; stderr %s", p.name, e.code, e.stderr)
		}
		var shown struct {
			Task string            `json:"task"`
			Env  map[string]string `json:"env"`
		}
		if err := json.Unmarshal(e.stdout, &shown); err != nil {
			t.Fatalf("vx env --json: %v\n%s", err, e.stdout)
		}
		if diff := cmp.Diff(expect(p, dir, shown.Env), shown.Env); diff != "" {
			t.Errorf("vx env %s#dump mismatch (-want +got):\n%s\nparent: %.3000q\nvx.json: %.3000s", p.name, diff, parentEnv, files["vx.json"])
		}

		// 2. The child received exactly what vx env shows, as seen through
		// the same shell: the same script run by sh directly with that env
		// dumps the same environment.
		var shownEnv []string
		for k, v := range shown.Env {
			shownEnv = append(shownEnv, k+"="+v)
		}
		sh := exec.Command(shPath, "-c", strings.Replace(p.script, "env.out", "direct.out", 1))
		sh.Dir, sh.Env = pdir, shownEnv
		if out, err := sh.CombinedOutput(); err != nil {
			t.Fatalf("sh -c %q with the env of vx env: %v %s", p.script, err, out)
		}
		direct := readEnvDump(t, filepath.Join(pdir, "direct.out"))
		if diff := cmp.Diff(direct, got); diff != "" {
			t.Errorf("%s#dump: the child's environment differs from that of the same script run by sh with the env vx env shows (-sh +child):\n%s\nparent: %.3000q\nvx.json: %.3000s", p.name, diff, parentEnv, files["vx.json"])
		}

		// 3. And the shell's own doing is known exactly: it keeps PWD (the
		// task's directory) and drops names that are not shell identifiers.
		for k, v := range got {
			if k == "PWD" {
				if v != pdir {
					t.Errorf("%s#dump: PWD = %q, want the task's directory %q", p.name, v, pdir)
				}
				continue
			}
			if sv, ok := shown.Env[k]; !ok || sv != v {
				t.Errorf("%s#dump: the child has %s=%q, which vx env does not show (%q, %v)", p.name, k, v, sv, ok)
			}
		}
		if _, ok := got["PWD"]; !ok {
			t.Errorf("%s#dump: the shell did not export PWD", p.name)
		}
		for k := range shown.Env {
			if _, ok := got[k]; !ok && shellIdentifier.MatchString(k) {
				t.Errorf("%s#dump: %s, a shell identifier vx env shows, did not reach the child", p.name, k)
			}
		}
	}
}

// shellIdentifier matches the names a POSIX shell exports to its children;
// dash drops the others (A.B, x-y, 1X) from the environment it passes on.
var shellIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// TestReliabilityGuard proves the nested-run guard holds under pressure:
// scripts that call `vx run` on their own workspace directly, through
// `npm run`, through a symlinked path, and from the root's own script end
// at once with the nested-run message and exit 2 (npm passes the code on),
// alone and at concurrency 1 and 8, instead of forking forever. A nested
// run of a different workspace still runs, with that workspace's values.
// Each script counts how often it starts in a file and stops by itself at
// depth 4, so a broken guard fails the test instead of forking the machine
// to death; the count must be exactly 1. The times are logged (-v) and
// reported in docs/reliability.md; the assertion is only that each run
// ends before a generous deadline.
func TestReliabilityGuard(t *testing.T) {
	watchInterrupts(t)
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, other := filepath.Join(base, "ws"), filepath.Join(base, "other")
	if err := os.Symlink(ws, filepath.Join(base, "alias")); err != nil {
		t.Fatal(err)
	}
	hasNpm := true
	if _, err := exec.LookPath("npm"); err != nil {
		hasNpm = false
	}
	// count appends a line to depth-<name> at the root of ws and stops at
	// depth 4, whatever the guard does.
	count := func(rel, name string) string {
		f := rel + "depth-" + name
		return fmt.Sprintf(`echo x >> %s; [ "$(cat %s | wc -l)" -le 3 ] || { echo "runaway: depth 4" >&2; exit 99; }; `, f, f)
	}
	refusing := []string{"direct", "link"}
	files := map[string]string{
		"ws/package.json":                 pkg("root", map[string]string{"build": count("", "root") + "vx run build"}, "private", "true", "workspaces", `["packages/*"]`),
		"ws/packages/direct/package.json": pkg("direct", map[string]string{"build": count("../../", "direct") + "vx run build"}),
		"ws/packages/link/package.json":   pkg("link", map[string]string{"build": count("../../", "link") + "cd ../../../alias/packages/link && vx run build"}),
		"ws/packages/other/package.json":  pkg("other", map[string]string{"build": "cd ../../../other && vx run hello"}),
		"other/package.json":              pkg("other", map[string]string{"hello": `echo "hello $VX_RUN_TASK $VX_RUN_WORKSPACE"`}),
	}
	if hasNpm {
		refusing = append(refusing, "npm")
		files["ws/packages/npm/package.json"] = pkg("npm", map[string]string{"build": count("../../", "npm") + "npm run --silent inner", "inner": "vx run build"})
	}
	for i := 2; i <= 6; i++ {
		name := "direct" + strconv.Itoa(i)
		refusing = append(refusing, name)
		files["ws/packages/"+name+"/package.json"] = pkg(name, map[string]string{"build": count("../../", name) + "vx run build"})
	}
	writeTree(t, base, files)

	reset := func() {
		m, _ := filepath.Glob(filepath.Join(ws, "depth-*"))
		for _, f := range m {
			os.Remove(f)
		}
	}
	depths := func(t *testing.T, names ...string) {
		t.Helper()
		for _, n := range names {
			b, _ := os.ReadFile(filepath.Join(ws, "depth-"+n))
			if got := strings.Count(string(b), "\n"); got != 1 {
				t.Errorf("%s#build started %d times, want 1 (the nested run must be refused)", n, got)
			}
		}
	}
	env := testEnv()
	single := []struct {
		name, dir, want string
		args            []string
		needNpm         bool
		wantCode        int
	}{
		{name: "direct", dir: "ws/packages/direct", want: "direct#build", wantCode: 2},
		{name: "through npm run", dir: "ws/packages/npm", want: "npm#build", needNpm: true, wantCode: 2},
		{name: "through a symlinked path", dir: "ws/packages/link", want: "link#build", wantCode: 2},
		{name: "outer run through the symlink", dir: "alias/packages/direct", want: "direct#build", wantCode: 2},
		{name: "the root's own script", dir: "ws", args: []string{"run", "build", "--filter", "root"}, want: "root#build", wantCode: 2},
		{name: "another workspace runs", dir: "ws/packages/other", wantCode: 0},
	}
	for _, tc := range single {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needNpm && !hasNpm {
				testtool.Missing(t, "npm", "it comes with Node.js; .ci/run has it")
			}
			reset()
			args := tc.args
			if args == nil {
				args = []string{"run", "build"}
			}
			dir := filepath.Join(base, filepath.FromSlash(tc.dir))
			env := append(slices.Clip(env), "PWD="+dir) // so vx sees the symlinked path
			r := runVx(t, 20*time.Second, dir, env, args...)
			t.Logf("ended in %v with exit code %d", r.elapsed.Round(time.Millisecond), r.code)
			if r.code != tc.wantCode {
				t.Errorf("exit code = %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			if tc.wantCode == 0 {
				want := fmt.Sprintf("hello other#hello %s\n", other)
				if string(r.stdout) != want {
					t.Errorf("stdout = %q, want %q", r.stdout, want)
				}
				return
			}
			msg := regexp.MustCompile(`vx: refusing .*` + regexp.QuoteMeta(strconv.Quote(tc.want)) + `.*dependsOn`)
			if !msg.Match(r.stderr) {
				t.Errorf("stderr does not hold the nested-run message naming %q:\n%s", tc.want, r.stderr)
			}
			n, _, _ := strings.Cut(tc.want, "#")
			depths(t, n)
		})
	}
	for _, conc := range []string{"1", "8"} {
		t.Run("all at concurrency "+conc, func(t *testing.T) {
			reset()
			r := runVx(t, 30*time.Second, ws, env, "run", "build", "--continue", "--concurrency", conc)
			t.Logf("%d tasks ended in %v with exit code %d", len(refusing)+1, r.elapsed.Round(time.Millisecond), r.code)
			if r.code != 1 {
				t.Errorf("exit code = %d, want 1\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			for _, n := range refusing {
				msg := regexp.MustCompile(`(?m)^` + n + `#build *\| vx: refusing .*` + regexp.QuoteMeta(strconv.Quote(n+"#build")))
				if !msg.Match(r.stderr) {
					t.Errorf("stderr has no nested-run message from %s#build:\n%s", n, r.stderr)
				}
			}
			hello := regexp.MustCompile(`(?m)^other#build *\| hello other#hello ` + regexp.QuoteMeta(other) + `$`)
			if !hello.Match(r.stdout) {
				t.Errorf("stdout has no hello from the other workspace:\n%s", r.stdout)
			}
			summary := regexp.MustCompile(fmt.Sprintf(`(?m)^vx: %d tasks: 1 succeeded, %d failed \(`, len(refusing)+1, len(refusing)))
			if !summary.Match(r.stderr) {
				t.Errorf("stderr has no summary with %d failures:\n%s", len(refusing), r.stderr)
			}
			depths(t, refusing...)
		})
	}
}

// platformBrokenCases are the bad inputs that need symlinks, permissions
// or file names that are not UTF-8.
func platformBrokenCases() []brokenCase {
	special := func(rel, kind string) func(t *testing.T, root string) {
		return func(t *testing.T, root string) {
			path := filepath.Join(root, filepath.FromSlash(rel))
			os.Remove(path)
			var err error
			if kind == "fifo" {
				err = syscall.Mkfifo(path, 0o644)
			} else {
				err = os.Symlink(kind, path)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return []brokenCase{
		{name: "project package.json is a symlink to dev-zero", files: map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build)},
			setup: special("packages/a/package.json", "/dev/zero"), want: `packages.a.package\.json: cannot read: not a regular file but a character device`},
		{name: "project package.json is a FIFO", files: map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build)},
			setup: special("packages/a/package.json", "fifo"), want: `packages.a.package\.json: cannot read: not a regular file but a named pipe`},
		{name: "root package.json is a FIFO", files: map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build)},
			setup: special("package.json", "fifo"), dir: "packages/a", want: `package\.json: cannot read: not a regular file but a named pipe`},
		{name: "vx.json is a FIFO", files: map[string]string{"package.json": pkg("a", build), "vx.json": "{}"},
			setup: special("vx.json", "fifo"), want: `vx\.json: cannot read: not a regular file but a named pipe`},
		{name: "vx.json is a symlink to dev-zero", files: map[string]string{"package.json": pkg("a", build), "vx.json": "{}"},
			setup: special("vx.json", "/dev/zero"), want: `vx\.json: cannot read: not a regular file but a character device`},
		{name: "pnpm-workspace.yaml is a FIFO", files: map[string]string{"package.json": pkg("root", nil), "pnpm-workspace.yaml": "packages: [packages/*]\n", "packages/a/package.json": pkg("a", build)},
			setup: special("pnpm-workspace.yaml", "fifo"), dir: "packages/a", want: `pnpm-workspace\.yaml: cannot read: not a regular file but a named pipe`},
		{
			name:  "10000-deep symlink chain as a project directory",
			files: map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build), "elsewhere/real/package.json": pkg("real", build)},
			setup: func(t *testing.T, root string) {
				chain := filepath.Join(root, "chain")
				if err := os.Mkdir(chain, 0o755); err != nil {
					t.Fatal(err)
				}
				const depth = 10000
				for i := range depth {
					target := "l" + strconv.Itoa(i+1)
					if i == depth-1 {
						target = filepath.Join(root, "elsewhere", "real")
					}
					if err := os.Symlink(target, filepath.Join(chain, "l"+strconv.Itoa(i))); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Symlink(filepath.Join(chain, "l0"), filepath.Join(root, "packages", "deep")); err != nil {
					t.Fatal(err)
				}
			},
			want: `packages.deep`,
		},
		{
			name:  "symlink loop as a project directory",
			files: map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build)},
			setup: func(t *testing.T, root string) {
				if err := os.Symlink("loop", filepath.Join(root, "packages", "loop")); err != nil {
					t.Fatal(err)
				}
			},
			want: `packages.loop`,
		},
		{
			// Not an error: a ** pattern over a directory that links to its
			// parent must end (each directory followed once), not hang.
			name:  "symlink cycle under a ** pattern",
			files: map[string]string{"package.json": `{"name": "root", "workspaces": ["packages/**"]}`, "packages/a/package.json": pkg("a", build)},
			setup: func(t *testing.T, root string) {
				if err := os.Symlink("..", filepath.Join(root, "packages", "a", "up")); err != nil {
					t.Fatal(err)
				}
			},
			args: []string{"ls"},
			ok0:  true,
		},
		{
			name:   "unreadable project directory",
			files:  map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build), "packages/secret/package.json": pkg("secret", build)},
			setup:  func(t *testing.T, root string) { os.Chmod(filepath.Join(root, "packages", "secret"), 0) },
			runner: runUnprivileged,
			want:   `packages.secret`,
		},
		{
			name:   "unreadable packages directory",
			files:  map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build)},
			setup:  func(t *testing.T, root string) { os.Chmod(filepath.Join(root, "packages"), 0o311) },
			runner: runUnprivileged,
			want:   `packages`,
		},
		{
			name:  "invalid UTF-8 in a nameless project's directory",
			files: map[string]string{"package.json": wsRoot, "packages/\xff\xfe/package.json": `{"scripts": {"build": "echo built"}}`},
			want:  `UTF-8|\\xff`,
		},
	}
}

// runUnprivileged runs vx as the user nobody when the test runs as root,
// because root reads a directory whatever its mode, so chmod alone would
// prove nothing. It skips when that is impossible, saying why.
func runUnprivileged(t *testing.T, dir string, args []string) vxRun {
	t.Helper()
	if os.Geteuid() != 0 {
		return runVx(t, 20*time.Second, dir, testEnv(), args...)
	}
	const nobody = 65534
	// nobody must reach the workspace and vx: open up the test's temporary
	// directories (created 0700) and use a copy of vx in one of them.
	for d := dir; strings.HasPrefix(d, os.TempDir()) && len(d) > len(os.TempDir()); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	vxDir := t.TempDir()
	os.Chmod(vxDir, 0o755)
	os.Chmod(filepath.Dir(vxDir), 0o755)
	data, err := os.ReadFile(vxBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	vx := filepath.Join(vxDir, "vx")
	if err := os.WriteFile(vx, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cred := &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	probe := exec.Command(vx, "--version")
	probe.SysProcAttr = cred
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("running as root, and vx cannot be started as nobody (uid %d) to make chmod bite: %v %s", nobody, err, out)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(vx, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = dir, testEnv(), &stdout, &stderr, cred
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r, ok := waitDeadline(cmd, 20*time.Second)
	r.elapsed, r.stdout, r.stderr = time.Since(start), stdout.Bytes(), stderr.Bytes()
	if !ok {
		t.Fatalf("vx %q did not end within 20s", args)
	}
	return r
}

// npmAgent is the form of npm's npm_config_user_agent, which vx sets for
// the tasks of an npm workspace.
var npmAgent = regexp.MustCompile(`^npm/\S+ node/\S+ [a-z0-9]+ [a-z0-9]+ workspaces/false$`)
