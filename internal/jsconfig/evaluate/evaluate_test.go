package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/jsconfig/wire"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// nodePath is node on PATH; tests that evaluate skip without it.
func nodePath(t *testing.T) string {
	t.Helper()
	return testtool.Need(t, "Node.js 18 or later; .ci/run has it: the evaluation tests run it", "node")
}

// workspace writes files (slash-separated paths relative to a new root)
// and returns the root.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	root := testdir.New(t)
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

type evalCase struct {
	files    map[string]string
	entries  []string          // the config files, relative; default vx.config.ts
	packages map[string]string // name -> relative directory
	env      []string          // added to the test's environment
}

func evaluateCase(t *testing.T, c evalCase) (wire.Response, string, string) {
	t.Helper()
	node := nodePath(t)
	root := workspace(t, c.files)
	if c.entries == nil {
		c.entries = []string{"vx.config.ts"}
	}
	req := wire.Request{Version: wire.Version, Root: root, Node: node, GOOS: runtime.GOOS, Packages: map[string]string{}}
	for _, e := range c.entries {
		req.Files = append(req.Files, filepath.Join(root, filepath.FromSlash(e)))
	}
	for name, dir := range c.packages {
		req.Packages[name] = filepath.Join(root, filepath.FromSlash(dir))
	}
	var stderr syncBuffer
	env := append(os.Environ(), c.env...)
	resp := Evaluate(context.Background(), req, env, &stderr)
	return resp, root, stderr.String()
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func result(t *testing.T, resp wire.Response, i int) map[string]any {
	t.Helper()
	if resp.Error != nil {
		t.Fatalf("evaluation failed: %+v", resp.Error)
	}
	var v map[string]any
	if err := json.Unmarshal(resp.Results[i].JSON, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestEvaluateRecordsWhatItRead: the files, listings, kinds of paths and
// variables a config reads are its dependencies, each with the state vx
// reads back unchanged right after.
func TestEvaluateRecordsWhatItRead(t *testing.T) {
	t.Parallel()
	resp, root, _ := evaluateCase(t, evalCase{
		files: map[string]string{
			".env": "API=https://example.com\n",
			"vx.config.ts": `import { readFileSync, readdirSync, existsSync, promises } from "node:fs";
import { parseEnv } from "node:util";
import { defineConfig } from "@vxrun/vx";
const env = parseEnv(readFileSync(".env", "utf8"));
const names = readdirSync("data");
const has = existsSync("missing.txt");
const more = await promises.readFile(new URL("./data/a.txt", import.meta.url), "utf8");
export default defineConfig({ tasks: { build: { env: { define: { ...env, N: String(names.length), HAS: String(has), MORE: more, MODE: process.env.VX_TEST_MODE ?? "dev", SET: process.env.VX_TEST_SET } } } } });
`,
			"data/a.txt": "a",
		},
		env: []string{"VX_TEST_SET=yes", "VX_TEST_MODE="},
	})
	got := result(t, resp, 0)
	want := map[string]any{"tasks": map[string]any{"build": map[string]any{"env": map[string]any{"define": map[string]any{
		"API": "https://example.com", "N": "1", "HAS": "false", "MORE": "a", "MODE": "", "SET": "yes"}}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	env := append(os.Environ(), "VX_TEST_SET=yes", "VX_TEST_MODE=")
	if d := wire.Changed(resp.Deps, runtime.GOOS, env); d != nil {
		t.Errorf("right after the evaluation, %+v reads as %q", *d, wire.Current(*d, runtime.GOOS, env))
	}
	has := func(kind, rel, state string) {
		t.Helper()
		p := rel
		if kind != wire.KindEnv {
			p = filepath.Join(root, filepath.FromSlash(rel))
		}
		for _, d := range resp.Deps {
			if d.Kind == kind && d.Path == p && (state == "" || d.State == state) {
				return
			}
		}
		t.Errorf("no %s dependency on %s (%q) in %+v", kind, p, state, resp.Deps)
	}
	has(wire.KindFile, "vx.config.ts", "")
	has(wire.KindFile, ".env", wire.ContentState([]byte("API=https://example.com\n")))
	has(wire.KindFile, "data/a.txt", wire.ContentState([]byte("a")))
	has(wire.KindList, "data", wire.NamesState([]string{"a.txt"}, "", runtime.GOOS))
	has(wire.KindStat, "missing.txt", wire.Absent)
	has(wire.KindEnv, "VX_TEST_SET", "=yes")
	has(wire.KindEnv, "VX_TEST_MODE", "=")
	has(wire.KindEnv, "NODE_OPTIONS", "")
	for _, d := range resp.Deps {
		if strings.Contains(d.Path, "vx-config-") {
			t.Errorf("vx-config's own file is a dependency: %+v", d)
		}
	}
	if resp.Volatile != "" || slices.ContainsFunc(resp.Deps, func(d wire.Dep) bool { return d.Kind == wire.KindEnviron }) {
		t.Errorf("volatile %q, or the whole environment a dependency: %+v", resp.Volatile, resp.Deps)
	}
}

// TestEvaluateReadsAFileOnce: a file the config reads is opened once, by
// the config's read, whose bytes are what is recorded. node's readFileSync
// opens through fs.openSync, which the evaluator watches: its watch read
// the file again, and again from within that read, down to the stack's
// limit (over 100 ms of CPU for a config reading .env).
func TestEvaluateReadsAFileOnce(t *testing.T) {
	t.Parallel()
	resp, root, stderr := evaluateCase(t, evalCase{files: map[string]string{
		"f.txt": "one",
		"g.txt": "two",
		"vx.config.mjs": `import fs from "node:fs";
const open = fs.openSync;
let opens = 0;
fs.openSync = function (...args) { opens++; return open.apply(this, args); };
const V = fs.readFileSync("f.txt").toString() + fs.readFileSync("g.txt", "utf8");
fs.openSync = open;
export default { tasks: { a: { env: { define: { V, OPENS: String(opens) } } } } };
`,
	}, entries: []string{"vx.config.mjs"}})
	if resp.Error != nil {
		t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr)
	}
	got := result(t, resp, 0)["tasks"].(map[string]any)["a"].(map[string]any)["env"].(map[string]any)["define"]
	if diff := cmp.Diff(map[string]any{"V": "onetwo", "OPENS": "2"}, got); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	for name, content := range map[string]string{"f.txt": "one", "g.txt": "two"} {
		p := filepath.Join(root, name)
		if !slices.ContainsFunc(resp.Deps, func(d wire.Dep) bool {
			return d.Kind == wire.KindFile && d.Path == p && d.State == wire.ContentState([]byte(content))
		}) {
			t.Errorf("no dependency on %s's content: %+v", name, resp.Deps)
		}
	}
}

// TestEvaluateHashesWithoutCrypto: the files a config reads are recorded
// by their content's hash, a small one's hashed by vx-config, so that
// node does not load node:crypto for a config that reads a .env; a large
// one's hashed in node, and so are small ones past 256 KiB sent in all.
func TestEvaluateHashesWithoutCrypto(t *testing.T) {
	t.Parallel()
	read := map[string]string{".env": "A=1\n", "big.txt": strings.Repeat("0123456789abcdef", 8<<10)} // 128 KiB
	for i := range 6 {
		read[fmt.Sprintf("m%d.txt", i)] = strings.Repeat(string(rune('a'+i)), 60<<10)
	}
	files := maps.Clone(read)
	files["vx.config.mjs"] = `import { readFileSync } from "node:fs";
const A = readFileSync(".env", "utf8");
const CRYPTO = String(process.moduleLoadList.some((m) => /crypto/.test(m)));
const N = String(readFileSync("big.txt").length);
for (let i = 0; i < 6; i++) readFileSync("m" + i + ".txt");
export default { tasks: { a: { env: { define: { A, CRYPTO, N } } } } };
`
	resp, root, stderr := evaluateCase(t, evalCase{files: files, entries: []string{"vx.config.mjs"}})
	if resp.Error != nil {
		t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr)
	}
	got := result(t, resp, 0)["tasks"].(map[string]any)["a"].(map[string]any)["env"].(map[string]any)["define"]
	if diff := cmp.Diff(map[string]any{"A": "A=1\n", "CRYPTO": "false", "N": "131072"}, got); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	for name, content := range read {
		p := filepath.Join(root, name)
		if !slices.ContainsFunc(resp.Deps, func(d wire.Dep) bool {
			return d.Kind == wire.KindFile && d.Path == p && d.State == wire.ContentState([]byte(content))
		}) {
			t.Errorf("no dependency on %s's content", name)
		}
	}
	if d := wire.Changed(resp.Deps, runtime.GOOS, os.Environ()); d != nil {
		t.Errorf("right after the evaluation, %+v reads as %q", *d, wire.Current(*d, runtime.GOOS, os.Environ()))
	}
}

// TestEvaluateExitListeners: node ends once the answer is written, a
// config's exit listeners having run, as they do when node exits.
func TestEvaluateExitListeners(t *testing.T) {
	t.Parallel()
	resp, root, stderr := evaluateCase(t, evalCase{files: map[string]string{
		"vx.config.mjs": `import { writeFileSync } from "node:fs";
process.on("exit", (code) => { writeFileSync("exited.txt", String(code)); console.log("exit listener ran"); });
export default { tasks: {} };
`,
	}, entries: []string{"vx.config.mjs"}})
	if resp.Error != nil {
		t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr)
	}
	data, err := os.ReadFile(filepath.Join(root, "exited.txt"))
	if err != nil || string(data) != "0" || !strings.Contains(stderr, "exit listener ran") {
		t.Errorf("the config's exit listener did not run: %q, %v; printed %q", data, err, stderr)
	}
}

// TestEvaluateStdinEmpty: the config's stdin is empty, as /dev/null would
// be: node's stdin carries the manifest to the evaluator, which reads it
// to its end.
func TestEvaluateStdinEmpty(t *testing.T) {
	t.Parallel()
	resp, _, stderr := evaluateCase(t, evalCase{files: map[string]string{
		"vx.config.mjs": `import { readFileSync } from "node:fs";
export default { tasks: { a: { env: { define: { IN: JSON.stringify(readFileSync(0, "utf8")) } } } } };
`,
	}, entries: []string{"vx.config.mjs"}})
	if resp.Error != nil {
		t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr)
	}
	got := result(t, resp, 0)["tasks"].(map[string]any)["a"].(map[string]any)["env"].(map[string]any)["define"]
	if diff := cmp.Diff(map[string]any{"IN": `""`}, got); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
}

// TestEvaluateWholeEnvironmentAndPrograms: a config that lists the
// environment depends on all of it; one that starts a program or uses the
// network is not remembered.
func TestEvaluateWholeEnvironmentAndPrograms(t *testing.T) {
	t.Parallel()
	resp, _, _ := evaluateCase(t, evalCase{files: map[string]string{
		"vx.config.ts": `export default { tasks: { a: { env: { passThrough: Object.keys(process.env).filter((k) => k === "PATH") } } } };`,
	}})
	result(t, resp, 0)
	if !slices.ContainsFunc(resp.Deps, func(d wire.Dep) bool { return d.Kind == wire.KindEnviron }) || resp.Volatile != "" {
		t.Errorf("listing process.env: deps %+v, volatile %q", resp.Deps, resp.Volatile)
	}
	resp, _, _ = evaluateCase(t, evalCase{files: map[string]string{
		"vx.config.mjs": `import { execFileSync } from "node:child_process";
const v = execFileSync(process.execPath, ["--version"], { encoding: "utf8" }).trim();
export default { tasks: { a: { env: { define: { NODE: v } } } } };`,
	}, entries: []string{"vx.config.mjs"}})
	result(t, resp, 0)
	if !strings.Contains(resp.Volatile, "child_process.execFileSync") {
		t.Errorf("a config that starts a program: volatile = %q", resp.Volatile)
	}
}

// TestEvaluateMemoRoutes: every way a config can read what lies outside
// it either is recorded, so that a change to what it read is seen
// (wire.Changed), or makes the result not rememberable (Volatile, with a
// one-line reason).
func TestEvaluateMemoRoutes(t *testing.T) {
	t.Parallel()
	type change func(t *testing.T, root string) []string // returns the environment after, nil for unchanged
	write := func(rel, data string) change {
		return func(t *testing.T, root string) []string {
			if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(rel)), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			return nil
		}
	}
	files := map[string]string{"d/a.txt": "a", "d/sub/b.txt": "b", "f.txt": "one", "src.txt": "source"}
	for _, tc := range []struct {
		name     string
		config   string // vx.config.mjs's body, before the default export of V
		change   change // what must make the memo stale; nil for a volatile config
		volatile string // the reason, for a volatile config
		symlink  bool   // needs symbolic links
	}{
		{name: "readdir withFileTypes", config: `const V = readdirSync("d", { withFileTypes: true }).map((e) => e.name + e.isDirectory()).join();`,
			change: func(t *testing.T, root string) []string {
				p := filepath.Join(root, "d", "a.txt")
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				if err := os.Mkdir(p, 0o755); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
		{name: "readdir recursive", config: `const V = readdirSync("d", { recursive: true }).join();`, change: write("d/sub/new.txt", "n")},
		{name: "promises.readdir recursive", config: `const V = (await promises.readdir("d", { recursive: true })).join();`, change: write("d/sub/new.txt", "n")},
		{name: "opendir", config: `const dir = await promises.opendir("d"); let V = ""; for await (const e of dir) V += e.name;`, change: write("d/new.txt", "n")},
		{name: "readlink", symlink: true, config: `const V = readlinkSync("link");`,
			change: func(t *testing.T, root string) []string {
				p := filepath.Join(root, "link")
				os.Remove(p)
				if err := os.Symlink("src.txt", p); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
		{name: "stat size", config: `const V = String(statSync("f.txt").size);`, change: write("f.txt", "three")},
		{name: "stat mtime", config: `const V = String((await promises.stat("f.txt")).mtimeMs);`,
			change: func(t *testing.T, root string) []string {
				old := time.Now().Add(-time.Hour)
				if err := os.Chtimes(filepath.Join(root, "f.txt"), old, old); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
		{name: "fstat of a file opened by name", config: `const fd = openSync("f.txt"); const V = String(fstatSync(fd).mtimeMs);`,
			change: func(t *testing.T, root string) []string {
				old := time.Now().Add(-time.Hour)
				if err := os.Chtimes(filepath.Join(root, "f.txt"), old, old); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
		{name: "a FileHandle's stat", config: `const h = await promises.open("f.txt"); const V = String((await h.stat()).mtimeMs); await h.close();`,
			change: func(t *testing.T, root string) []string {
				old := time.Now().Add(-time.Hour)
				if err := os.Chtimes(filepath.Join(root, "f.txt"), old, old); err != nil {
					t.Fatal(err)
				}
				return nil
			}},
		{name: "lstat size", config: `const V = String(lstatSync("f.txt").size);`, change: write("f.txt", "three")},
		{name: "openAsBlob", config: `const V = await (await openAsBlob("f.txt")).text();`, change: write("f.txt", "two")},
		{name: "copyFile's source", config: `copyFileSync("src.txt", "copy.txt"); const V = readFileSync("copy.txt", "utf8");`, change: write("src.txt", "other")},
		{name: "promises.copyFile's source", config: `await promises.copyFile("src.txt", "copy.txt"); const V = readFileSync("copy.txt", "utf8");`, change: write("src.txt", "other")},
		{name: "os.homedir", config: `const V = homedir();`,
			change: func(t *testing.T, root string) []string {
				env := append(os.Environ(), "HOME="+root, "USERPROFILE="+root)
				return env
			}},
		{name: "os.tmpdir", config: `const V = tmpdir();`,
			change: func(t *testing.T, root string) []string {
				return append(os.Environ(), "TMPDIR="+root, "TEMP="+root, "TMP="+root)
			}},
		{name: "a worker thread", config: `const w = new Worker("process.exit(0)", { eval: true }); await new Promise((r) => w.on("exit", r)); const V = "w";`,
			volatile: "it starts a worker thread (worker_threads.Worker)"},
		{name: "http", config: `await new Promise((r) => http.get("http://127.0.0.1:1/").on("error", r)); const V = "h";`,
			volatile: "it uses the network (http.get)"},
		{name: "https", config: `await new Promise((r) => https.request("https://127.0.0.1:1/").on("error", r).end()); const V = "h";`,
			volatile: "it uses the network (https.request)"},
		{name: "net", config: `await new Promise((r) => net.connect(1, "127.0.0.1").on("error", r)); const V = "n";`,
			volatile: "it uses the network (net.connect)"},
		{name: "a socket", config: `const s = new net.Socket(); await new Promise((r) => s.connect(1, "127.0.0.1").on("error", r)); const V = "n";`,
			volatile: "it uses the network (net.Socket)"},
		{name: "tls", config: `await new Promise((r) => tls.connect(1, "127.0.0.1").on("error", r)); const V = "t";`,
			volatile: "it uses the network (tls.connect)"},
		{name: "dgram", config: `const s = dgram.createSocket("udp4"); s.close(); const V = "d";`,
			volatile: "it uses the network (dgram.createSocket)"},
		{name: "child_process", config: `import("node:child_process"); const V = execSync("echo x").toString().trim();`,
			volatile: "it starts a program (child_process.execSync)"},
		{name: "fs.cpSync", config: `cpSync("d", "d2", { recursive: true }); const V = readFileSync("d2/a.txt", "utf8");`,
			volatile: "it reads files vx cannot follow (fs.cpSync)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := map[string]string{"vx.config.mjs": `import { readdirSync, readFileSync, readlinkSync, statSync, lstatSync, copyFileSync, cpSync, openAsBlob, openSync, fstatSync, promises } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { Worker } from "node:worker_threads";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import dgram from "node:dgram";
import { execSync } from "node:child_process";
` + tc.config + `
export default { tasks: { a: { env: { define: { V } } } } };
`}
			for k, v := range files {
				fs[k] = v
			}
			node := nodePath(t)
			root := workspace(t, fs)
			if tc.symlink {
				if err := os.Symlink("f.txt", filepath.Join(root, "link")); err != nil {
					t.Skipf("no symbolic links here: %v", err)
				}
			}
			req := wire.Request{Version: wire.Version, Root: root, Node: node, GOOS: runtime.GOOS, Packages: map[string]string{},
				Files: []string{filepath.Join(root, "vx.config.mjs")}}
			var stderr syncBuffer
			resp := Evaluate(context.Background(), req, os.Environ(), &stderr)
			if resp.Error != nil {
				t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr.String())
			}
			if tc.change == nil {
				if resp.Volatile != tc.volatile {
					t.Errorf("volatile = %q, want %q", resp.Volatile, tc.volatile)
				}
				return
			}
			if resp.Volatile != "" {
				t.Fatalf("volatile %q: want it recorded", resp.Volatile)
			}
			if d := wire.Changed(resp.Deps, runtime.GOOS, os.Environ()); d != nil {
				t.Fatalf("right after the evaluation, %+v reads as %q", *d, wire.Current(*d, runtime.GOOS, os.Environ()))
			}
			env := tc.change(t, root)
			if env == nil {
				env = os.Environ()
			}
			if d := wire.Changed(resp.Deps, runtime.GOOS, env); d == nil {
				t.Errorf("the change was not seen: deps %+v", resp.Deps)
			}
		})
	}
}

// TestEvaluateNetworkImportedOnce: the network modules are watched when a
// bundle imports one, by an ES import of its own or a bundled package's
// require; a config that imports none does not load them.
func TestEvaluateNetworkImportedOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"one ES import", map[string]string{"vx.config.mjs": `import https from "node:https";
await new Promise((r) => https.get("https://127.0.0.1:1/").on("error", r));
export default { tasks: {} };`}, "it uses the network (https.get)"},
		{"a bundled package's require", map[string]string{
			"node_modules/netpkg/package.json": `{"name": "netpkg", "main": "index.js"}`,
			"node_modules/netpkg/index.js":     `const net = require("net"); module.exports = () => new Promise((r) => net.connect(1, "127.0.0.1").on("error", r));`,
			"vx.config.mjs":                    `import probe from "netpkg"; await probe(); export default { tasks: {} };`}, "it uses the network (net.connect)"},
		{"a computed import", map[string]string{"vx.config.mjs": `const name = ["node", "dgram"].join(":");
const dgram = (await import(name)).default;
dgram.createSocket("udp4").close();
export default { tasks: {} };`}, "it uses the network (dgram.createSocket)"},
		{"none", map[string]string{"vx.config.mjs": `export default { tasks: { a: { env: { define: { N: String(process.moduleLoadList?.some((m) => m.includes("http2")) ?? false) } } } } };`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _, stderr := evaluateCase(t, evalCase{files: tc.files, entries: []string{"vx.config.mjs"}})
			if resp.Error != nil {
				t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr)
			}
			if resp.Volatile != tc.want {
				t.Errorf("volatile = %q, want %q", resp.Volatile, tc.want)
			}
			if tc.want == "" {
				if got := result(t, resp, 0)["tasks"].(map[string]any)["a"].(map[string]any)["env"].(map[string]any)["define"].(map[string]any)["N"]; got != "false" {
					t.Errorf("node:http2 was loaded for a config that imports no network module (%v)", got)
				}
			}
		})
	}
}

// TestEvaluateProgramsWatched: child_process is loaded, to be watched,
// only for a config that may reach it; every way it can makes the result
// not rememberable: an import, a require under any name, code evaluated
// from a string.
func TestEvaluateProgramsWatched(t *testing.T) {
	t.Parallel()
	const started = "it starts a program (child_process.execSync)"
	for _, tc := range []struct {
		name, config, want string
	}{
		{"an import", `import { execSync } from "node:child_process"; const V = execSync("echo x").toString();`, started},
		{"require under another name", `const r = require; const V = r("node:child_process").execSync("echo x").toString();`, started},
		{"createRequire", `import { createRequire } from "node:module"; const V = createRequire(import.meta.url)("child_process").execSync("echo x").toString();`, started},
		{"eval", `const V = eval("require")("child_process").execSync("echo x").toString();`, started},
		{"the Function constructor", `const cp = await new Function("return import('node:child_process')")(); const V = cp.execSync("echo x").toString();`, started},
		{"none", `const V = String(process.moduleLoadList.some((m) => m.includes("child_process")));`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, _, stderr := evaluateCase(t, evalCase{files: map[string]string{
				"vx.config.mjs": tc.config + "\nexport default { tasks: { a: { env: { define: { V } } } } };\n",
			}, entries: []string{"vx.config.mjs"}})
			if resp.Error != nil {
				t.Fatalf("evaluation failed: %+v\n%s", resp.Error, stderr)
			}
			if resp.Volatile != tc.want {
				t.Errorf("volatile = %q, want %q", resp.Volatile, tc.want)
			}
			if tc.want == "" {
				if v := result(t, resp, 0)["tasks"].(map[string]any)["a"].(map[string]any)["env"].(map[string]any)["define"].(map[string]any)["V"]; v != "false" {
					t.Errorf("node:child_process was loaded for a config that cannot reach it")
				}
			}
		})
	}
}

// TestEvaluateImports: presets are plain modules: a relative import, a
// workspace project by name (TypeScript source, not installed), an npm
// package in node_modules (CommonJS, requiring node's modules), JSON; and
// "@vxrun/vx" without the package. import.meta.url and __dirname are each
// file's own.
func TestEvaluateImports(t *testing.T) {
	t.Parallel()
	resp, root, stderr := evaluateCase(t, evalCase{
		files: map[string]string{
			"vx.config.ts": `import { defineConfig } from "@vxrun/vx";
import { shared } from "./presets/shared";
import { build, where } from "@acme/vx-preset";
import { sub } from "@acme/vx-preset/sub";
import cjs from "cjs-dep";
import data from "./data.json";
console.log("a line on stdout");
process.stdout.write("{\"not\": \"the result\"}\n");
export default defineConfig({ tasks: { build: build(), test: { dependsOn: shared }, where: { inputs: [where, sub, cjs.read("x.txt"), cjs.dir, data.name] } } });
`,
			"presets/shared.ts":            `export const shared: string[] = ["build"];`,
			"packages/preset/package.json": `{"name": "@acme/vx-preset", "exports": {".": "./src/index.ts", "./sub": {"import": "./src/sub.ts"}}}`,
			"packages/preset/src/index.ts": `import type { Task } from "@vxrun/vx";
import { fileURLToPath } from "node:url";
export const build = (): Task => ({ dependsOn: ["^build"] });
export const where = fileURLToPath(import.meta.url);`,
			"packages/preset/src/sub.ts":          `export const sub: string = import.meta.dirname;`,
			"node_modules/cjs-dep/package.json":   `{"name": "cjs-dep", "main": "lib.js"}`,
			"node_modules/cjs-dep/lib.js":         `const fs = require("fs"); module.exports = { read: (p) => fs.readFileSync(p, "utf8").trim(), dir: __dirname };`,
			"x.txt":                               "from a CommonJS package\n",
			"data.json":                           `{"name": "json"}`,
			"packages/preset/src/not-used.ts":     `throw new Error("never imported")`,
			"node_modules/@vxrun/vx/package.json": `{"name": "@vxrun/vx", "main": "broken.js"}`,
		},
		packages: map[string]string{"@acme/vx-preset": "packages/preset"},
	})
	got := result(t, resp, 0)
	p := func(rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }
	want := map[string]any{"tasks": map[string]any{
		"build": map[string]any{"dependsOn": []any{"^build"}},
		"test":  map[string]any{"dependsOn": []any{"build"}},
		"where": map[string]any{"inputs": []any{p("packages/preset/src/index.ts"), p("packages/preset/src"), "from a CommonJS package", p("node_modules/cjs-dep"), "json"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "a line on stdout") || !strings.Contains(stderr, `{"not": "the result"}`) {
		t.Errorf("what the config printed is not on stderr: %q", stderr)
	}
	for _, f := range []string{"presets/shared.ts", "packages/preset/src/index.ts", "packages/preset/package.json", "node_modules/cjs-dep/lib.js", "x.txt", "data.json"} {
		if !slices.ContainsFunc(resp.Deps, func(d wire.Dep) bool { return d.Kind == wire.KindFile && d.Path == p(f) }) {
			t.Errorf("%s is not a dependency", f)
		}
	}
	// A file beside a relative import's target could take its place.
	if !slices.ContainsFunc(resp.Deps, func(d wire.Dep) bool {
		return d.Kind == wire.KindList && d.Path == p("presets") && d.Prefix == "shared"
	}) {
		t.Errorf("no listing of presets/shared*: %+v", resp.Deps)
	}
}

// TestEvaluateErrors: every problem is one message, placed in the source
// (through the source map for an exception, in a preset when it is thrown
// there).
func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string // file:line:col: msg; suggest
	}{
		{"syntax", map[string]string{"vx.config.ts": "export default {\n  tasks: { a: [1 2] },\n};\n"},
			`vx.config.ts:2:18: expected "]" but found "2"`},
		{"a relative import that is not there", map[string]string{"vx.config.ts": "import { x } from \"./nope\";\nexport default { tasks: x };\n"},
			`vx.config.ts:1:19: could not resolve "./nope"; is the path right?`},
		{"a package that is not installed", map[string]string{"vx.config.ts": "import x from \"left-pad\";\nexport default { tasks: x };\n"},
			`vx.config.ts:1:15: could not resolve "left-pad"; is the package installed (npm install)?`},
		{"an exception, mapped through the source map", map[string]string{"vx.config.ts": "// a comment\nconst é: string = \"x\";\nexport default { tasks: (() => { throw new RangeError(\"no \" + é) })() };\n"},
			`vx.config.ts:3:40: RangeError: no x`},
		{"an exception in a preset", map[string]string{
			"vx.config.ts": "import { make } from \"./preset\";\nexport default make();\n",
			"preset.ts":    "const s = import.meta.url;\nexport function make(): never {\n  throw new Error(\"preset \" + s.length);\n}\n"},
			`preset.ts:3:9: preset `},
		{"no default export", map[string]string{"vx.config.ts": "export const config = {};\n"},
			`vx.config.ts: there is no default export: write export default defineConfig({ tasks: { ... } })`},
		{"a function", map[string]string{"vx.config.ts": "export default () => ({});\n"},
			`vx.config.ts: the default export is a function; export the configuration itself: export default defineConfig({ tasks: { ... } })`},
		{"not data", map[string]string{"vx.config.ts": "export default { tasks: { a: { dependsOn: [new Map()] } } };\n"},
			`vx.config.ts: tasks.a.dependsOn[0]: found a Map, which is not configuration data (objects, arrays, strings, numbers, true and false)`},
		{"process.exit", map[string]string{"vx.config.ts": "process.exit(3);\nexport default {};\n"},
			`vx.config.ts:1:9: the config called process.exit(3)`},
		{"a rejected promise", map[string]string{"vx.config.ts": "export default Promise.reject(new Error(\"later\"));\n"},
			`vx.config.ts:1:31: later`},
		{"a thrown string", map[string]string{"vx.config.ts": "throw \"oops\";\nexport default {};\n"},
			`vx.config.ts: the config threw "oops"`},
		{"a throwing getter", map[string]string{"vx.config.ts": "export default {\n  tasks: {\n    get build() {\n      throw new Error(\"no build\");\n    },\n  },\n};\n"},
			`vx.config.ts:4:13: tasks.build: reading it threw: no build`},
		{"a throwing Proxy", map[string]string{"vx.config.ts": "export default new Proxy({}, {\n  get() { throw new TypeError(\"trap\"); },\n});\n"},
			`vx.config.ts:2:17: TypeError: trap`},
		{"a Proxy whose keys throw", map[string]string{"vx.config.ts": "const p = new Proxy({}, {\n  ownKeys() { throw new Error(\"keys\"); },\n});\nexport default { tasks: p };\n"},
			`vx.config.ts:2:21: tasks: reading it threw: keys`},
		{"throw null", map[string]string{"vx.config.ts": "throw null;\nexport default {};\n"},
			`vx.config.ts: the config threw null`},
		{"a thrown object whose properties throw", map[string]string{"vx.config.ts": "throw new Proxy({}, { getPrototypeOf() { throw 1; }, get() { throw 2; } });\nexport default {};\n"},
			`vx.config.ts: the config threw `},
		{"an exception thrown later, outside the config's await", map[string]string{"vx.config.ts": "setTimeout(() => {\n  throw new Error(\"late\");\n}, 0);\nexport default new Promise(() => setTimeout(() => {}, 5000));\n"},
			`vx.config.ts:2:9: late`},
		{"__proto__ in an object literal", map[string]string{"vx.config.ts": "export default { tasks: { __proto__: { outputs: [\"dist/**\"] } } };\n"},
			`vx.config.ts: tasks: has an object as its prototype, which is what __proto__: { ... } in an object literal makes (it is not a key); write ["__proto__"]: { ... } for a key of that name`},
		{"an import vx cannot bundle", map[string]string{"vx.config.ts": "import x from \"./x.node\";\nexport default x;\n", "x.node": "binary"},
			`vx.config.ts:1:15: cannot import x.node: a config imports JavaScript, TypeScript and JSON`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			resp, root, _ := evaluateCase(t, evalCase{files: tc.files})
			if resp.Error == nil {
				t.Fatalf("no error; results %s", resp.Results[0].JSON)
			}
			e := resp.Error
			got := e.Msg
			if e.Suggest != "" {
				got += "; " + e.Suggest
			}
			if e.Line > 0 {
				got = itoa(e.Line) + ":" + itoa(e.Col) + ": " + got
			}
			if e.File != "" {
				rel, _ := filepath.Rel(root, e.File)
				got = filepath.ToSlash(rel) + sep(e.Line) + got
			}
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("error\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func sep(line int) string {
	if line > 0 {
		return ":"
	}
	return ": "
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestEvaluateProtoKey: a task named __proto__ (a computed key, or
// JSON.parse) is a key of the result, as it is in vx.json.
func TestEvaluateProtoKey(t *testing.T) {
	t.Parallel()
	resp, _, _ := evaluateCase(t, evalCase{files: map[string]string{
		"vx.config.ts": `export default { tasks: { ["__proto__"]: { outputs: ["a/**"] }, ...JSON.parse('{"b": {"outputs": ["b/**"]}}') } };`,
	}})
	got := result(t, resp, 0)
	want := map[string]any{"tasks": map[string]any{"__proto__": map[string]any{"outputs": []any{"a/**"}}, "b": map[string]any{"outputs": []any{"b/**"}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// TestFileURL: import.meta.url is the file's own URL, on every system.
func TestFileURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ path, goos, want string }{
		{"/home/a b/vx.config.ts", "linux", "file:///home/a%20b/vx.config.ts"},
		{"/x/100%/é#?.ts", "darwin", "file:///x/100%25/%C3%A9%23%3F.ts"},
		{`C:\Users\a b\vx.config.ts`, "windows", "file:///C:/Users/a%20b/vx.config.ts"},
		{`\\server\share\vx.config.ts`, "windows", "file:////server/share/vx.config.ts"},
	} {
		if got := fileURL(tc.path, tc.goos); got != tc.want {
			t.Errorf("fileURL(%q, %s) = %q, want %q", tc.path, tc.goos, got, tc.want)
		}
	}
}

// TestPackageName splits bare specifiers from paths, scoped or not.
func TestPackageName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec, name, sub string
		bare            bool
	}{
		{"@acme/preset", "@acme/preset", "", true},
		{"@acme/preset/a/b", "@acme/preset", "a/b", true},
		{"lodash/fp", "lodash", "fp", true},
		{"node:fs", "node:fs", "", true},
		{"./x", "", "", false},
		{"../x", "", "", false},
		{"/abs/x", "", "", false},
		{`C:\x`, "", "", false},
	} {
		name, sub, bare := packageName(tc.spec)
		if name != tc.name || sub != tc.sub || bare != tc.bare {
			t.Errorf("packageName(%q) = %q, %q, %v; want %q, %q, %v", tc.spec, name, sub, bare, tc.name, tc.sub, tc.bare)
		}
	}
}
