// Package testdir gives tests a temporary directory that can be removed
// under Wine too.
//
// Under Wine 8, Go 1.26's os.RemoveAll fails on any directory that is not
// empty ("unlinkat ...: Invalid function"), so t.TempDir's cleanup fails
// every Windows test that writes files. [New] removes the tree entry by
// entry instead, which Wine handles. Test code only.
package testdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// New returns a new temporary directory removed when t ends: t.TempDir on
// Unix, a directory removed with [RemoveTree] on Windows.
func New(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "vxtest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := RemoveTree(dir); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return dir
}

// RemoveTree removes dir and everything below it one entry at a time,
// children before their directory. Entries already gone are not errors;
// the first other error is returned after trying every entry.
func RemoveTree(dir string) error {
	var paths []string
	filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error {
		paths = append(paths, p)
		return nil
	})
	var first error
	for i := len(paths) - 1; i >= 0; i-- {
		if err := os.Remove(paths[i]); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
			first = err
		}
	}
	return first
}
