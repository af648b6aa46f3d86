package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

func TestRead(t *testing.T) {
	dir := testdir.New(t)
	write := func(name string, size int64) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(`{"name": "a"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if size > 0 {
			if err := os.Truncate(p, size); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	small := write("small.json", 0)
	atMax := write("max.json", MaxSize)
	over := write("over.json", MaxSize+1)

	if got, err := Read(small); err != nil || string(got) != `{"name": "a"}` {
		t.Errorf("Read(small) = %q, %v", got, err)
	}
	if got, err := Read(atMax); err != nil || len(got) != MaxSize {
		t.Errorf("Read(16 MiB) = %d bytes, %v; want all of it", len(got), err)
	}
	if _, err := Read(over); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Read(16 MiB + 1) error = %v, want ErrTooLarge", err)
	}
	if _, err := Read(dir); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Read(a directory) error = %v, want ErrNotRegular", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Read(missing) error = %v, want ErrNotExist", err)
	}
	if runtime.GOOS != "windows" {
		link := filepath.Join(dir, "zero.json")
		if err := os.Symlink("/dev/zero", link); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(link); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Read(symlink to /dev/zero) error = %v, want ErrNotRegular", err)
		}
	}
}
