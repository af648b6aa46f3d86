package config

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/release"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// nodeShims declares the little of node's API the examples use, so that
// tsc needs no @types/node: as @types/node declares it (parseEnv returns a
// NodeJS.Dict<string>, whose values may be undefined).
const nodeShims = `declare module "node:fs" {
  export function readFileSync(path: string | URL, encoding: "utf8"): string;
  export function existsSync(path: string | URL): boolean;
}
declare module "node:util" {
  export function parseEnv(content: string): { [key: string]: string | undefined };
}
declare var process: { env: Record<string, string | undefined> };
`

// TestTypesCompile runs tsc (typescript from npm) under "strict" on typed
// configs with @vxrun/vx installed as `make npm` packs it (internal/release):
// the valid examples of testdata/types, examples/monorepo's vx.config.ts and
// preset, and every TypeScript block of docs/config.md compile; each
// invalid example fails with the error its first line names. Both the
// types and the examples are what users get: an editor shows these errors.
func TestTypesCompile(t *testing.T) {
	tsc := testtool.Need(t, "npm i -g typescript; .ci/run does: TestTypesCompile checks the types of vx.config.ts", "tsc")
	dir := testdir.New(t)
	write := func(name string, data []byte) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkg, err := release.MainNPMPackage("1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pkg.Files {
		write("node_modules/@vxrun/vx/"+f.Name, f.Data)
	}
	write("package.json", []byte(`{"type": "module", "private": true}`))
	write("shims.d.ts", []byte(nodeShims))

	want := map[string]string{} // file -> "" (compiles) or the error
	files := []string{"shims.d.ts"}
	examples, _ := filepath.Glob(filepath.Join("testdata", "types", "*.ts"))
	for _, ex := range examples {
		data, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		expect, ok := strings.CutPrefix(first, "// tsc: ")
		if !ok {
			t.Fatalf("%s: the first line must be // tsc: ok or // tsc: error ...", ex)
		}
		if expect == "ok" {
			expect = ""
		}
		name := filepath.Base(ex)
		write(name, data)
		want[name] = expect
		files = append(files, name)
	}
	docs, err := os.ReadFile(filepath.Join(repoRoot, "docs", "config.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A block whose first line names a file in a directory ("//
	// packages/vx-preset/index.ts") is that file: others import it.
	for i, block := range fencedBlocks(docs, "ts", "typescript") {
		name := "docs-config-" + itoa(i+1) + ".ts"
		first, _, _ := strings.Cut(string(block), "\n")
		if f := strings.Fields(strings.TrimPrefix(first, "// ")); len(f) > 0 && strings.Contains(f[0], "/") && strings.HasSuffix(f[0], ".ts") {
			name = f[0]
		}
		write(name, block)
		want[name] = ""
		files = append(files, name)
	}
	// The README's example workspace: its config and its preset.
	for _, f := range []string{"vx.config.ts", "packages/vx-preset/index.ts"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "monorepo", filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		name := "example/" + f
		write(name, data)
		want[name] = ""
		files = append(files, name)
	}
	if len(examples) < 8 || len(want)-len(examples) < 7 {
		t.Fatalf("%d examples and %d blocks of docs/config.md: the corpus was not found", len(examples), len(want)-len(examples))
	}
	tsconfig, _ := json.Marshal(map[string]any{
		// As docs/config.md advises: vx bundles the config as a bundler does.
		"compilerOptions": map[string]any{"strict": true, "noEmit": true, "module": "esnext", "moduleResolution": "bundler", "target": "es2022", "types": []string{},
			"paths": map[string][]string{"@acme/vx-preset": {"./packages/vx-preset/index.ts"}, "@example/vx-preset": {"./example/packages/vx-preset/index.ts"}}},
		"files": files,
	})
	write("tsconfig.json", tsconfig)
	cmd := osexec.Command(tsc, "-p", "tsconfig.json", "--pretty", "false")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	got := map[string][]string{}
	errLine := regexp.MustCompile(`^(\S+\.ts)\(\d+,\d+\): (error TS\d+: .*)$`)
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := errLine.FindStringSubmatch(sc.Text()); m != nil {
			got[m[1]] = append(got[m[1]], m[2])
		} else if strings.TrimSpace(sc.Text()) != "" && !strings.HasPrefix(sc.Text(), "  ") {
			t.Errorf("tsc: %s", sc.Text())
		}
	}
	for name, expect := range want {
		switch {
		case expect == "" && len(got[name]) > 0:
			t.Errorf("%s does not compile:\n%s", name, strings.Join(got[name], "\n"))
		case expect != "" && (len(got[name]) != 1 || got[name][0] != expect):
			t.Errorf("%s: tsc says\n%s\nwant\n%s", name, strings.Join(got[name], "\n"), expect)
		}
	}
	if t.Failed() {
		t.Logf("tsc output:\n%s", out)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
