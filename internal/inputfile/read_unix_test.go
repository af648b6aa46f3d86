//go:build unix

package inputfile

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestReadFIFO: a named pipe is refused at once, without waiting for a
// writer.
func TestReadFIFO(t *testing.T) {
	p := filepath.Join(testdir.New(t), "package.json")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Read(p); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("Read(FIFO) error = %v, want ErrNotRegular naming a named pipe", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Read(FIFO) blocked")
	}
}
