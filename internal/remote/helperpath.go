package remote

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// HelperName is the helper's file name on goos.
func HelperName(goos string) string {
	if goos == "windows" {
		return "vx-remote.exe"
	}
	return "vx-remote"
}

// FindHelper locates vx-remote: the path override wins (VX_REMOTE_HELPER),
// then the file beside vx's own executable (where `go install ./cmd/...`
// and release archives put it), then vx's PATH. Relative PATH entries are
// skipped, as Go's exec.LookPath refuses them. stat is os.Stat outside
// tests.
func FindHelper(override, exe, pathEnv, goos string, stat func(string) (fs.FileInfo, error)) (string, error) {
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
			return "", fmt.Errorf("remote: VX_REMOTE_HELPER names %q, which is not an executable file", override)
		}
		return override, nil
	}
	name := HelperName(goos)
	var tried []string
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if isExec(p) {
			return p, nil
		}
		tried = append(tried, filepath.Dir(exe))
	}
	sep := ":"
	if goos == "windows" {
		sep = ";"
	}
	for _, dir := range strings.Split(pathEnv, sep) {
		if goos == "windows" {
			dir = strings.Trim(dir, `"`)
		}
		if !isAbs(dir, goos) {
			continue
		}
		p := filepath.Join(dir, name)
		if isExec(p) {
			return p, nil
		}
	}
	where := "on PATH"
	if len(tried) > 0 {
		where = fmt.Sprintf("beside vx (in %s) or on PATH", tried[0])
	}
	return "", fmt.Errorf("remote: a remote cache is configured but the helper %s is not %s; install it with vx: go install github.com/vxrun/vx/cmd/...@latest (or set VX_REMOTE_HELPER to its path)", name, where)
}

// isAbs reports whether dir is absolute by goos's rules (a drive or UNC
// path on Windows, a leading slash elsewhere), whatever the host.
func isAbs(dir, goos string) bool {
	if goos != "windows" {
		return strings.HasPrefix(dir, "/")
	}
	if strings.HasPrefix(dir, `\\`) || strings.HasPrefix(dir, "//") {
		return true
	}
	return len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/')
}
