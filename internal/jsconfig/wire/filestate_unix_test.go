//go:build unix

package wire

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFileStateNamedPipe: a named pipe where a config's input was is
// another kind of file, at once; vx checking its memo never hangs on it.
func TestFileStateNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, ".env")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan string, 1)
	go func() { done <- FileState(fifo) }()
	select {
	case got := <-done:
		if got != Other {
			t.Errorf("FileState(named pipe) = %q, want %q", got, Other)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FileState hangs on a named pipe")
	}
	file := filepath.Join(dir, "a")
	os.WriteFile(file, []byte("x"), 0o644)
	if got, want := FileState(file), ContentState([]byte("x")); got != want {
		t.Errorf("FileState(file) = %q, want %q", got, want)
	}
	if got := FileState(filepath.Join(dir, "missing")); got != Absent {
		t.Errorf("FileState(missing) = %q, want %q", got, Absent)
	}
}
