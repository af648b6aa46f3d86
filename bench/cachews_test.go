package bench

import (
	"bytes"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/cli"
	"github.com/vxrun/vx/internal/testtool"
)

// TestCacheLockfileKeysEachProject: vx keys every task of the cache
// workspace on its own project's part of package-lock.json, without the
// warning it gives for a lockfile that has no entry for the project (which
// makes each key hold the whole lockfile instead).
func TestCacheLockfileKeysEachProject(t *testing.T) {
	root := t.TempDir()
	if err := GenerateCache(root, 12, 1); err != nil {
		t.Fatal(err)
	}
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var stdout, stderr bytes.Buffer
	args := []string{"run", "build", "--dry-run", "--cache-dir", filepath.Join(t.TempDir(), "store")}
	p := cli.Process{Args: args, Environ: os.Environ(), Dir: root, Stdin: null, Stdout: &stdout, Stderr: &stderr}
	if code, err := cli.Main(p); code != 0 {
		t.Fatalf("vx %v: exit %d: %v\n%s", args, code, err, stderr.String())
	}
	if strings.Contains(stderr.String(), "package-lock.json") {
		t.Errorf("vx %v warned about the lockfile:\n%s", args, stderr.String())
	}
	if got := strings.Count(stdout.String(), "cache:   miss"); got != 12 {
		t.Errorf("vx %v: %d keyed tasks, want 12:\n%s", args, got, stdout.String())
	}
}

// TestCacheLockfileIsNpms: the cache workspace's package-lock.json is the
// one `npm install --package-lock-only` writes for it, byte for byte (npm
// needs no registry for a workspace whose dependencies are all its own
// projects).
func TestCacheLockfileIsNpms(t *testing.T) {
	npm := testtool.Need(t, "install Node.js with npm; .ci/run does", "npm")
	root := t.TempDir()
	const n = 23 // chains of 10, and one cut short
	if err := GenerateCache(root, n, 1); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(root, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "package-lock.json")); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(npm, "install", "--package-lock-only", "--ignore-scripts", "--offline", "--no-audit", "--no-fund")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false", "npm_config_cache="+t.TempDir())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install --package-lock-only: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(root, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("GenerateCache's package-lock.json differs from npm's (-gen +npm):\n%s", diff)
	}
}
