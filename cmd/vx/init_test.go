package main

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInitFromTurbo runs vx init on testdata/turbo's workspaces: the
// vx.config.ts it writes evaluates (vx config, with node) to the same
// tasks as the turbo.json it came from, and it is the file kept in
// internal/config/testdata/types/init-<workspace>.ts, which
// TestTypesCompile checks with tsc (go test -run TestInitFromTurbo -u
// rewrites them). A second vx init refuses to replace it.
func TestInitFromTurbo(t *testing.T) {
	t.Parallel()
	if _, err := osexec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH, and CI=true: vx init's file is evaluated with node")
		}
		t.Skip("skipping vx init's check: no node on PATH to evaluate vx.config.ts")
	}
	dirs, err := filepath.Glob(filepath.Join("testdata", "turbo", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no workspaces in testdata/turbo: %v", err)
	}
	for _, src := range dirs {
		name := filepath.Base(src)
		t.Run(name, func(t *testing.T) {
			t.Parallel() // its own copy of the workspace, its own golden file
			ws := t.TempDir()
			if err := os.CopyFS(ws, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			vx := func(args ...string) (string, string, error) {
				cmd := osexec.Command("vx", args...)
				cmd.Dir = ws
				cmd.Env = append(os.Environ(), "VX_CACHE_DIR="+filepath.Join(ws, ".vx-cache"))
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				return stdout.String(), stderr.String(), err
			}
			tasks := func() any {
				t.Helper()
				out, stderr, err := vx("config")
				if err != nil {
					t.Fatalf("vx config: %v\n%s", err, stderr)
				}
				var v struct{ Tasks any }
				if err := json.Unmarshal([]byte(out), &v); err != nil {
					t.Fatalf("vx config: %v\n%s", err, out)
				}
				return v.Tasks
			}
			fromTurbo := tasks()
			if _, stderr, err := vx("init"); err != nil || !strings.Contains(stderr, "vx: wrote vx.config.ts from turbo.json") {
				t.Fatalf("vx init: %v\n%s", err, stderr)
			}
			written, err := os.ReadFile(filepath.Join(ws, "vx.config.ts"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromTurbo, tasks()); diff != "" {
				t.Errorf("vx.config.ts evaluates to other tasks than turbo.json: (-turbo.json +vx.config.ts):\n%s\n%s", diff, written)
			}
			golden := filepath.Join("..", "..", "internal", "config", "testdata", "types", "init-"+name+".ts")
			want := append([]byte("// tsc: ok\n"), written...)
			if *update {
				if err := os.WriteFile(golden, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := os.ReadFile(golden); !bytes.Equal(got, want) {
				t.Errorf("%s is not what vx init writes (go test -run TestInitFromTurbo -u rewrites it):\n%s", golden, cmp.Diff(string(got), string(want)))
			}
			if _, stderr, err := vx("init"); err == nil || !strings.Contains(stderr, "vx: init: the workspace already has vx.config.ts") {
				t.Errorf("a second vx init: %v\n%s", err, stderr)
			}
		})
	}
}
