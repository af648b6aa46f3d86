//go:build unix

package inputfile

import (
	"errors"
	"os"
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

// TestOpenNeverWaits: a symbolic link to a named pipe, opened for reading,
// is refused at once, and so is one opened for writing.
func TestOpenNeverWaits(t *testing.T) {
	dir := testdir.New(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "in.txt")
	if err := os.Symlink("fifo", link); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 3)
	go func() {
		f, _, err := Open(link)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	go func() { _, err := ReadLimit(link, 10); done <- err }()
	go func() {
		f, err := OpenWrite(fifo, os.O_WRONLY|os.O_CREATE, 0o644)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	for range 3 {
		select {
		case err := <-done:
			if err == nil {
				t.Error("a named pipe was opened")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("opening a named pipe blocked")
		}
	}
}

// TestOpenWriteRefusesLinks: a symbolic link is never written through,
// whatever it names, and the file it names keeps its bytes.
func TestOpenWriteRefusesLinks(t *testing.T) {
	dir := testdir.New(t)
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("the user's"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{victim, filepath.Join(dir, "nothing-yet")} {
		link := filepath.Join(dir, "link")
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		f, err := OpenWrite(link, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
		if err == nil {
			f.Close()
		}
		if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("OpenWrite(link to %s) error = %v, want ErrLink", target, err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "the user's" {
		t.Errorf("the link's target holds %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nothing-yet")); err == nil {
		t.Error("OpenWrite created the file a dangling link names")
	}
	f, err := OpenWrite(filepath.Join(dir, "plain"), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("ok")
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "plain")); string(b) != "ok" {
		t.Errorf("a plain file holds %q", b)
	}
	if err := os.WriteFile(victim, []byte("longer content"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = OpenWrite(victim, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, _ := os.Stat(victim); fi.Size() != 0 {
		t.Errorf("O_TRUNC left %d bytes", fi.Size())
	}
}
