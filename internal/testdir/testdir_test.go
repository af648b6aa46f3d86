package testdir

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemoveTree(t *testing.T) {
	dir, err := os.MkdirTemp("", "testdir")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/b/c.txt", "a/d.txt", "e/f/g/h.txt", "top.txt"} {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveTree(dir); err != nil {
		t.Fatalf("RemoveTree() = %v", err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("after RemoveTree, Lstat(%q) = %v, want not exist", dir, err)
	}
	if err := RemoveTree(dir); err != nil {
		t.Errorf("RemoveTree() of a missing directory = %v, want nil", err)
	}
}
