//go:build unix

package main

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestDuplicateParentVariable: started with one name twice (DUP=first,
// DUP=last: possible only when a parent builds the environment by hand),
// a task sees the first, as docs/env.md says. Go's runtime keeps only the
// first occurrence before vx reads its environment. The raw environment is
// passed with syscall.ForkExec: os/exec would keep only the last.
func TestDuplicateParentVariable(t *testing.T) {
	t.Parallel()
	root := testdir.New(t)
	writeTree(t, root, map[string]string{
		"package.json": `{"name": "a", "scripts": {"build": "echo $DUP"}}`,
		"vx.json":      `{"tasks": {"build": {"env": {"passThrough": ["DUP"]}}}}`,
	})
	for _, args := range [][]string{{"env", "build"}, {"run", "build"}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		env := []string{"PATH=" + os.Getenv("PATH"), "DUP=first", "DUP=last"}
		pid, err := syscall.ForkExec(vxBinary(t), append([]string{"vx"}, args...), &syscall.ProcAttr{
			Dir: root, Env: env, Files: []uintptr{os.Stdin.Fd(), w.Fd(), w.Fd()},
		})
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(r)
		r.Close()
		var ws syscall.WaitStatus
		syscall.Wait4(pid, &ws, 0, nil)
		if ws.ExitStatus() != 0 {
			t.Fatalf("vx %s: exit %d, output:\n%s", strings.Join(args, " "), ws.ExitStatus(), out)
		}
		want := "DUP=first"
		if args[0] == "run" {
			want = "first"
		}
		lines := strings.Split(string(out), "\n")
		found := false
		for _, l := range lines {
			if l == want {
				found = true
			}
			if strings.Contains(l, "last") {
				t.Errorf("vx %s: output has the second value: %q", strings.Join(args, " "), l)
			}
		}
		if !found {
			t.Errorf("vx %s: output has no line %q:\n%s", strings.Join(args, " "), want, out)
		}
	}
}
