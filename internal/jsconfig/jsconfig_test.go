package jsconfig

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/helper"
	"github.com/vxrun/vx/internal/jsconfig/evaluate"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// vxConfig is vx-config for the tests that evaluate: a copy of this test
// binary, which runs as vx-config under that name (see TestMain).
var vxConfig struct {
	once sync.Once
	path string
	err  error
	dir  string
}

func TestMain(m *testing.M) {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == "vx-config" {
		if d, err := time.ParseDuration(os.Getenv("VX_TEST_HELPER_COMPILES")); err == nil {
			time.Sleep(d) // as go run compiling it
		}
		os.Exit(evaluate.Main(os.Stdin, os.Stdout, os.Stderr, os.Environ()))
	}
	code := m.Run()
	if vxConfig.dir != "" {
		testdir.RemoveTree(vxConfig.dir)
	}
	os.Exit(code)
}

// helperPath returns vx-config, or skips when node is missing (nothing can
// be evaluated then).
func helperPath(t *testing.T) string {
	t.Helper()
	testtool.Need(t, "Node.js 18 or later; .ci/run has it: it evaluates vx.config.ts", "node")
	vxConfig.once.Do(func() {
		vxConfig.dir, vxConfig.err = os.MkdirTemp("", "vx-config-test")
		if vxConfig.err != nil {
			return
		}
		vxConfig.path = filepath.Join(vxConfig.dir, helper.FileName("vx-config", runtime.GOOS))
		vxConfig.err = copyFile(vxConfig.path)
	})
	if vxConfig.err != nil {
		t.Fatal(vxConfig.err)
	}
	return vxConfig.path
}

// copyFile copies this test binary to dst, executable.
func copyFile(dst string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

// fixture is a workspace and the options that load it.
type fixture struct {
	t      *testing.T
	root   string
	opts   Options
	stderr *bytes.Buffer
}

func newFixture(t *testing.T, files map[string]string, projects ...string) *fixture {
	t.Helper()
	root := testdir.New(t)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	f := &fixture{t: t, root: root, stderr: &bytes.Buffer{}}
	for name, content := range files {
		f.write(name, content)
	}
	store := filepath.Join(root, "node_modules", ".cache", "vx")
	f.opts = Options{
		Root:     root,
		Environ:  os.Environ(),
		GOOS:     runtime.GOOS,
		Version:  "v1.0.0-test",
		MemoFile: filepath.Join(store, MemoName),
		MemoTemp: func() (string, error) {
			tmp := filepath.Join(store, "tmp")
			return tmp, os.MkdirAll(tmp, 0o755)
		},
		Stderr: f.stderr,
	}
	for _, p := range projects {
		name, dir, _ := strings.Cut(p, "=")
		f.opts.Projects = append(f.opts.Projects, Project{Name: name, Dir: filepath.Join(root, filepath.FromSlash(dir))})
	}
	return f
}

// evaluating lets the fixture's loads start vx-config (built for the
// tests); without node on PATH the test is skipped.
func (f *fixture) evaluating() *fixture {
	f.t.Helper()
	f.opts.Environ = append(f.opts.Environ, HelperEnv+"="+helperPath(f.t))
	return f
}

func (f *fixture) write(name, content string) {
	f.t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) load() (*Result, error) {
	f.t.Helper()
	return Load(f.opts)
}

func (f *fixture) mustLoad(wantMemo string) *config.Config {
	f.t.Helper()
	res, err := f.load()
	if err != nil {
		f.t.Fatalf("Load: %v\nstderr: %s", err, f.stderr)
	}
	if res.Memo != wantMemo {
		f.t.Fatalf("Load: memo %q, want %q", res.Memo, wantMemo)
	}
	return res.Config
}

// withoutHelper makes starting vx-config fail: a Load that succeeds then
// did not evaluate anything, so started no node.
func (f *fixture) withoutHelper() Options {
	o := f.opts
	o.Environ = append(append([]string(nil), o.Environ...), HelperEnv+"="+filepath.Join(f.root, "no-such-helper"))
	return o
}

const envConfig = `import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { defineConfig } from "@vxrun/vx";
const dotenv = parseEnv(readFileSync(".env", "utf8"));
export default defineConfig({
  tasks: { build: { env: { define: { ...dotenv, MODE: process.env.VX_TEST_MODE ?? "dev" } } } },
});
`

func define(c *config.Config) map[string]string { return c.Tasks["build"].Define }

// TestLoadRemembers: a second load whose inputs did not change starts
// neither vx-config nor node; changing any input evaluates anew: a file
// the config read (.env), a variable it read, the config itself, vx.
func TestLoadRemembers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.ts": envConfig, ".env": "API=one\n"}).evaluating()
	want := map[string]string{"API": "one", "MODE": "dev"}
	if diff := cmp.Diff(want, define(f.mustLoad(MemoEvaluated))); diff != "" {
		t.Fatalf("first load (-want +got):\n%s", diff)
	}
	remembered := func() *config.Config {
		t.Helper()
		res, err := Load(f.withoutHelper())
		if err != nil {
			t.Fatalf("the memo did not hold, vx-config was needed: %v", err)
		}
		if res.Memo != MemoRemembered {
			t.Fatalf("memo %q", res.Memo)
		}
		return res.Config
	}
	if diff := cmp.Diff(want, define(remembered())); diff != "" {
		t.Fatalf("remembered (-want +got):\n%s", diff)
	}

	// .env changes: evaluated anew, the new value reaches the define.
	time.Sleep(10 * time.Millisecond)
	f.write(".env", "API=two\n")
	if _, err := Load(f.withoutHelper()); err == nil {
		t.Fatal("an edit of .env was not seen: the memo still held")
	}
	if got := define(f.mustLoad(MemoEvaluated))["API"]; got != "two" {
		t.Fatalf("after the edit API = %q", got)
	}
	remembered()

	// A variable the config read: set, then unset again.
	f.opts.Environ = append(f.opts.Environ, "VX_TEST_MODE=prod")
	if _, err := Load(f.withoutHelper()); err == nil {
		t.Fatal("setting a variable the config read was not seen")
	}
	if got := define(f.mustLoad(MemoEvaluated))["MODE"]; got != "prod" {
		t.Fatalf("MODE = %q", got)
	}
	// A variable it did not read changes nothing.
	f.opts.Environ = append(f.opts.Environ, "VX_TEST_OTHER=1")
	remembered()

	// Another vx.
	f.opts.Version = "v1.0.1-test"
	if _, err := Load(f.withoutHelper()); err == nil {
		t.Fatal("a new vx used the old memo")
	}
	f.mustLoad(MemoEvaluated)

	// Fresh evaluates whatever the memo says.
	f.opts.Fresh = true
	f.mustLoad(MemoEvaluated)
}

// TestLoadSources: the configuration's Sources are its file and what the
// evaluation read (an imported preset, .env, a listed directory), the same
// whether node evaluated it or the memo held.
func TestLoadSources(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{
		"vx.config.ts": `import { readFileSync, readdirSync } from "node:fs";
import { base } from "./presets/base";
readdirSync("presets");
export default { tasks: { build: { ...base, env: { define: { A: readFileSync(".env", "utf8").trim() } } } } };
`,
		"presets/base.ts": `export const base = { dependsOn: ["^build"] };`,
		".env":            "one",
	}).evaluating()
	rel := func(c *config.Config) []string {
		var out []string
		for _, s := range c.Sources {
			r, _ := filepath.Rel(f.root, s.Path)
			r = filepath.ToSlash(r)
			if s.Dir {
				r += "/" + s.Prefix + "*"
			}
			out = append(out, r)
		}
		slices.Sort(out)
		return out
	}
	want := []string{".env", "presets/*", "presets/base*", "presets/base.ts", "vx.config.ts"}
	if diff := cmp.Diff(want, rel(f.mustLoad(MemoEvaluated))); diff != "" {
		t.Errorf("evaluated: sources (-want +got):\n%s", diff)
	}
	res, err := Load(f.withoutHelper())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, rel(res.Config)); diff != "" {
		t.Errorf("remembered: sources (-want +got):\n%s", diff)
	}
}

// TestLoadMemoWhole: a memo that is not whole (cut short, or with a byte
// changed) reads as none; a failed evaluation leaves the memo as it was
// and nothing else in the store.
func TestLoadMemoWhole(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.ts": envConfig, ".env": "API=one\n"}).evaluating()
	f.mustLoad(MemoEvaluated)
	good, err := os.ReadFile(f.opts.MemoFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{good[:len(good)/2], bytes.Replace(good, []byte("API"), []byte("APJ"), 1), nil} {
		if err := os.WriteFile(f.opts.MemoFile, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(f.withoutHelper()); err == nil {
			t.Fatalf("a damaged memo was used: %q", bad)
		}
	}
	f.mustLoad(MemoEvaluated)
	f.write("vx.config.ts", "export default { tasks: { build: { dependsOn: 1 } } };\n")
	if _, err := f.load(); err == nil {
		t.Fatal("a bad config loaded")
	}
	f.write("vx.config.ts", "throw new Error('x');\n")
	if _, err := f.load(); err == nil {
		t.Fatal("a throwing config loaded")
	}
	if got, _ := os.ReadFile(f.opts.MemoFile); !bytes.Equal(got, good) {
		t.Errorf("a failed evaluation changed the memo:\n%s\n%s", good, got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(f.opts.MemoFile) + "/tmp"); len(entries) > 0 {
		t.Errorf("files left in the store's tmp: %v", entries)
	}
}

// TestLoadVolatile: a config that starts a program is evaluated every
// time: what the program read is not known.
func TestLoadVolatile(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.mjs": `import { execFileSync } from "node:child_process";
execFileSync(process.execPath, ["-e", "0"]);
export default { tasks: {} };
`}).evaluating()
	res, err := f.load()
	if err != nil || !strings.Contains(res.Memo, "not remembered: it starts a program") {
		t.Fatalf("Load = %+v, %v", res, err)
	}
	if _, err := Load(f.withoutHelper()); err == nil {
		t.Fatal("a volatile config was remembered")
	}
}

// TestLoadFiles: which files there are, and the errors for too many.
func TestLoadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // the error, relative to the root; "" for none
	}{
		{"vx.json alone needs no node", map[string]string{"vx.json": `{"tasks": {"build": {}}}`}, ""},
		{"both", map[string]string{"vx.json": `{}`, "vx.config.ts": `export default {}`},
			"vx.json: vx.json and vx.config.ts are both at the workspace root; keep one: a vx.config.ts holds all a vx.json can (vx config prints what it evaluates to)"},
		{"two of the others", map[string]string{"vx.config.mjs": `export default {}`, "vx.config.ts": `export default {}`},
			"vx.config.ts: vx.config.ts and vx.config.mjs are both at the workspace root; keep one: a vx.config.ts holds all a vx.json can (vx config prints what it evaluates to)"},
		{"two in a project", map[string]string{"web/vx.config.js": `export default {}`, "web/vx.config.ts": `export default {}`},
			`web/vx.config.ts: vx.config.ts and vx.config.js are both in project "web"; keep one`},
		{"a directory", map[string]string{"vx.config.ts/x": ``}, "vx.config.ts: is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.files, "web=web")
			f.opts.Environ = append(f.opts.Environ, HelperEnv+"="+filepath.Join(f.root, "no-such-helper"))
			_, err := f.load()
			got := ""
			if err != nil {
				got = diag.Message(err, f.root)
			}
			if filepath.ToSlash(got) != tc.want {
				t.Errorf("Load error = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLoadProjects: a project's own file declares its tasks as
// "<project>#<task>" entries would, beside the root's vx.json or
// vx.config.ts; the same task at both places is an error naming both.
func TestLoadProjects(t *testing.T) {
	t.Parallel()
	project := `import { defineProject } from "@vxrun/vx";
import { base } from "@acme/preset";
export default defineProject({
  tasks: {
    build: { ...base, outputs: [".next/**"] },
  },
});
`
	files := map[string]string{
		"preset/package.json":   `{"name": "@acme/preset", "main": "index.ts"}`,
		"preset/index.ts":       `export const base = { dependsOn: ["^build"] };`,
		"apps/web/vx.config.ts": project,
	}
	for _, root := range []struct{ name, file, content string }{
		{"with vx.json", "vx.json", `{"tasks": {"build": {"outputs": ["dist/**"]}}}`},
		{"with vx.config.ts", "vx.config.ts", `export default { tasks: { build: { outputs: ["dist/**"] } } }`},
	} {
		t.Run(root.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, files, "web=apps/web", "@acme/preset=preset").evaluating()
			f.write(root.file, root.content)
			c := f.mustLoad(MemoEvaluated)
			want := map[string]config.Task{
				"build":     {Outputs: []string{"dist/**"}},
				"web#build": {DependsOn: []string{"^build"}, Outputs: []string{".next/**"}},
			}
			if diff := cmp.Diff(want, c.Tasks); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			o := c.Origins["web#build"]
			if rel, _ := filepath.Rel(f.root, o.Path); filepath.ToSlash(rel) != "apps/web/vx.config.ts" || o.Line != 5 || o.Col != 5 {
				t.Errorf("web#build comes from %+v", o)
			}
		})
	}
	t.Run("declared twice", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, files, "web=apps/web", "@acme/preset=preset").evaluating()
		f.write("vx.json", "{\"tasks\": {\n  \"web#build\": {}}}")
		_, err := f.load()
		want := `apps/web/vx.config.ts:5:5: task "build" of project "web" is also declared at the workspace root, as "web#build" (vx.json:2:3); declare it in one place`
		if err == nil || filepath.ToSlash(diag.Message(err, f.root)) != want {
			t.Errorf("Load error = %v, want %q", err, want)
		}
	})
	t.Run("a wrong shape in a project", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, map[string]string{"apps/web/vx.config.ts": "export default {\n  tasks: { \"web#build\": {} },\n};\n"}, "web=apps/web").evaluating()
		_, err := f.load()
		want := `apps/web/vx.config.ts:2:12: tasks["web#build"]: invalid task key "web#build": a project's config declares its own tasks, by their names alone; write "build"`
		if err == nil || filepath.ToSlash(diag.Message(err, f.root)) != want {
			t.Errorf("Load error = %v, want %q", err, want)
		}
	})
}

// TestLoadTimeout: a config that never finishes is stopped at the limit,
// node and what the config started with it.
func TestLoadTimeout(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.mjs": `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
writeFileSync("pids", process.pid + " " + child.pid);
await new Promise(() => setInterval(() => {}, 1000));
export default {};
`}).evaluating()
	f.opts.Environ = append(f.opts.Environ, TimeoutEnv+"=8s")
	start := time.Now()
	_, err := f.load()
	if err == nil || !strings.Contains(err.Error(), "not evaluated within 8s: node was stopped") {
		t.Fatalf("Load error = %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Load took %v", d)
	}
	data, rerr := os.ReadFile(filepath.Join(f.root, "pids"))
	if rerr != nil {
		t.Fatalf("the config did not start: %v", rerr)
	}
	for _, pid := range strings.Fields(string(data)) {
		deadline := time.Now().Add(5 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %s survived the time limit", pid)
		}
	}
}

// TestLoadLimitStartsWhenHelperRuns: compiling vx-config (go run from
// vx's source) is not part of the evaluation's time limit, which starts
// once the helper runs; meanwhile vx says plainly that it compiles. Not
// parallel: it replaces findHelperFunc.
func TestLoadLimitStartsWhenHelperRuns(t *testing.T) {
	f := newFixture(t, map[string]string{"vx.config.mjs": `export default { tasks: { build: { outputs: ["dist/**"] } } };`}).evaluating()
	f.opts.Environ = append(f.opts.Environ, TimeoutEnv+"=5s", "VX_TEST_HELPER_COMPILES=7s")
	defer func(find func(Options) (string, []string, string, string, error), after time.Duration) {
		findHelperFunc, compileNoteAfter = find, after
	}(findHelperFunc, compileNoteAfter)
	findHelperFunc = func(o Options) (string, []string, string, string, error) {
		prog, args, dir, _, err := findHelper(o)
		return prog, args, dir, "/src/vx", err
	}
	compileNoteAfter = 100 * time.Millisecond
	c := f.mustLoad(MemoEvaluated)
	if diff := cmp.Diff([]string{"dist/**"}, c.Tasks["build"].Outputs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	got := f.stderr.String()
	for _, want := range []string{
		"vx: compiling vx-config, vx's config helper, from vx's source (go run ./cmd/vx-config in /src/vx): the first time takes a minute or more, later runs reuse Go's build; the config's 5s limit starts once it runs\n",
		"vx: vx-config compiled in 7s; evaluating vx.config.mjs\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr lacks %q:\n%s", want, got)
		}
	}
}

// TestLoadDetached: a process the config starts detached (its own
// session, unref'd) ends with the evaluation, whether the evaluation
// ended well or was stopped at its limit, as a task's tree does. macOS
// has no subreaper: there it outlives the evaluation (docs/config.md).
func TestLoadDetached(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("macOS has no child subreaper: a detached process outlives the evaluation there (docs/config.md)")
	}
	t.Parallel()
	for _, tc := range []struct{ name, end string }{
		{"evaluated", "export default {};"},
		{"stopped at the limit", "await new Promise(() => setInterval(() => {}, 1000));\nexport default {};"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, map[string]string{"vx.config.mjs": `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
child.unref();
writeFileSync("pid", String(child.pid));
` + tc.end + "\n"}).evaluating()
			f.opts.Environ = append(f.opts.Environ, TimeoutEnv+"=6s")
			f.load()
			data, err := os.ReadFile(filepath.Join(f.root, "pid"))
			if err != nil {
				t.Fatalf("the config did not start its process: %v\n%s", err, f.stderr)
			}
			pid := strings.TrimSpace(string(data))
			deadline := time.Now().Add(5 * time.Second)
			for alive(pid) && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if alive(pid) {
				p, _ := strconv.Atoi(pid)
				if proc, err := os.FindProcess(p); err == nil {
					proc.Kill()
				}
				t.Errorf("the detached process %s outlived the evaluation", pid)
			}
		})
	}
}

// TestLoadErrorText: the text of an exception is the config's own: one
// holding newlines or escape sequences is shown quoted, on one line, so
// that it cannot clear the screen and forge vx's output.
func TestLoadErrorText(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.mjs": "throw new Error(\"boom\\x1b[2J\\x1b[Hvx: 3 tasks: 3 succeeded\\n\");\nexport default {};\n"}).evaluating()
	_, err := f.load()
	want := `vx.config.mjs:1:7: "boom\x1b[2J\x1b[Hvx: 3 tasks: 3 succeeded\n"`
	if err == nil || diag.Message(err, f.root) != want {
		t.Errorf("Load error = %q, want %q", diag.Message(err, f.root), want)
	}
}

// TestLoadProtoKey: a task named __proto__ is a task in vx.config.ts as it
// is in vx.json.
func TestLoadProtoKey(t *testing.T) {
	t.Parallel()
	want := map[string]config.Task{"__proto__": {Outputs: []string{"dist/**"}}}
	ts := newFixture(t, map[string]string{"vx.config.ts": `export default { tasks: { ["__proto__"]: { outputs: ["dist/**"] } } };`}).evaluating()
	if diff := cmp.Diff(want, ts.mustLoad(MemoEvaluated).Tasks); diff != "" {
		t.Errorf("vx.config.ts (-want +got):\n%s", diff)
	}
	js := newFixture(t, map[string]string{"vx.json": `{"tasks": {"__proto__": {"outputs": ["dist/**"]}}}`})
	if diff := cmp.Diff(want, js.mustLoad(MemoNone).Tasks); diff != "" {
		t.Errorf("vx.json (-want +got):\n%s", diff)
	}
}

// TestLoadCancelled: vx stopped by a signal stops the evaluation and says
// why, with no message of its own.
func TestLoadCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.mjs": `await new Promise(() => setInterval(() => {}, 1000)); export default {};`}).evaluating()
	ctx, cancel := context.WithCancelCause(context.Background())
	f.opts.Context = ctx
	stop := errors.New("interrupted")
	time.AfterFunc(500*time.Millisecond, func() { cancel(stop) })
	if _, err := f.load(); !errors.Is(err, stop) {
		t.Fatalf("Load error = %v, want %v", err, stop)
	}
}

// TestLoadNoNode: without node, one line says what is needed.
func TestLoadNoNode(t *testing.T) {
	t.Parallel()
	f := newFixture(t, map[string]string{"vx.config.ts": `export default {}`})
	f.opts.Environ = append(f.opts.Environ, "PATH="+filepath.Join(f.root, "empty"), "Path="+filepath.Join(f.root, "empty"))
	_, err := f.load()
	want := "vx.config.ts: evaluating it needs Node.js 18 or later, and there is no node on PATH; install Node.js (https://nodejs.org), or write the configuration as vx.json"
	if err == nil || diag.Message(err, f.root) != want {
		t.Errorf("Load error = %v", err)
	}
}
