//go:build unix

package watch

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestDigestNamedPipe: a named pipe among the watched files is never
// opened (it would block the watcher until a writer came).
func TestDigestNamedPipe(t *testing.T) {
	p := filepath.Join(testdir.New(t), "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan string, 1)
	go func() { d, _ := digest(p); done <- d }()
	select {
	case d := <-done:
		if !strings.HasPrefix(d, "special:") {
			t.Errorf("digest(a named pipe) = %q", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("digest blocked on a named pipe")
	}
}
