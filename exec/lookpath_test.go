package exec

import (
	"errors"
	"io/fs"
	"os"
	osexec "os/exec"
	"runtime"
	"strings"
	"testing"
)

// fakeFS is a file tree for lookPath: each path is "exe" (may be run),
// "file" (exists, no execute permission) or "dir". On Windows names are
// compared case-insensitively, as NTFS does.
type fakeFS map[string]string

func (f fakeFS) isExec(goos string) func(string) error {
	return func(p string) error {
		if goos == "windows" {
			p = strings.ReplaceAll(p, "/", `\`)
		}
		kind, ok := f[p]
		if !ok && goos == "windows" {
			for k, v := range f {
				if strings.EqualFold(k, p) {
					kind, ok = v, true
				}
			}
		}
		switch {
		case !ok:
			return fs.ErrNotExist
		case kind == "dir":
			return errors.New("is a directory")
		case kind == "file" && goos != "windows":
			return fs.ErrPermission
		}
		return nil
	}
}

func TestLookPathRules(t *testing.T) {
	t.Parallel()
	unixFS := fakeFS{
		"/a/tool":       "dir",
		"/b/tool":       "file",
		"/c/tool":       "exe",
		"/d/tool":       "exe",
		"/e/other":      "exe",
		"bin/tool":      "exe",
		"tool":          "exe", // in the current directory
		"/proj/x/tool":  "exe",
		"/proj/x/plain": "file",
		"/abs/tool":     "exe",
	}
	winFS := fakeFS{
		`C:\proj\node_modules\.bin\tsc`:     "file", // the sh shim npm also writes
		`C:\proj\node_modules\.bin\tsc.cmd`: "exe",
		`C:\proj\node_modules\.bin\tsc.ps1`: "exe",
		`C:\Windows\system32\cmd.exe`:       "exe",
		`C:\tools\both.cmd`:                 "exe",
		`C:\tools\both.exe`:                 "exe",
		`C:\tools\dirlike.exe`:              "dir",
		`C:\tools2\dirlike.bat`:             "exe",
		`C:\Program Files\nodejs\node.exe`:  "exe",
		`C:\tools\script.js`:                "exe",
		`node_modules\.bin\tsc.cmd`:         "exe",
		`\rooted\rel.exe`:                   "exe",
		`C:\proj\local\run.bat`:             "exe",
	}
	tests := []struct {
		name    string
		goos    string
		file    string
		dir     string
		env     []string
		want    string
		wantErr error
	}{
		{name: "found in a later entry", goos: "linux", file: "tool", env: []string{"PATH=/e:/c:/d"}, want: "/c/tool"},
		{name: "not found", goos: "linux", file: "nope", env: []string{"PATH=/c:/d"}, wantErr: osexec.ErrNotFound},
		{name: "directory named like the file is skipped", goos: "linux", file: "tool", env: []string{"PATH=/a:/d"}, want: "/d/tool"},
		{name: "file without execute permission is skipped", goos: "linux", file: "tool", env: []string{"PATH=/b:/d"}, want: "/d/tool"},
		{name: "only a non-executable file", goos: "linux", file: "tool", env: []string{"PATH=/a:/b"}, wantErr: osexec.ErrNotFound},
		{name: "relative entry is refused", goos: "linux", file: "tool", env: []string{"PATH=bin:/c"}, want: "bin/tool", wantErr: osexec.ErrDot},
		{name: "empty entry means dot and is refused", goos: "linux", file: "tool", env: []string{"PATH=:/c"}, want: "./tool", wantErr: osexec.ErrDot},
		{name: "relative entry without a match is passed over", goos: "linux", file: "other", env: []string{"PATH=bin:/e"}, want: "/e/other"},
		{name: "PATH unset", goos: "linux", file: "tool", env: []string{"HOME=/c"}, wantErr: osexec.ErrNotFound},
		{name: "PATH empty", goos: "linux", file: "tool", env: []string{"PATH="}, wantErr: osexec.ErrNotFound},
		{name: "last PATH wins", goos: "linux", file: "tool", env: []string{"PATH=/c", "PATH=/d"}, want: "/d/tool"},
		{name: "Path is another variable on Unix", goos: "linux", file: "tool", env: []string{"Path=/c"}, wantErr: osexec.ErrNotFound},
		{name: "parent PATH is not used", goos: "darwin", file: "tool", env: nil, wantErr: osexec.ErrNotFound},
		{name: "empty name", goos: "linux", file: "", env: []string{"PATH=/c"}, wantErr: osexec.ErrNotFound},
		{name: "name with a slash is checked as given", goos: "linux", file: "/abs/tool", env: []string{"PATH=/c"}, want: "/abs/tool"},
		{name: "relative name with a slash is not searched", goos: "linux", file: "x/tool", env: []string{"PATH=/proj"}, wantErr: osexec.ErrNotFound},
		{name: "relative name with a slash against dir", goos: "linux", file: "./x/tool", dir: "/proj", want: "/proj/x/tool"},
		{name: "name with a slash, not executable", goos: "linux", file: "/proj/x/plain", wantErr: fs.ErrPermission},
		{name: "name with a slash, a directory", goos: "linux", file: "/a/tool", wantErr: osexec.ErrNotFound},

		{name: "windows .cmd shim by bare name", goos: "windows", file: "tsc",
			env:  []string{`Path=C:\proj\node_modules\.bin;C:\Windows\system32`},
			want: `C:\proj\node_modules\.bin\tsc.cmd`},
		{name: "windows variable and file names ignore case", goos: "windows", file: "TSC",
			env:  []string{`path=C:\proj\node_modules\.bin`, "pathext=.com;.exe;.bat;.cmd"},
			want: `C:\proj\node_modules\.bin\TSC.cmd`},
		{name: "windows last Path spelling wins", goos: "windows", file: "tsc",
			env:  []string{`PATH=C:\Windows\system32`, `Path=C:\proj\node_modules\.bin`},
			want: `C:\proj\node_modules\.bin\tsc.cmd`},
		{name: "windows PATHEXT from the env", goos: "windows", file: "tsc",
			env: []string{`Path=C:\proj\node_modules\.bin`, "PATHEXT=.EXE"}, wantErr: osexec.ErrNotFound},
		{name: "windows PATHEXT without dots", goos: "windows", file: "tsc",
			env: []string{`Path=C:\proj\node_modules\.bin`, "PATHEXT=EXE;cmd"}, want: `C:\proj\node_modules\.bin\tsc.cmd`},
		{name: "windows empty PATHEXT means the default", goos: "windows", file: "tsc",
			env: []string{`Path=C:\proj\node_modules\.bin`, "PATHEXT="}, want: `C:\proj\node_modules\.bin\tsc.cmd`},
		{name: "windows PATHEXT order decides", goos: "windows", file: "both",
			env: []string{`Path=C:\tools`}, want: `C:\tools\both.exe`},
		{name: "windows PATHEXT order from the env", goos: "windows", file: "both",
			env: []string{`Path=C:\tools`, "PATHEXT=.CMD;.EXE"}, want: `C:\tools\both.cmd`},
		{name: "windows name with a PATHEXT extension", goos: "windows", file: "both.cmd",
			env: []string{`Path=C:\tools`}, want: `C:\tools\both.cmd`},
		{name: "windows extension not in PATHEXT is not run", goos: "windows", file: "script.js",
			env: []string{`Path=C:\tools`}, wantErr: osexec.ErrNotFound},
		{name: "windows directory named like the file is skipped", goos: "windows", file: "dirlike",
			env: []string{`Path=C:\tools;C:\tools2`}, want: `C:\tools2\dirlike.bat`},
		{name: "windows quoted entry", goos: "windows", file: "node",
			env: []string{`Path="C:\Program Files\nodejs";C:\Windows\system32`}, want: `C:\Program Files\nodejs\node.exe`},
		{name: "windows entry with a trailing separator", goos: "windows", file: "cmd",
			env: []string{`Path=C:\Windows\system32\`}, want: `C:\Windows\system32\cmd.exe`},
		{name: "windows relative entry is refused", goos: "windows", file: "tsc",
			env: []string{`Path=node_modules\.bin;C:\proj\node_modules\.bin`}, want: `node_modules\.bin\tsc.cmd`, wantErr: osexec.ErrDot},
		{name: "windows rooted entry without drive is refused", goos: "windows", file: "rel",
			env: []string{`Path=\rooted`}, want: `\rooted\rel.exe`, wantErr: osexec.ErrDot},
		{name: "windows path list is not split on colons", goos: "windows", file: "cmd",
			env: []string{`Path=C:\nowhere:C:\Windows\system32`}, wantErr: osexec.ErrNotFound},
		{name: "windows current directory is not searched", goos: "windows", file: "tsc",
			env: []string{`Path=C:\Windows\system32`}, wantErr: osexec.ErrNotFound},
		{name: "windows absolute name gets PATHEXT", goos: "windows", file: `C:\Windows\system32\cmd`,
			want: `C:\Windows\system32\cmd.exe`},
		{name: "windows name with forward slash", goos: "windows", file: `C:/Windows/system32/cmd.exe`,
			want: `C:/Windows/system32/cmd.exe`},
		{name: "windows relative name against dir", goos: "windows", file: `local\run`, dir: `C:\proj`,
			want: `C:\proj\local\run.bat`},
		{name: "windows UNIX path variable is not Path", goos: "windows", file: "tsc",
			env: []string{`PATHX=C:\proj\node_modules\.bin`}, wantErr: osexec.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := unixFS
			if tt.goos == "windows" {
				fsys = winFS
			}
			got, err := lookPath(tt.file, tt.dir, tt.env, tt.goos, fsys.isExec(tt.goos))
			if got != tt.want || !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Errorf("lookPath(%q, %q, %q, %q) = %q, %v; want %q, %v", tt.file, tt.dir, tt.env, tt.goos, got, err, tt.want, tt.wantErr)
			}
			if err != nil {
				var e *osexec.Error
				if !errors.As(err, &e) || e.Name != tt.file {
					t.Errorf("lookPath(%q) error %#v is not an *exec.Error naming the file", tt.file, err)
				}
			}
		})
	}
}

func TestLookPathListSplitting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    string
		win  bool
		want []string
	}{
		{"", false, nil},
		{"/a:/b", false, []string{"/a", "/b"}},
		{"/a::/b:", false, []string{"/a", "", "/b", ""}},
		{`C:\a;C:\b`, true, []string{`C:\a`, `C:\b`}},
		{`"C:\a;b";C:\c`, true, []string{`C:\a;b`, `C:\c`}},
		{`C:\a;;`, true, []string{`C:\a`, "", ""}},
	}
	for _, tt := range tests {
		got := lpSplitList(tt.v, tt.win)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("lpSplitList(%q, %v) = %q, want %q", tt.v, tt.win, got, tt.want)
		}
	}
}

// BenchmarkLookPath resolves a bare name found in the third PATH entry,
// the node_modules/.bin case for a tool installed at the workspace root.
func BenchmarkLookPath(b *testing.B) {
	dir := b.TempDir()
	bins := []string{dir + "/a", dir + "/b", dir + "/c"}
	for _, d := range bins {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	name := "tool"
	if runtime.GOOS == "windows" {
		name = "tool.cmd"
	}
	if err := os.WriteFile(bins[2]+"/"+name, []byte("x"), 0o755); err != nil {
		b.Fatal(err)
	}
	sep := ":"
	if runtime.GOOS == "windows" {
		sep = ";"
	}
	env := []string{"HOME=/h", "PATH=" + strings.Join(bins, sep), "TERM=xterm"}
	for b.Loop() {
		if _, err := LookPath("tool", env); err != nil {
			b.Fatal(err)
		}
	}
}
