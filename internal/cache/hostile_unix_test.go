//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/cache/key"
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
					if err == nil && fi.Mode().IsRegular() && !strings.Contains(p, "cas") && filepath.Base(p) != "vx-store" { // the store's mark
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

// TestOutputNamesWindowsCannotHold: an output whose name holds ':' or '\'
// (valid on Unix, not on Windows) is refused when the result would be
// stored, with one line, rather than stored on every run and refused at
// every lookup. The next run finds the file there, not written by vx: the
// user's, as any such file (docs/cache.md, "Your files among the outputs").
func TestOutputNamesWindowsCannotHold(t *testing.T) {
	for _, name := range []string{"a:b.js", `c\d.js`} {
		t.Run(name, func(t *testing.T) {
			tr := &taskRunner{t: t, root: testdir.New(t), env: []string{"PATH=" + os.Getenv("PATH")}, store: testdir.New(t)}
			tr.write("p/package.json", `{"name": "p"}`)
			spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}
			task := func() { tr.write("p/dist/ok.js", "ok"); tr.write("p/dist/"+name, "odd") }
			want := "vx: p#build: not cached: the output \"dist/" + name + "\" has a name with ':' or '\\', which vx does not store " +
				"(no file of that name can be restored on Windows); rename it, or leave it out of the outputs with a \"!\" glob\n"
			if hit, warn := tr.run(spec, task); hit || warn != want {
				t.Errorf("first run: hit %v, warnings %q, want a miss and %q", hit, warn, want)
			}
			for run := 2; run <= 4; run++ {
				hit, warn := tr.run(spec, task)
				if warn != "" || hit != (run > 2) {
					t.Errorf("run %d: hit %v, warnings %q; want no warning, and a hit after the second", run, hit, warn)
				}
			}
		})
	}
}

// TestLockDirLink: node_modules/.cache/vx-locks replaced by a symbolic link
// to a directory of the user's: no lock is written there, one warning says
// why, and the tasks go on.
func TestLockDirLink(t *testing.T) {
	root, elsewhere := testdir.New(t), testdir.New(t)
	os.MkdirAll(filepath.Join(root, "node_modules", ".cache"), 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(root, "node_modules", ".cache", "vx-locks")); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	c, err := New(Options{Dir: testdir.New(t), Root: root, Read: true, Write: true, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	unlock, ok := c.LockTask(key.Compute(&TaskSpec{ID: "p#build"}, nil, nil, nil))
	if !ok {
		t.Fatal("LockTask refused")
	}
	unlock()
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("a lock was written through the link: %v", ents)
	}
	if !strings.Contains(warn.String(), "is a symbolic link, which vx does not write through") {
		t.Errorf("warnings %q", warn.String())
	}
}
