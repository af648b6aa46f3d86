//go:build unix

package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/exec"
)

// prePostGraph is one task whose pre, main and post scripts are given.
func prePostGraph(t *testing.T, pre, main, post string) *Graph {
	t.Helper()
	ws := testWorkspace(t, "root::", "a::build")
	a := ws.Projects[1]
	a.Dir = t.TempDir()
	a.Scripts["build"] = main
	n := newNode(nil, a, "build")
	n.Pre, n.Post, n.Target = pre, post, true
	return &Graph{Nodes: []*Node{n}}
}

func TestPrePostChain(t *testing.T) {
	tests := []struct {
		name           string
		pre, main, pst string
		args           []string
		want           string
		code           int
	}{
		{"all three, args to the main script only", "echo pre $npm_lifecycle_event", "echo main $npm_lifecycle_event", "echo post $npm_lifecycle_script", []string{"x"},
			"pre prebuild\nmain build x\npost echo post $npm_lifecycle_script\n", 0},
		{"pre fails: nothing else runs, its code is the task's", "exit 3", "echo main", "echo post", nil, "", 3},
		{"main fails: no post", "", "echo main; exit 4", "echo post", nil, "main\n", 4},
		{"post fails", "", "echo main", "exit 5", nil, "main\n", 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := prePostGraph(t, tt.pre, tt.main, tt.pst)
			var stdout bytes.Buffer
			o := Execute(context.Background(), g, Options{Concurrency: 1, Args: tt.args, Stdout: &stdout, Stderr: &stdout, Env: func(n *Node) []string {
				return []string{"PATH=" + os.Getenv("PATH"), "npm_lifecycle_event=build", "npm_lifecycle_script=" + n.Script}
			}})
			if got := stdout.String(); got != tt.want {
				t.Errorf("output = %q, want %q", got, tt.want)
			}
			if got := o.Code(); got != tt.code {
				t.Errorf("Code() = %d, want %d", got, tt.code)
			}
		})
	}
}

// TestPrePostChainSignal: an interrupt during the pre script ends the task;
// the main script never starts.
func TestPrePostChainSignal(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "main-ran")
	g := prePostGraph(t, "sleep 5", "touch "+marker, "")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	done := make(chan Outcome, 1)
	go func() {
		done <- Execute(ctx, g, Options{Concurrency: 1, Grace: 2 * time.Second, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
			Env: func(*Node) []string { return []string{"PATH=" + os.Getenv("PATH")} }})
	}()
	time.Sleep(300 * time.Millisecond)
	cancel(&exec.Interrupt{Signal: syscall.SIGINT})
	select {
	case o := <-done:
		if o.Code() != 130 {
			t.Errorf("Code() = %d, want 130", o.Code())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Execute did not return")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the main script ran after the interrupt")
	}
}
