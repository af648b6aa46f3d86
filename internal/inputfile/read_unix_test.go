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

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
	"golang.org/x/sys/unix"
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

// TestOpenFileInfo: what Open says of a file is what os.Stat says, for
// each kind of permission bits.
func TestOpenFileInfo(t *testing.T) {
	dir := testdir.New(t)
	tests := []struct {
		name string
		mode os.FileMode
		size int64
	}{
		{"plain.json", 0o644, 13},
		{"empty", 0o600, 0},
		{"tool", 0o755 | os.ModeSetuid | os.ModeSetgid, 5000},
		{"sticky", 0o640 | os.ModeSticky, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name)
			if err := os.WriteFile(p, make([]byte, tt.size), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(p, tt.mode); err != nil {
				t.Fatal(err)
			}
			mtime := time.Date(2026, 12, 6, 9, 30, 0, 123456789, time.UTC)
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			want, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			f, got, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			type info struct {
				Name    string
				Size    int64
				Mode    os.FileMode
				ModTime time.Time
				IsDir   bool
				Ino     uint64
			}
			of := func(fi os.FileInfo) info {
				st, ok := fi.Sys().(*syscall.Stat_t)
				if !ok {
					t.Fatalf("Sys() = %T, want *syscall.Stat_t", fi.Sys())
				}
				return info{fi.Name(), fi.Size(), fi.Mode(), fi.ModTime(), fi.IsDir(), uint64(st.Ino)}
			}
			if diff := cmp.Diff(of(want), of(got)); diff != "" {
				t.Errorf("Open(%s) FileInfo mismatch (-os.Stat +Open):\n%s", tt.name, diff)
			}
		})
	}
}

// TestOpenIsBlocking: the files Open and OpenWrite return are blocking
// (opened O_NONBLOCK so that a named pipe never waits, then set back),
// and OpenWrite keeps O_APPEND: two appends both land at the end.
func TestOpenIsBlocking(t *testing.T) {
	dir := testdir.New(t)
	p := filepath.Join(dir, "log")
	if err := os.WriteFile(p, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := func(f *os.File) int {
		fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
		if err != nil {
			t.Fatal(err)
		}
		return fl
	}
	f, _, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if flags(f)&syscall.O_NONBLOCK != 0 {
		t.Error("Open returned a non-blocking descriptor")
	}
	f.Close()
	for _, s := range []string{"b", "c"} {
		w, err := OpenWrite(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if fl := flags(w); fl&syscall.O_NONBLOCK != 0 || fl&syscall.O_APPEND == 0 {
			t.Errorf("OpenWrite(O_APPEND) flags %#x: want O_APPEND without O_NONBLOCK", fl)
		}
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	if b, _ := os.ReadFile(p); string(b) != "abc" {
		t.Errorf("after two appends the file holds %q, want %q", b, "abc")
	}
}

// BenchmarkOpen is Open and Close of a small regular file.
func BenchmarkOpen(b *testing.B) {
	p := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		f, _, err := Open(p)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
