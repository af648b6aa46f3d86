package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestStartTasksOnlyForTasks proves that Process.StartTasks, where cmd/vx
// sets up the subreaper and the watchdog, is called once by a command that
// starts tasks and never by one that starts none.
func TestStartTasksOnlyForTasks(t *testing.T) {
	t.Parallel()
	root := testdir.New(t)
	writeTree(t, root, map[string]string{
		"package.json":   `{"name": "root", "workspaces": ["a"]}`,
		"vx.json":        `{"tasks": {"build": {"outputs": []}}}`,
		"a/package.json": `{"name": "a", "scripts": {"build": "echo built"}}`,
	})
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"--version"}, 0},
		{[]string{"--help"}, 0},
		{[]string{"ls"}, 0},
		{[]string{"env", "a#build"}, 0},
		{[]string{"cache", "status"}, 0},
		{[]string{"run"}, 0},
		{[]string{"run", "build", "--dry-run"}, 0},
		{[]string{"run", "build", "--no-cache"}, 1},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			calls := 0
			var stdout, stderr bytes.Buffer
			code, err := Main(Process{Args: tc.args, Dir: root, Environ: []string{"PATH=" + os.Getenv("PATH")},
				Stdout: &stdout, Stderr: &stderr, StartTasks: func() { calls++ }})
			if code != 0 || err != nil {
				t.Fatalf("vx %q: exit %d, error %v, stderr:\n%s", tc.args, code, err, stderr.String())
			}
			if calls != tc.want {
				t.Errorf("vx %q called StartTasks %d times, want %d", tc.args, calls, tc.want)
			}
		})
	}
}

// TestSignalsOnlyWhenNeeded proves that Main asks for Process.Signals,
// where cmd/vx starts watching signals, for every command but help and the
// version.
func TestSignalsOnlyWhenNeeded(t *testing.T) {
	t.Parallel()
	root := testdir.New(t)
	writeTree(t, root, map[string]string{"package.json": `{"name": "root", "scripts": {"build": "echo built"}}`})
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--version"}, 0},
		{[]string{"version"}, 0},
		{[]string{"--help"}, 0},
		{[]string{"help", "run"}, 0},
		{[]string{"ls"}, 1},
		{[]string{"run", "build", "--dry-run"}, 1},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			calls := 0
			var stdout, stderr bytes.Buffer
			code, err := Main(Process{Args: tc.args, Dir: root, Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr,
				Signals: func() (context.Context, <-chan struct{}) { calls++; return context.Background(), nil }})
			if code != 0 || err != nil {
				t.Fatalf("vx %q: exit %d, error %v, stderr:\n%s", tc.args, code, err, stderr.String())
			}
			if calls != tc.want {
				t.Errorf("vx %q called Signals %d times, want %d", tc.args, calls, tc.want)
			}
		})
	}
}
