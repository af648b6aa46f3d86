package jsconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"

	"github.com/vxrun/vx/exec"
)

// modulePath is the module vx is built from.
const modulePath = "github.com/vxrun/vx"

// sourceCheckout returns the root of the source checkout this vx was built
// from, and the go program to build vx-config there with, when both are
// on this machine: a vx started with `go run ./cmd/vx` (or built with go
// build, without -trimpath) knows the absolute path of its source files.
// A vx from a release, go install or -trimpath knows only module paths and
// has no checkout.
func sourceCheckout(environ []string) (dir, goProg string, ok bool) {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return "", "", false
	}
	for d := filepath.Dir(file); ; {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			if !bytes.HasPrefix(data, []byte("module "+modulePath+"\n")) {
				return "", "", false
			}
			if _, err := os.Stat(filepath.Join(d, "cmd", "vx-config")); err != nil {
				return "", "", false
			}
			goProg, err := exec.LookPath("go", environ)
			if err != nil {
				return "", "", false
			}
			return d, goProg, true
		}
		up := filepath.Dir(d)
		if up == d {
			return "", "", false
		}
		d = up
	}
}
