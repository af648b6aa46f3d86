package exec

import (
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEssentialEnvIsTheSpecList(t *testing.T) {
	t.Parallel()
	want := strings.Fields(`PATH HOME SHELL USER LOGNAME TMPDIR TEMP TMP LANG LC_ALL LC_CTYPE TERM COLORTERM
		FORCE_COLOR NO_COLOR CI NODE_OPTIONS
		SYSTEMROOT APPDATA LOCALAPPDATA PROGRAMDATA PROGRAMFILES PROGRAMFILES(X86) COMSPEC PATHEXT
		SYSTEMDRIVE WINDIR USERPROFILE HOMEDRIVE HOMEPATH NUMBER_OF_PROCESSORS PROCESSOR_ARCHITECTURE`)
	if diff := cmp.Diff(want, EssentialEnv); diff != "" {
		t.Errorf("EssentialEnv mismatch (-want +got):\n%s", diff)
	}
	if got := slices.Sorted(maps.Keys(essentials)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("the builder's essentials = %q, want %q", got, want)
	}
}

// envLinuxSource is a developer's shell on Linux: essentials, secrets and noise.
var envLinuxSource = []string{
	"AWS_SECRET_ACCESS_KEY=aws-secret",
	"CI=true",
	"COLORTERM=truecolor",
	"DISPLAY=:0",
	"FORCE_COLOR=1",
	"GITHUB_TOKEN=ghp_secret",
	"HOME=/home/ana",
	"LANG=en_US.UTF-8",
	"LC_ALL=C.UTF-8",
	"LC_CTYPE=C.UTF-8",
	"LOGNAME=ana",
	"NODE_OPTIONS=--max-old-space-size=4096",
	"NO_COLOR=",
	"NPM_TOKEN=npm_secret",
	"OLDPWD=/tmp",
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"PWD=/home/ana/repo",
	"SHELL=/bin/bash",
	"SSH_AUTH_SOCK=/run/user/1000/ssh",
	"TEMP=/tmp/t",
	"TERM=xterm-256color",
	"TMP=/tmp/t",
	"TMPDIR=/tmp",
	"USER=ana",
}

func TestBuildIsolatedEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts EnvOptions
		want []string
	}{
		{
			name: "essentials passed, secrets and noise stripped",
			opts: EnvOptions{Source: envLinuxSource},
			want: []string{
				"CI=true",
				"COLORTERM=truecolor",
				"FORCE_COLOR=1",
				"HOME=/home/ana",
				"LANG=en_US.UTF-8",
				"LC_ALL=C.UTF-8",
				"LC_CTYPE=C.UTF-8",
				"LOGNAME=ana",
				"NODE_OPTIONS=--max-old-space-size=4096",
				"NO_COLOR=",
				"PATH=/usr/local/bin:/usr/bin:/bin",
				"SHELL=/bin/bash",
				"TEMP=/tmp/t",
				"TERM=xterm-256color",
				"TMP=/tmp/t",
				"TMPDIR=/tmp",
				"USER=ana",
			},
		},
		{
			name: "every essential, Windows ones too, passed on linux",
			opts: EnvOptions{Source: func() []string {
				var s []string
				for i, n := range slices.Backward(EssentialEnv) {
					s = append(s, n+"=v"+strings.Repeat("x", i))
				}
				return append(s, "NPM_TOKEN=secret")
			}()},
			want: func() []string {
				var s []string
				for i, n := range EssentialEnv {
					s = append(s, n+"=v"+strings.Repeat("x", i))
				}
				slices.SortFunc(s, func(a, b string) int {
					ka, _, _ := strings.Cut(a, "=")
					kb, _, _ := strings.Cut(b, "=")
					return strings.Compare(ka, kb)
				})
				return s
			}(),
		},
		{
			name: "essentials omitted when absent",
			opts: EnvOptions{Source: []string{"AWS_SECRET_ACCESS_KEY=a", "GITHUB_TOKEN=g", "NPM_TOKEN=n", "HOME=/h"}},
			want: []string{"HOME=/h"},
		},
		{
			name: "nothing in source, nothing declared",
			opts: EnvOptions{},
			want: []string{},
		},
		{
			name: "only secrets in source",
			opts: EnvOptions{Source: []string{"AWS_SECRET_ACCESS_KEY=a", "GITHUB_TOKEN=g", "NPM_TOKEN=n"}},
			want: []string{},
		},
		{
			name: "passThrough forwarded, missing absent, present-empty passed as empty",
			opts: EnvOptions{
				Source:      append(slices.Clone(envLinuxSource), "API_URL=https://api", "EMPTY="),
				PassThrough: []string{"API_URL", "MISSING", "EMPTY", "GITHUB_TOKEN"},
			},
			want: []string{
				"API_URL=https://api",
				"CI=true",
				"COLORTERM=truecolor",
				"EMPTY=",
				"FORCE_COLOR=1",
				"GITHUB_TOKEN=ghp_secret",
				"HOME=/home/ana",
				"LANG=en_US.UTF-8",
				"LC_ALL=C.UTF-8",
				"LC_CTYPE=C.UTF-8",
				"LOGNAME=ana",
				"NODE_OPTIONS=--max-old-space-size=4096",
				"NO_COLOR=",
				"PATH=/usr/local/bin:/usr/bin:/bin",
				"SHELL=/bin/bash",
				"TEMP=/tmp/t",
				"TERM=xterm-256color",
				"TMP=/tmp/t",
				"TMPDIR=/tmp",
				"USER=ana",
			},
		},
		{
			name: "passThrough naming an essential or repeated gives one entry",
			opts: EnvOptions{
				Source:      []string{"HOME=/h", "A=1"},
				PassThrough: []string{"HOME", "A", "A", "", "HOME"},
			},
			want: []string{"A=1", "HOME=/h"},
		},
		{
			name: "define applied",
			opts: EnvOptions{
				Source: []string{"HOME=/h"},
				Define: map[string]string{"NODE_ENV": "production", "EMPTY": "", "EQ": "a=b"},
			},
			want: []string{"EMPTY=", "EQ=a=b", "HOME=/h", "NODE_ENV=production"},
		},
		{
			name: "define overrides passThrough",
			opts: EnvOptions{
				Source:      []string{"API_URL=https://prod", "HOME=/h"},
				PassThrough: []string{"API_URL"},
				Define:      map[string]string{"API_URL": "http://localhost"},
			},
			want: []string{"API_URL=http://localhost", "HOME=/h"},
		},
		{
			name: "define of a passThrough name missing from source",
			opts: EnvOptions{
				PassThrough: []string{"API_URL"},
				Define:      map[string]string{"API_URL": "http://localhost"},
			},
			want: []string{"API_URL=http://localhost"},
		},
		{
			name: "define overrides essentials, PATH too",
			opts: EnvOptions{
				Source: []string{"HOME=/h", "PATH=/bin", "CI=true"},
				Define: map[string]string{"HOME": "/tmp/home", "PATH": "/opt/bin", "CI": ""},
			},
			want: []string{"CI=", "HOME=/tmp/home", "PATH=/opt/bin"},
		},
		{
			name: "bins prepended in order",
			opts: EnvOptions{
				Source:   []string{"PATH=/usr/bin:/bin"},
				BinPaths: []string{"/w/packages/web/node_modules/.bin", "/w/node_modules/.bin"},
			},
			want: []string{"PATH=/w/packages/web/node_modules/.bin:/w/node_modules/.bin:/usr/bin:/bin"},
		},
		{
			name: "bins prepended after define",
			opts: EnvOptions{
				Source:   []string{"PATH=/usr/bin"},
				Define:   map[string]string{"PATH": "/opt/bin"},
				BinPaths: []string{"/p/.bin", "/r/.bin"},
			},
			want: []string{"PATH=/p/.bin:/r/.bin:/opt/bin"},
		},
		{
			name: "one bin",
			opts: EnvOptions{
				Source:   []string{"PATH=/usr/bin", "HOME=/h"},
				BinPaths: []string{"/r/.bin"},
			},
			want: []string{"HOME=/h", "PATH=/r/.bin:/usr/bin"},
		},
		{
			name: "no PATH at all: PATH is the bins",
			opts: EnvOptions{
				Source:   []string{"HOME=/h"},
				BinPaths: []string{"/p/.bin", "/r/.bin"},
			},
			want: []string{"HOME=/h", "PATH=/p/.bin:/r/.bin"},
		},
		{
			name: "empty PATH: PATH is the bins, no empty element",
			opts: EnvOptions{
				Source:   []string{"PATH="},
				BinPaths: []string{"/r/.bin"},
			},
			want: []string{"PATH=/r/.bin"},
		},
		{
			name: "empty bins skipped",
			opts: EnvOptions{
				Source:   []string{"PATH=/bin"},
				BinPaths: []string{"", "/r/.bin", ""},
			},
			want: []string{"PATH=/r/.bin:/bin"},
		},
		{
			name: "only empty bins: PATH untouched",
			opts: EnvOptions{
				Source:   []string{"PATH=/bin"},
				BinPaths: []string{""},
			},
			want: []string{"PATH=/bin"},
		},
		{
			name: "only empty bins and no PATH: no PATH",
			opts: EnvOptions{
				Source:   []string{"HOME=/h"},
				BinPaths: []string{"", ""},
			},
			want: []string{"HOME=/h"},
		},
		{
			name: "last occurrence in source wins",
			opts: EnvOptions{
				Source:      []string{"HOME=/first", "A=1", "HOME=/second", "A=2", "HOME=/third"},
				PassThrough: []string{"A"},
			},
			want: []string{"A=2", "HOME=/third"},
		},
		{
			name: "entries without '=' or name ignored",
			opts: EnvOptions{
				Source:      []string{"=C:=C:\\repo", "=", "HOME", "=HOME=/x", "", "HOME=/h", "=ExitCode=00000000"},
				PassThrough: []string{"=C:", "=ExitCode", ""},
			},
			want: []string{"HOME=/h"},
		},
		{
			name: "names are case-sensitive on linux",
			opts: EnvOptions{
				Source:      []string{"Path=/x", "home=/h", "FOO=1", "Bar=2"},
				PassThrough: []string{"foo", "Bar"},
				BinPaths:    []string{"/r/.bin"},
			},
			want: []string{"Bar=2", "PATH=/r/.bin"},
		},
		{
			name: "lower-case define is another variable on linux",
			opts: EnvOptions{
				Source: []string{"PATH=/bin"},
				Define: map[string]string{"path": "/x"},
			},
			want: []string{"PATH=/bin", "path=/x"},
		},
		{
			name: "sorted by name, not by whole entry",
			opts: EnvOptions{
				Source:      []string{"PROGRAMFILES(X86)=b", "PROGRAMFILES=a", "A_B=1", "A=2", "AB=3"},
				PassThrough: []string{"A_B", "A", "AB"},
			},
			want: []string{"A=2", "AB=3", "A_B=1", "PROGRAMFILES=a", "PROGRAMFILES(X86)=b"},
		},
		{
			name: "many passThrough names",
			opts: EnvOptions{
				Source: []string{"P00=0", "P03=3", "P07=7", "P11=11", "P14=14", "X=x", "P15=15", "P03=33"},
				PassThrough: []string{"P00", "P01", "P02", "P03", "P04", "P05", "P06", "P07", "P08", "P09",
					"P10", "P11", "P12", "P13", "P14", "HOME", "P03"},
				Define: map[string]string{"P11": "eleven", "P12": "twelve"},
			},
			want: []string{"P00=0", "P03=33", "P07=7", "P11=eleven", "P12=twelve", "P14=14"},
		},
		{
			name: "values never altered",
			opts: EnvOptions{
				Source:      []string{"A= spaced =value= ", "NODE_OPTIONS=--x=1 --y", "B=line1\nline2"},
				PassThrough: []string{"A", "B"},
			},
			want: []string{"A= spaced =value= ", "B=line1\nline2", "NODE_OPTIONS=--x=1 --y"},
		},
		{
			name: "non-linux unix uses the same rules",
			opts: EnvOptions{
				GOOS:     "darwin",
				Source:   []string{"Path=/x", "PATH=/bin"},
				BinPaths: []string{"/r"},
			},
			want: []string{"PATH=/r:/bin"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			if opts.GOOS == "" {
				opts.GOOS = "linux"
			}
			got := buildEnv(opts).sorted()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("buildEnv().sorted() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// envWindowsSource is PowerShell's environment on Windows 11: the system
// spells most names in mixed case.
var envWindowsSource = []string{
	"=C:=C:\\Users\\ana\\repo",
	"ALLUSERSPROFILE=C:\\ProgramData",
	"APPDATA=C:\\Users\\ana\\AppData\\Roaming",
	"AWS_SECRET_ACCESS_KEY=aws-secret",
	"CommonProgramFiles=C:\\Program Files\\Common Files",
	"COMPUTERNAME=DESK",
	"ComSpec=C:\\WINDOWS\\system32\\cmd.exe",
	"GITHUB_TOKEN=ghp_secret",
	"HOMEDRIVE=C:",
	"HOMEPATH=\\Users\\ana",
	"LOCALAPPDATA=C:\\Users\\ana\\AppData\\Local",
	"NPM_TOKEN=npm_secret",
	"NUMBER_OF_PROCESSORS=8",
	"OS=Windows_NT",
	"Path=C:\\WINDOWS\\system32;C:\\WINDOWS;C:\\Program Files\\nodejs\\",
	"PATHEXT=.COM;.EXE;.BAT;.CMD;.VBS;.JS;.WSH;.MSC;.PS1",
	"PROCESSOR_ARCHITECTURE=AMD64",
	"ProgramData=C:\\ProgramData",
	"ProgramFiles=C:\\Program Files",
	"ProgramFiles(x86)=C:\\Program Files (x86)",
	"PSModulePath=C:\\Program Files\\WindowsPowerShell\\Modules",
	"SystemDrive=C:",
	"SystemRoot=C:\\WINDOWS",
	"TEMP=C:\\Users\\ana\\AppData\\Local\\Temp",
	"TMP=C:\\Users\\ana\\AppData\\Local\\Temp",
	"USERNAME=ana",
	"USERPROFILE=C:\\Users\\ana",
	"windir=C:\\WINDOWS",
}

// envWindowsEssentials is what BuildIsolatedEnv keeps of envWindowsSource,
// sorted case-insensitively.
var envWindowsEssentials = []string{
	"APPDATA=C:\\Users\\ana\\AppData\\Roaming",
	"ComSpec=C:\\WINDOWS\\system32\\cmd.exe",
	"HOMEDRIVE=C:",
	"HOMEPATH=\\Users\\ana",
	"LOCALAPPDATA=C:\\Users\\ana\\AppData\\Local",
	"NUMBER_OF_PROCESSORS=8",
	"Path=C:\\WINDOWS\\system32;C:\\WINDOWS;C:\\Program Files\\nodejs\\",
	"PATHEXT=.COM;.EXE;.BAT;.CMD;.VBS;.JS;.WSH;.MSC;.PS1",
	"PROCESSOR_ARCHITECTURE=AMD64",
	"ProgramData=C:\\ProgramData",
	"ProgramFiles=C:\\Program Files",
	"ProgramFiles(x86)=C:\\Program Files (x86)",
	"SystemDrive=C:",
	"SystemRoot=C:\\WINDOWS",
	"TEMP=C:\\Users\\ana\\AppData\\Local\\Temp",
	"TMP=C:\\Users\\ana\\AppData\\Local\\Temp",
	"USERPROFILE=C:\\Users\\ana",
	"windir=C:\\WINDOWS",
}

// envReplaceEntry returns env with the entry named name (exact spelling)
// replaced by kv, or kv inserted at index at when missing.
func envReplaceEntry(env []string, name, kv string) []string {
	env = slices.Clone(env)
	for i, e := range env {
		if strings.HasPrefix(e, name+"=") {
			env[i] = kv
			return env
		}
	}
	panic("envReplaceEntry: no " + name)
}

func TestBuildIsolatedEnvWindows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts EnvOptions
		want []string
	}{
		{
			name: "mixed-case essentials found, spelling kept, secrets stripped",
			opts: EnvOptions{Source: envWindowsSource},
			want: envWindowsEssentials,
		},
		{
			name: "define of PATH replaces source Path",
			opts: EnvOptions{
				Source: envWindowsSource,
				Define: map[string]string{"PATH": "D:\\tools"},
			},
			want: func() []string {
				w := envReplaceEntry(envWindowsEssentials, "Path", "PATH=D:\\tools")
				return w
			}(),
		},
		{
			name: "bins prepended to Path with ';', spelling kept",
			opts: EnvOptions{
				Source:   envWindowsSource,
				BinPaths: []string{"C:\\w\\packages\\web\\node_modules\\.bin", "C:\\w\\node_modules\\.bin"},
			},
			want: envReplaceEntry(envWindowsEssentials, "Path",
				"Path=C:\\w\\packages\\web\\node_modules\\.bin;C:\\w\\node_modules\\.bin;"+
					"C:\\WINDOWS\\system32;C:\\WINDOWS;C:\\Program Files\\nodejs\\"),
		},
		{
			name: "bins prepended to a lower-case define of path",
			opts: EnvOptions{
				Source:   []string{"Path=C:\\WINDOWS"},
				Define:   map[string]string{"path": "D:\\tools"},
				BinPaths: []string{"C:\\w\\.bin"},
			},
			want: []string{"path=C:\\w\\.bin;D:\\tools"},
		},
		{
			name: "bins with no PATH at all",
			opts: EnvOptions{
				Source:   []string{"SystemRoot=C:\\WINDOWS"},
				BinPaths: []string{"C:\\w\\.bin", "C:\\r\\.bin"},
			},
			want: []string{"PATH=C:\\w\\.bin;C:\\r\\.bin", "SystemRoot=C:\\WINDOWS"},
		},
		{
			name: "passThrough foo finds FOO",
			opts: EnvOptions{
				Source:      []string{"FOO=1", "Api_Url=https://api"},
				PassThrough: []string{"foo", "API_URL"},
			},
			want: []string{"Api_Url=https://api", "FOO=1"},
		},
		{
			name: "passThrough spellings of one name give one entry",
			opts: EnvOptions{
				Source:      []string{"FOO=1", "path=C:\\x"},
				PassThrough: []string{"foo", "Foo", "FOO", "Path"},
			},
			want: []string{"FOO=1", "path=C:\\x"},
		},
		{
			name: "source with two spellings of PATH: the last wins",
			opts: EnvOptions{
				Source:   []string{"PATH=C:\\first", "windir=C:\\W", "Path=C:\\second"},
				BinPaths: []string{"C:\\w\\.bin"},
			},
			want: []string{"Path=C:\\w\\.bin;C:\\second", "windir=C:\\W"},
		},
		{
			name: "define spelling replaces source spelling",
			opts: EnvOptions{
				Source:      []string{"windir=C:\\WINDOWS", "Foo=1", "ComSpec=C:\\cmd.exe"},
				PassThrough: []string{"FOO"},
				Define:      map[string]string{"WINDIR": "D:\\W", "foo": "2"},
			},
			want: []string{"ComSpec=C:\\cmd.exe", "foo=2", "WINDIR=D:\\W"},
		},
		{
			name: "two define spellings: the one sorting last byte-wise wins",
			opts: EnvOptions{
				Define: map[string]string{"Foo": "1", "FOO": "2", "fOO": "3", "Path": "a", "PATH": "b"},
			},
			want: []string{"fOO=3", "Path=a"},
		},
		{
			name: "sorted case-insensitively, as upper case",
			opts: EnvOptions{
				Source: []string{"zed=1", "Alpha=2", "PATH_X=3", "PATHEXT=.EXE", "Path=C:\\", "beta=4",
					"NODEX=5", "NODE_OPTIONS=6"},
				PassThrough: []string{"ZED", "ALPHA", "path_x", "BETA", "nodex"},
			},
			want: []string{"Alpha=2", "beta=4", "NODEX=5", "NODE_OPTIONS=6", "Path=C:\\", "PATHEXT=.EXE", "PATH_X=3", "zed=1"},
		},
		{
			name: "drive entries ignored",
			opts: EnvOptions{
				Source:      []string{"=C:=C:\\repo", "=D:=D:\\", "=ExitCode=00000001", "SystemRoot=C:\\WINDOWS"},
				PassThrough: []string{"=C:", "=D:", "=ExitCode"},
			},
			want: []string{"SystemRoot=C:\\WINDOWS"},
		},
		{
			name: "non-ASCII names compared upper-cased",
			opts: EnvOptions{
				Source:      []string{"été=summer", "Straße=street"},
				PassThrough: []string{"ÉTÉ", "STRASSE"},
			},
			want: []string{"été=summer"},
		},
		{
			name: "non-ASCII name longer in bytes than its upper-case form",
			opts: EnvOptions{
				Source:      []string{strings.Repeat("ᲀ", 12) + "=1"},
				PassThrough: []string{strings.Repeat("В", 12)},
			},
			want: []string{strings.Repeat("ᲀ", 12) + "=1"},
		},
		{
			name: "non-ASCII letters never match ASCII ones",
			opts: EnvOptions{
				Source:      []string{"Cı=1", "ſHELL=/bin/sh", "paTHEXT=.EXE", "ᲀAR=2"},
				PassThrough: []string{"CI", "ÉTÉ", "ВAR", "LIſT"},
			},
			want: []string{"paTHEXT=.EXE", "ᲀAR=2"},
		},
		{
			name: "many passThrough names, case-insensitive",
			opts: EnvOptions{
				Source: []string{"p00=0", "P03=3", "p07=7", "P11=11", "Path=C:\\"},
				PassThrough: []string{"P00", "P01", "P02", "P03", "P04", "P05", "P06", "P07", "P08", "P09",
					"P10", "p11", "P12", "P13", "p03", "path"},
				Define: map[string]string{"p12": "twelve"},
			},
			want: []string{"p00=0", "P03=3", "p07=7", "P11=11", "p12=twelve", "Path=C:\\"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.GOOS = "windows"
			got := buildEnv(opts).sorted()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("buildEnv().sorted() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBuildIsolatedEnvWindowsEssentialsFromAnyCase guards against the
// Windows bugs other task runners shipped: each essential must be found
// whatever its spelling in the parent.
func TestBuildIsolatedEnvWindowsEssentialsFromAnyCase(t *testing.T) {
	t.Parallel()
	spell := map[string]func(string) string{
		"upper": strings.ToUpper,
		"lower": strings.ToLower,
		"title": func(s string) string { return s[:1] + strings.ToLower(s[1:]) },
	}
	for how, f := range spell {
		for _, name := range EssentialEnv {
			t.Run(how+"/"+name, func(t *testing.T) {
				t.Parallel()
				kv := f(name) + "=value of " + name
				got := buildEnv(EnvOptions{GOOS: "windows", Source: []string{"SECRET=1", kv}}).sorted()
				if diff := cmp.Diff([]string{kv}, got); diff != "" {
					t.Errorf("buildEnv().sorted() mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestBuildIsolatedEnvDefaultGOOS(t *testing.T) {
	t.Parallel()
	opts := EnvOptions{
		Source:      []string{"Path=p", "FOO=1", "PATH=q", "HOME=/h"},
		PassThrough: []string{"foo"},
		BinPaths:    []string{"b"},
	}
	got := buildEnv(opts).sorted()
	opts.GOOS = runtime.GOOS
	want := buildEnv(opts).sorted()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("buildEnv(GOOS %q).sorted() mismatch with GOOS \"\" (-want +got):\n%s", runtime.GOOS, diff)
	}
}

func TestBuildIsolatedEnvLeavesInputsAlone(t *testing.T) {
	t.Parallel()
	opts := EnvOptions{
		Source:      []string{"Path=p", "FOO=1", "HOME=/h"},
		PassThrough: []string{"foo", "HOME"},
		Define:      map[string]string{"PATH": "x", "A": "1"},
		BinPaths:    []string{"b", ""},
		GOOS:        "windows",
	}
	want := EnvOptions{
		Source:      slices.Clone(opts.Source),
		PassThrough: slices.Clone(opts.PassThrough),
		Define:      map[string]string{"PATH": "x", "A": "1"},
		BinPaths:    slices.Clone(opts.BinPaths),
		GOOS:        "windows",
	}
	buildEnv(opts).sorted()
	TaskEnviron(opts, TaskVars{Workspace: "w", ID: "a#b"})
	if diff := cmp.Diff(want, opts); diff != "" {
		t.Errorf("EnvOptions changed by BuildIsolatedEnv (-want +got):\n%s", diff)
	}
}

func TestTaskEnviron(t *testing.T) {
	t.Parallel()
	vars := TaskVars{
		Workspace:      "/w",
		ID:             "@acme/web#build",
		Event:          "build",
		Script:         "vite build --mode=production",
		PackageName:    "@acme/web",
		PackageVersion: "1.2.3",
		PackageJSON:    "/w/packages/web/package.json",
		Dir:            "/w/packages/web",
	}
	all := []string{
		"PWD=/w/packages/web",
		"VX_RUN_TASK=@acme/web#build",
		"VX_RUN_WORKSPACE=/w",
		"npm_lifecycle_event=build",
		"npm_lifecycle_script=vite build --mode=production",
		"npm_package_json=/w/packages/web/package.json",
		"npm_package_name=@acme/web",
		"npm_package_version=1.2.3",
	}
	tests := []struct {
		name string
		opts EnvOptions
		vars TaskVars
		want []string
	}{
		{
			name: "all set over the isolated env",
			opts: EnvOptions{Source: []string{"HOME=/h", "PATH=/bin", "GITHUB_TOKEN=x"}, BinPaths: []string{"/w/.bin"}},
			vars: vars,
			want: append([]string{"HOME=/h", "PATH=/w/.bin:/bin"}, all...),
		},
		{
			name: "task vars replace passThrough and defines",
			opts: EnvOptions{
				Source: []string{"VX_RUN_WORKSPACE=/outer", "npm_lifecycle_event=outer", "npm_package_name=outer",
					"npm_package_version=0.0.1", "PWD=/outer"},
				PassThrough: []string{"VX_RUN_WORKSPACE", "npm_lifecycle_event", "npm_package_name", "npm_package_version", "PWD"},
				Define:      map[string]string{"VX_RUN_TASK": "x#y", "npm_package_json": "/x"},
			},
			vars: vars,
			want: all,
		},
		{
			name: "empty package name and version: absent, even if passed through or defined",
			opts: EnvOptions{
				Source:      []string{"npm_package_name=outer", "npm_package_version=0.0.1"},
				PassThrough: []string{"npm_package_name"},
				Define:      map[string]string{"npm_package_version": "9"},
			},
			vars: TaskVars{Workspace: "/w", ID: "web#lint", Event: "lint", Script: "eslint .", PackageJSON: "/w/web/package.json"},
			want: []string{
				"VX_RUN_TASK=web#lint",
				"VX_RUN_WORKSPACE=/w",
				"npm_lifecycle_event=lint",
				"npm_lifecycle_script=eslint .",
				"npm_package_json=/w/web/package.json",
			},
		},
		{
			name: "zero TaskVars: the always-set ones are empty",
			vars: TaskVars{},
			want: []string{
				"VX_RUN_TASK=",
				"VX_RUN_WORKSPACE=",
				"npm_lifecycle_event=",
				"npm_lifecycle_script=",
				"npm_package_json=",
			},
		},
		{
			name: "other spellings are other variables on linux",
			opts: EnvOptions{Define: map[string]string{"NPM_LIFECYCLE_EVENT": "x", "vx_run_task": "y"}},
			vars: vars,
			want: append([]string{"NPM_LIFECYCLE_EVENT=x"}, append(slices.Clone(all), "vx_run_task=y")...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			opts.GOOS = "linux"
			got := TaskEnviron(opts, tt.vars)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TaskEnviron() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTaskEnvironWindows(t *testing.T) {
	t.Parallel()
	opts := EnvOptions{
		GOOS: "windows",
		Source: []string{"Path=C:\\WINDOWS", "NPM_LIFECYCLE_EVENT=outer", "Npm_Package_Name=outer",
			"npm_package_version=1"},
		PassThrough: []string{"npm_lifecycle_event", "NPM_PACKAGE_NAME", "NPM_PACKAGE_VERSION"},
		Define:      map[string]string{"vx_run_task": "x#y", "Vx_Run_Workspace": "C:\\outer"},
		BinPaths:    []string{"C:\\w\\.bin"},
	}
	vars := TaskVars{Workspace: "C:\\w", ID: "web#build", Event: "build", Script: "tsc", PackageName: "web",
		PackageJSON: "C:\\w\\web\\package.json"}
	want := []string{
		"npm_lifecycle_event=build",
		"npm_lifecycle_script=tsc",
		"npm_package_json=C:\\w\\web\\package.json",
		"npm_package_name=web",
		"Path=C:\\w\\.bin;C:\\WINDOWS",
		"VX_RUN_TASK=web#build",
		"VX_RUN_WORKSPACE=C:\\w",
	}
	got := TaskEnviron(opts, vars)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TaskEnviron() mismatch (-want +got):\n%s", diff)
	}
}

func TestLookupEnv(t *testing.T) {
	t.Parallel()
	env := []string{"=C:=C:\\x", "Path=C:\\a", "HOME=/h", "noequals", "PATH=/b", "A=1=2", "E=", "HOME=/h2"}
	tests := []struct {
		name, goos string
		want       string
		wantOK     bool
	}{
		{"HOME", "linux", "/h2", true},
		{"PATH", "linux", "/b", true},
		{"Path", "linux", "C:\\a", true},
		{"path", "linux", "", false},
		{"path", "windows", "/b", true},
		{"home", "windows", "/h2", true},
		{"A", "linux", "1=2", true},
		{"E", "linux", "", true},
		{"MISSING", "linux", "", false},
		{"noequals", "linux", "", false},
		{"", "linux", "", false},
		{"", "windows", "", false},
		{"=C:", "windows", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.goos+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := LookupEnv(env, tt.name, tt.goos)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("LookupEnv(env, %q, %q) = %q, %v, want %q, %v", tt.name, tt.goos, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestEnvNameKeyOrder checks the Windows keys against the documented rule:
// equal for one variable, and in CreateProcess's order otherwise.
func TestEnvNameKeyOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int // sign
	}{
		{"Path", "PATH", 0},
		{"path", "PATH", 0},
		{"windir", "WINDIR", 0},
		{"PATH", "PATHEXT", -1},
		{"PATHEXT", "PATH_X", -1}, // 'E' < '_' once upper-cased
		{"a", "Zed", -1},
		{"été", "ÉTÉ", 0},
		{"ı", "I", 1},
		{"ſ", "S", 1},
		{"ᲀ", "В", 0},
		{"a\xff", "a\xfe", 1},
		{"\xc3", "Ã", 1},
		{"", "", 0},
		{"", "A", -1},
	}
	for _, tt := range tests {
		ka, kb := EnvNameKey(tt.a, "windows"), EnvNameKey(tt.b, "windows")
		if got := strings.Compare(ka, kb); got != tt.want {
			t.Errorf("keys of %q and %q (%q, %q) compare %d, want %d", tt.a, tt.b, ka, kb, got, tt.want)
		}
	}
}

// TestCheckBinPath: a bin directory goes on PATH only when it is absolute
// and holds no list separator; the env builder leaves out any other, so
// no relative or current-directory entry reaches a task's PATH.
func TestCheckBinPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir  string
		goos string
		ok   bool
	}{
		{"/home/me/ws/node_modules/.bin", "linux", true},
		{"/home/me/co:lon/node_modules/.bin", "linux", false},
		{"/home/me/co;lon/node_modules/.bin", "linux", true},
		{"node_modules/.bin", "linux", false},
		{".", "linux", false},
		{`C:\ws\node_modules\.bin`, "windows", true},
		{`C:/ws/node_modules/.bin`, "windows", true},
		{`\\server\share\ws\node_modules\.bin`, "windows", true},
		{`C:\co;lon\node_modules\.bin`, "windows", false},
		{`C:\co:lon\node_modules\.bin`, "windows", true}, // ':' is no separator there (nor valid, but not ours to judge)
		{`\ws\node_modules\.bin`, "windows", false},      // relative to the current drive
		{`C:ws\node_modules\.bin`, "windows", false},     // relative to C:'s current directory
	}
	for _, tt := range tests {
		err := CheckBinPath(tt.dir, tt.goos)
		if (err == nil) != tt.ok {
			t.Errorf("CheckBinPath(%q, %s) = %v, want ok %v", tt.dir, tt.goos, err, tt.ok)
		}
		env := buildEnv(EnvOptions{Source: []string{"PATH=/usr/bin"}, BinPaths: []string{tt.dir}, GOOS: tt.goos}).sorted()
		path, _ := LookupEnv(env, "PATH", tt.goos)
		sep := ":"
		if tt.goos == "windows" {
			sep = ";"
		}
		want := "/usr/bin"
		if tt.ok {
			want = tt.dir + sep + "/usr/bin"
		}
		if path != want {
			t.Errorf("buildEnv with bin %q (%s): PATH = %q, want %q", tt.dir, tt.goos, path, want)
		}
	}
}
