package helper

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the file name of the helper program name ("vx-remote") on
// goos: with ".exe" on Windows.
func FileName(name, goos string) string {
	if goos == "windows" {
		return name + ".exe"
	}
	return name
}

// NotFoundError says where a helper was looked for.
type NotFoundError struct {
	File string // the helper's file name
	Dir  string // the directory of vx's executable, or "" when unknown
}

func (e *NotFoundError) Error() string {
	if e.Dir == "" {
		return fmt.Sprintf("%s is not on PATH", e.File)
	}
	return fmt.Sprintf("%s is not beside vx (in %s) or on PATH", e.File, e.Dir)
}

// Find locates the helper program name. The path override wins when it is
// not empty (overrideVar names the variable it came from, for the error);
// then the file beside vx's own executable exe, symbolic links resolved
// (where `go install ./cmd/...` and the release archives put it); then
// pathEnv, vx's PATH. Relative PATH entries are skipped, as Go's
// exec.LookPath refuses them. On Windows a file is taken whatever its mode;
// elsewhere it must be executable. stat is os.Stat outside tests. A helper
// found nowhere is a [*NotFoundError].
func Find(name, override, overrideVar, exe, pathEnv, goos string, stat func(string) (fs.FileInfo, error)) (string, error) {
	if stat == nil {
		stat = os.Stat
	}
	isExec := func(p string) bool {
		fi, err := stat(p)
		if err != nil || fi.IsDir() {
			return false
		}
		return goos == "windows" || fi.Mode()&0o111 != 0
	}
	if override != "" {
		if !isExec(override) {
			return "", fmt.Errorf("%s names %q, which is not an executable file", overrideVar, override)
		}
		return override, nil
	}
	file := FileName(name, goos)
	nf := &NotFoundError{File: file}
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), file)
		if isExec(p) {
			return p, nil
		}
		nf.Dir = filepath.Dir(exe)
	}
	sep := ":"
	if goos == "windows" {
		sep = ";"
	}
	for _, dir := range strings.Split(pathEnv, sep) {
		if goos == "windows" {
			dir = strings.Trim(dir, `"`)
		}
		if !IsAbs(dir, goos) {
			continue
		}
		p := filepath.Join(dir, file)
		if isExec(p) {
			return p, nil
		}
	}
	return "", nf
}

// IsAbs reports whether dir is absolute by goos's rules (a drive or UNC
// path on Windows, a leading slash elsewhere), whatever the host.
func IsAbs(dir, goos string) bool {
	if goos != "windows" {
		return strings.HasPrefix(dir, "/")
	}
	if strings.HasPrefix(dir, `\\`) || strings.HasPrefix(dir, "//") {
		return true
	}
	return len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/')
}
