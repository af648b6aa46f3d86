//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestNamedPipesNeverHang: a run whose input is a symbolic link to a named
// pipe, or whose store files (env-key, memo, ac/..., last/..., last-run)
// were replaced by named pipes or links to /dev/zero, ends at once: vx
// reads regular files only, and a bounded amount of each.
func TestNamedPipesNeverHang(t *testing.T) {
	for _, replace := range []string{"fifo", "dev-zero"} {
		t.Run(replace, func(t *testing.T) {
			root := testdir.New(t)
			tr := &taskRunner{t: t, root: root, env: []string{"PATH=" + os.Getenv("PATH")}, store: testdir.New(t)}
			tr.write("p/package.json", `{"name": "p"}`)
			tr.write("p/src.txt", "v1")
			if err := syscall.Mkfifo(filepath.Join(root, "p/pipe"), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			if err := os.Symlink("pipe", filepath.Join(root, "p/in.txt")); err != nil {
				t.Fatal(err)
			}
			spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Inputs: []string{"src.txt", "in.txt"}, Outputs: []string{"out/**"}}
			task := func() { tr.write("p/out/a.txt", "built") }
			done := make(chan struct{})
			go func() {
				defer close(done)
				tr.run(spec, task)
				// Every store file, replaced.
				var files []string
				filepath.Walk(tr.store, func(p string, fi os.FileInfo, err error) error {
					if err == nil && fi.Mode().IsRegular() && !strings.Contains(p, "cas") && filepath.Base(p) != markName {
						files = append(files, p)
					}
					return nil
				})
				if len(files) < 4 {
					t.Errorf("the store holds %d files: %q", len(files), files)
				}
				for _, p := range files {
					os.Remove(p)
					if replace == "fifo" {
						syscall.Mkfifo(p, 0o600)
					} else {
						os.Symlink("/dev/zero", p)
					}
				}
				tr.run(spec, task)
				tr.run(spec, task)
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("a run hung on a named pipe or /dev/zero")
			}
		})
	}
}
