package exec

import (
	"errors"
	"io/fs"
	osexec "os/exec"
	"strings"
	"testing"
)

// TestShellCacheChecksEachFileOnce checks that the tasks of a run check each
// file that could be the shell once, whatever their PATHs share, and that
// the Windows batch-file decision (a lookup of the script's first word) is
// made afresh for every task.
func TestShellCacheChecksEachFileOnce(t *testing.T) {
	tests := []struct {
		goos, sh, tool string
		pathA, pathB   string
		wantChecks     int // of files that could be the shell, for the 4 tasks
		perTask        int // the same for one task of pathA, without a cache
	}{
		// p's bin, then /bin; q's bin, /bin remembered
		{"linux", "/bin/sh", "/p/node_modules/.bin/tsc", "PATH=/p/node_modules/.bin:/bin", "PATH=/q/node_modules/.bin:/bin", 3, 2},
		// the shell is ComSpec's absolute path: one check
		{"windows", `C:\W\cmd.exe`, `C:\p\node_modules\.bin\tsc.cmd`, `Path=C:\p\node_modules\.bin;C:\W`, `Path=C:\q\node_modules\.bin;C:\W`, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			shellChecks, toolChecks := 0, 0
			isExec := func(p string) error {
				if strings.HasSuffix(p, "/sh") || p == tt.sh {
					shellChecks++
				}
				if p == tt.tool {
					toolChecks++
				}
				if p == tt.sh || p == tt.tool {
					return nil
				}
				return fs.ErrNotExist
			}
			env := func(path string) []string {
				e := []string{path}
				if tt.goos == "windows" {
					e = append(e, `ComSpec=`+tt.sh, "PATHEXT=.EXE;.CMD")
				}
				return e
			}
			var c ShellCache
			for _, path := range []string{tt.pathA, tt.pathA, tt.pathA, tt.pathB} {
				got, _, err := resolve(Spec{Script: "tsc", Env: env(path), Shells: &c}, tt.goos, isExec)
				if err != nil || got != tt.sh {
					t.Fatalf("resolve() = %q, %v, want %q", got, err, tt.sh)
				}
			}
			if shellChecks != tt.wantChecks {
				t.Errorf("4 tasks checked %d files for the shell, want %d", shellChecks, tt.wantChecks)
			}
			if tt.goos == "windows" && toolChecks != 3 {
				t.Errorf("the script's first word was found %d times for the 3 tasks of its PATH, want 3 (never remembered)", toolChecks)
			}
			// Without a cache, every task searches again.
			shellChecks = 0
			resolve(Spec{Script: "tsc", Env: env(tt.pathA)}, tt.goos, isExec)
			resolve(Spec{Script: "tsc", Env: env(tt.pathA)}, tt.goos, isExec)
			if want := 2 * tt.perTask; shellChecks != want {
				t.Errorf("without a cache, 2 tasks checked %d files for the shell, want %d", shellChecks, want)
			}
		})
	}
	// A shell found nowhere is reported as not found, cache or not.
	var c ShellCache
	for range 2 {
		_, _, err := resolve(Spec{Script: "true", Env: []string{"PATH=/nowhere"}, Shells: &c}, "linux", func(string) error { return fs.ErrNotExist })
		if !errors.Is(err, osexec.ErrNotFound) {
			t.Errorf("resolve() error = %v, want not found", err)
		}
	}
}
