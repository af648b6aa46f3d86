package helper

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"
	"time"
)

type fakeInfo struct{ mode fs.FileMode }

func (f fakeInfo) Name() string       { return "" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) Sys() any           { return nil }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }

type fakeFS map[string]fs.FileMode

func (m fakeFS) stat(p string) (fs.FileInfo, error) {
	if mode, ok := m[filepath.ToSlash(p)]; ok {
		return fakeInfo{mode: mode}, nil
	}
	return nil, fs.ErrNotExist
}

// TestFind covers the order of the places (vx-remote's cases are in
// internal/remote) and the error for a helper found nowhere.
func TestFind(t *testing.T) {
	files := fakeFS{"/opt/vx/vx-config": 0o755, "/usr/bin/vx-config": 0o755, "/usr/bin/dir/vx-config": fs.ModeDir | 0o755, `C:/vx/vx-config.exe`: 0o644}
	for _, tc := range []struct {
		name, override, exe, path, goos, want string
		notFound                              string
	}{
		{name: "beside vx first", exe: "/opt/vx/vx", path: "/usr/bin", goos: "linux", want: "/opt/vx/vx-config"},
		{name: "then PATH", exe: "/elsewhere/vx", path: "/usr/bin", goos: "linux", want: "/usr/bin/vx-config"},
		{name: "a directory is not the helper", exe: "", path: "/usr/bin/dir", goos: "linux", notFound: "vx-config is not on PATH"},
		{name: "nowhere, with vx's directory", exe: "/elsewhere/vx", path: "/nope", goos: "linux", notFound: "vx-config is not beside vx (in /elsewhere) or on PATH"},
		{name: "windows adds .exe", exe: "", path: `C:/vx`, goos: "windows", want: "C:/vx/vx-config.exe"},
		{name: "override wins", override: "/usr/bin/vx-config", exe: "/opt/vx/vx", goos: "linux", want: "/usr/bin/vx-config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find("vx-config", tc.override, "VX_CONFIG_HELPER", tc.exe, tc.path, tc.goos, files.stat)
			if tc.notFound != "" {
				var nf *NotFoundError
				if !errors.As(err, &nf) || filepath.ToSlash(err.Error()) != tc.notFound {
					t.Fatalf("err = %v, want a NotFoundError %q", err, tc.notFound)
				}
				return
			}
			if err != nil || filepath.ToSlash(got) != tc.want {
				t.Fatalf("= %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if _, err := Find("vx-config", "/nope", "VX_CONFIG_HELPER", "", "", "linux", files.stat); err == nil || err.Error() != `VX_CONFIG_HELPER names "/nope", which is not an executable file` {
		t.Errorf("a missing override: err = %v", err)
	}
}
