//go:build unix && !aix && !solaris && !illumos

package filelock

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestLockRefusesLinks: a lock file that is a symbolic link (to a file of
// the user's, or to nothing yet) or a named pipe is refused at once, and
// nothing is written through it.
func TestLockRefusesLinks(t *testing.T) {
	dir := testdir.New(t)
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("the user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"to-file": victim, "to-nothing": filepath.Join(dir, "new"), "to-fifo": fifo} {
		t.Run(name, func(t *testing.T) {
			lock := filepath.Join(dir, "lock-"+name)
			if err := os.Symlink(target, lock); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				l, err := TryLock(lock)
				if err == nil {
					l.Unlock()
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "symbolic link") {
					t.Errorf("TryLock(link) = %v, want a refusal naming the link", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("TryLock blocked")
			}
		})
	}
	t.Run("fifo", func(t *testing.T) {
		if _, err := TryLock(fifo); err == nil {
			t.Error("TryLock(a named pipe) succeeded")
		}
	})
	if b, _ := os.ReadFile(victim); string(b) != "the user's file" {
		t.Errorf("the link's target now holds %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "new")); err == nil {
		t.Error("a dangling link's target was created")
	}
}
