package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestEnvJSONInvalidUTF8: JSON cannot carry a name or value that is not
// valid UTF-8 (encoding/json turns each bad byte into U+FFFD, so "A\xff"
// and "A\xfe" became one key). vx env --json refuses them, naming the
// variable; vx env prints them as they are.
func TestEnvJSONInvalidUTF8(t *testing.T) {
	dir := testdir.New(t)
	files := map[string]string{
		"package.json": `{"name": "a", "scripts": {"build": "x"}}`,
		"vx.json":      `{"tasks": {"build": {"env": {"passThrough": ["A*", "V"]}}}}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		environ []string
		code    int
		stderr  string
	}{
		{"valid", []string{"A1=x", "V=é"}, 0, ""},
		{"names", []string{"A\xff=1", "A\xfe=2"}, 2, `the variable name "A\xfe" is not valid UTF-8`},
		{"value", []string{"V=caf\xe9"}, 2, `the value of V is not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code, err := Main(Process{Args: []string{"env", "build", "--json"}, Environ: tt.environ, Dir: dir, Stdout: &stdout, Stderr: &stderr, GOOS: runtime.GOOS})
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if code != tt.code || !strings.Contains(msg, tt.stderr) || (tt.stderr == "") != (err == nil) {
				t.Fatalf("vx env build --json: exit %d, error %q; want exit %d and %q", code, msg, tt.code, tt.stderr)
			}
			if code != 0 {
				if stdout.Len() > 0 {
					t.Errorf("stdout = %q, want nothing", stdout.String())
				}
				return
			}
			var got struct{ Env map[string]string }
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Env["A1"] != "x" || got.Env["V"] != "é" {
				t.Errorf("env = %q", got.Env)
			}
			// without --json the bytes are printed as they are
			stdout.Reset()
			if code, _ := Main(Process{Args: []string{"env", "build"}, Environ: []string{"V=caf\xe9"}, Dir: dir, Stdout: &stdout, Stderr: &stderr, GOOS: runtime.GOOS}); code != 0 || !strings.Contains(stdout.String(), "V=caf\xe9\n") {
				t.Errorf("vx env build: exit %d, stdout %q; want V=caf\\xe9 as it is", code, stdout.String())
			}
		})
	}
}
