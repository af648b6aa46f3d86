package exec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShellCommandPOSIX(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		args   []string
		want   string // the -c argument
	}{
		{"no args", "tsc -b && echo done", nil, "tsc -b && echo done"},
		{"plain args stay bare", "jest", []string{"--watch", "a=b", "src/x.test.js", "@scope/pkg", "50%", "-k:v,w"}, "jest --watch a=b src/x.test.js @scope/pkg 50% -k:v,w"},
		{"space", "echo", []string{"a b"}, "echo 'a b'"},
		{"single quote", "echo", []string{"it's"}, `echo 'it'\''s'`},
		{"only quotes", "echo", []string{"''"}, `echo ''\'''\'''`},
		{"empty arg", "echo", []string{""}, "echo ''"},
		{"expansions are not run", "echo", []string{"$HOME", "`id`", "$(id)", "*", "~"}, "echo '$HOME' '`id`' '$(id)' '*' '~'"},
		{"operators are not run", "echo", []string{"a;b", "a&b", "a|b", "a>b", "(x)", "#c"}, "echo 'a;b' 'a&b' 'a|b' 'a>b' '(x)' '#c'"},
		{"double quote and backslash", "echo", []string{`say "hi"`, `a\b`}, `echo 'say "hi"' 'a\b'`},
		{"newline and tab", "echo", []string{"a\nb", "a\tb"}, "echo 'a\nb' 'a\tb'"},
		{"non-ASCII is quoted", "echo", []string{"héllo"}, "echo 'héllo'"},
	}
	for _, goos := range []string{"linux", "darwin", "freebsd"} {
		for _, tt := range tests {
			t.Run(goos+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				shell, argv := shellCommand(tt.script, tt.args, goos, shIsBatch(shFirstWord(tt.script)))
				if shell != "sh" {
					t.Errorf("shellCommand() shell = %q, want %q", shell, "sh")
				}
				if diff := cmp.Diff([]string{"sh", "-c", tt.want}, argv); diff != "" {
					t.Errorf("shellCommand() mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestShellCommandWindows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		script string
		args   []string
		want   string // the argument after /c, verbatim
	}{
		{"no args", "tsc -b && echo done", nil, `"tsc -b && echo done"`},
		{"plain args stay bare", "jest", []string{"--watch", "a=b", `src\x.test.js`}, `"jest --watch a=b src\x.test.js"`},
		{"space", "echo", []string{"a b"}, `"echo ^"a^ b^""`},
		{"empty arg", "echo", []string{""}, `"echo ^"^""`},
		{"embedded quote", "echo", []string{`say "hi"`}, `"echo ^"say^ \^"hi\^"^""`},
		{"quote without space", "echo", []string{`a"b`}, `"echo ^"a\^"b^""`},
		{"backslashes before a quote", "echo", []string{`a\"b`}, `"echo ^"a\\\^"b^""`},
		{"trailing backslash in quotes is doubled", "echo", []string{`C:\a b\`}, `"echo ^"C:\a^ b\\^""`},
		{"backslashes elsewhere are kept", "echo", []string{`C:\a\b`}, `"echo C:\a\b"`},
		{"metacharacters are escaped", "echo", []string{"a&b", "a|b", "a<b>c", "(x)", "x^y", "hi!"}, `"echo a^&b a^|b a^<b^>c ^(x^) x^^y hi^!"`},
		{"percent cannot form a variable", "echo", []string{"%PATH%"}, `"echo %%cd:~,%PATH%%cd:~,%"`},
		{"percents", "echo", []string{"100%", "%%", "%~dp0", "a b%c"}, `"echo 100%%cd:~,% %%cd:~,%%%cd:~,% %%cd:~,%~dp0 ^"a^ b%%cd:~,%c^""`},
		{"batch file by name escapes twice", `node_modules\.bin\tsc.cmd`, []string{"a&b", "c d"}, `"node_modules\.bin\tsc.cmd a^^^&b ^^^"c^^^ d^^^""`},
		{"quoted batch file path", `"C:\my tools\x.BAT" --v`, []string{"%x%"}, `""C:\my tools\x.BAT" --v %%cd:~,%x%%cd:~,%"`},
		{"script with a quoted program keeps its quotes", `"C:\Program Files\nodejs\node.exe" x.js`, []string{"a"}, `""C:\Program Files\nodejs\node.exe" x.js a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			shell, argv := shellCommand(tt.script, tt.args, "windows", shIsBatch(shFirstWord(tt.script)))
			if shell != "cmd.exe" {
				t.Errorf("shellCommand() shell = %q, want %q", shell, "cmd.exe")
			}
			if diff := cmp.Diff([]string{"cmd.exe", "/d", "/e:ON", "/v:OFF", "/s", "/c", tt.want}, argv); diff != "" {
				t.Errorf("shellCommand() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShellFirstWord(t *testing.T) {
	t.Parallel()
	tests := []struct{ script, want string }{
		{"tsc -b", "tsc"},
		{"  tsc", "tsc"},
		{"tsc&&echo", "tsc"},
		{"a|b", "a"},
		{`"C:\my tools\x.cmd" y`, `C:\my tools\x.cmd`},
		{`node_modules\.bin\jest.CMD`, `node_modules\.bin\jest.CMD`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := shFirstWord(tt.script); got != tt.want {
			t.Errorf("shFirstWord(%q) = %q, want %q", tt.script, got, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	fsys := fakeFS{
		"/usr/bin/sh":                        "exe",
		"/child/bin/sh":                      "exe",
		`C:\Windows\system32\cmd.exe`:        "exe",
		`D:\shells\cmd.exe`:                  "exe",
		`C:\proj\node_modules\.bin\tsc.cmd`:  "exe",
		`C:\proj\node_modules\.bin\node.exe`: "exe",
		`C:\proj\scripts\gen.bat`:            "exe",
	}
	winEnv := []string{`Path=C:\proj\node_modules\.bin;C:\Windows\system32`, `ComSpec=C:\Windows\system32\cmd.exe`}
	tests := []struct {
		name     string
		goos     string
		spec     Spec
		wantPath string
		wantArgv []string
		wantErr  bool
	}{
		{name: "sh from the child's PATH", goos: "linux",
			spec:     Spec{Script: "tsc", Args: []string{"a b"}, Env: []string{"PATH=/child/bin:/usr/bin"}},
			wantPath: "/child/bin/sh", wantArgv: []string{"/child/bin/sh", "-c", "tsc 'a b'"}},
		{name: "no sh in the child's PATH", goos: "linux",
			spec: Spec{Script: "tsc", Env: []string{"PATH=/nowhere"}}, wantErr: true},
		{name: "windows ComSpec and a .cmd shim found by bare name", goos: "windows",
			spec:     Spec{Script: "tsc", Args: []string{"a&b"}, Env: winEnv, Dir: `C:\proj`},
			wantPath: `C:\Windows\system32\cmd.exe`,
			wantArgv: []string{`C:\Windows\system32\cmd.exe`, "/d", "/e:ON", "/v:OFF", "/s", "/c", `"tsc a^^^&b"`}},
		{name: "windows .exe escapes once", goos: "windows",
			spec:     Spec{Script: "node x.js", Args: []string{"a&b"}, Env: winEnv},
			wantPath: `C:\Windows\system32\cmd.exe`,
			wantArgv: []string{`C:\Windows\system32\cmd.exe`, "/d", "/e:ON", "/v:OFF", "/s", "/c", `"node x.js a^&b"`}},
		{name: "windows batch file relative to Dir", goos: "windows",
			spec:     Spec{Script: `scripts\gen`, Args: []string{"a&b"}, Env: winEnv, Dir: `C:\proj`},
			wantPath: `C:\Windows\system32\cmd.exe`,
			wantArgv: []string{`C:\Windows\system32\cmd.exe`, "/d", "/e:ON", "/v:OFF", "/s", "/c", `"scripts\gen a^^^&b"`}},
		{name: "windows ComSpec is any case", goos: "windows",
			spec:     Spec{Script: "x", Env: []string{`COMSPEC=D:\shells\cmd.exe`}},
			wantPath: `D:\shells\cmd.exe`, wantArgv: []string{`D:\shells\cmd.exe`, "/d", "/e:ON", "/v:OFF", "/s", "/c", `"x"`}},
		{name: "windows without ComSpec finds cmd.exe in the child's Path", goos: "windows",
			spec:     Spec{Script: "x", Env: []string{`PATH=C:\Windows\system32`}},
			wantPath: `C:\Windows\system32\cmd.exe`, wantArgv: []string{`C:\Windows\system32\cmd.exe`, "/d", "/e:ON", "/v:OFF", "/s", "/c", `"x"`}},
		{name: "windows empty ComSpec finds cmd.exe", goos: "windows",
			spec:     Spec{Script: "x", Env: []string{"ComSpec=", `Path=C:\Windows\system32`}},
			wantPath: `C:\Windows\system32\cmd.exe`, wantArgv: []string{`C:\Windows\system32\cmd.exe`, "/d", "/e:ON", "/v:OFF", "/s", "/c", `"x"`}},
		{name: "windows no shell at all", goos: "windows",
			spec: Spec{Script: "x", Env: []string{`Path=C:\proj`}}, wantErr: true},
		{name: "windows an argument with a newline", goos: "windows",
			spec: Spec{Script: "x", Args: []string{"ok", "a\nb"}, Env: winEnv}, wantErr: true},
		{name: "windows an argument with a carriage return", goos: "windows",
			spec: Spec{Script: "x", Args: []string{"a\rb"}, Env: winEnv}, wantErr: true},
		{name: "a program starts without a shell", goos: "linux",
			spec:     Spec{Program: "/child/bin/sh", Script: "ignored", Args: []string{"a b", ""}, Env: []string{"PATH=/nowhere"}},
			wantPath: "/child/bin/sh", wantArgv: []string{"/child/bin/sh", "a b", ""}},
		{name: "a program that is not there", goos: "linux",
			spec: Spec{Program: "/nowhere/node", Env: []string{"PATH=/usr/bin"}}, wantErr: true},
		{name: "windows a program's arguments are quoted for CommandLineToArgvW, not cmd.exe", goos: "windows",
			spec:     Spec{Program: `C:\proj\node_modules\.bin\node.exe`, Args: []string{`C:\a b\`, "x&y", `say "hi"`}, Env: winEnv},
			wantPath: `C:\proj\node_modules\.bin\node.exe`,
			wantArgv: []string{`C:\proj\node_modules\.bin\node.exe`, `"C:\a b\\"`, "x&y", `"say \"hi\""`}},
		{name: "a newline passes through sh", goos: "linux",
			spec:     Spec{Script: "x", Args: []string{"a\nb"}, Env: []string{"PATH=/usr/bin"}},
			wantPath: "/usr/bin/sh", wantArgv: []string{"/usr/bin/sh", "-c", "x 'a\nb'"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, argv, err := resolve(tt.spec, tt.goos, fsys.isExec(tt.goos))
			if (err != nil) != tt.wantErr {
				t.Fatalf("resolve() error = %v, want error %v", err, tt.wantErr)
			}
			if path != tt.wantPath {
				t.Errorf("resolve() path = %q, want %q", path, tt.wantPath)
			}
			if diff := cmp.Diff(tt.wantArgv, argv); diff != "" {
				t.Errorf("resolve() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
