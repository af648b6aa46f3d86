package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecuteNullDeviceNeedsNoPipe checks, through /proc, what a task's
// stdout and stderr are: the null device itself when vx's stream is the null
// device, a pipe (read and prefixed by vx) otherwise.
func TestExecuteNullDeviceNeedsNoPipe(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	regular, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer regular.Close()
	tests := []struct {
		name           string
		stdout, stderr *os.File
		want1, want2   string // readlink of the task's fd 1 and 2, "pipe" for any pipe
	}{
		{"both to the null device", null, null, "/dev/null", "/dev/null"},
		{"stdout to the null device", null, regular, "/dev/null", "pipe"},
		{"to a file", regular, regular, "pipe", "pipe"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := logWorkspace(t, "root::", "a::build", "b::build")
			dir := t.TempDir()
			for _, n := range g.Nodes {
				n.Script = fmt.Sprintf(`o=$(readlink /proc/$$/fd/1); e=$(readlink /proc/$$/fd/2); echo "$o" > %[1]s/%[2]s.1; echo "$e" > %[1]s/%[2]s.2`,
					dir, strings.ReplaceAll(n.ID, "#", "_"))
			}
			if o := executeTo(t, g, Options{Concurrency: 2}, tt.stdout, tt.stderr); o.Code() != 0 {
				t.Fatalf("Code() = %d", o.Code())
			}
			for _, n := range g.Nodes {
				for fd, want := range map[string]string{"1": tt.want1, "2": tt.want2} {
					b, err := os.ReadFile(filepath.Join(dir, strings.ReplaceAll(n.ID, "#", "_")+"."+fd))
					if err != nil {
						t.Fatal(err)
					}
					got := strings.TrimSpace(string(b))
					if strings.HasPrefix(got, "pipe:") {
						got = "pipe"
					}
					if got != want {
						t.Errorf("%s: fd %s is %q, want %q", n.ID, fd, got, want)
					}
				}
			}
		})
	}
}
