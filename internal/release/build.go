package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
)

// VersionVar is the variable the linker stamps vx's version into.
const VersionVar = "github.com/vxrun/vx/internal/cli.Version"

// Build compiles ./cmd/<program> (from the module in moduleDir) for t into
// out, static, with no local paths in it, and vx --version printing
// "vx v<version>".
func Build(goBin, moduleDir, version, program string, t Target, out string) error {
	cmd := osexec.Command(goBin, "build", "-trimpath", "-o", out,
		"-ldflags", fmt.Sprintf("-s -w -X %s=v%s", VersionVar, version), "./cmd/"+program)
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.GOOS, "GOARCH="+t.GOARCH)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("release: go build of %s for %s: %w\n%s", program, t, err, stderr.String())
	}
	return nil
}

// VerifyNPMTarball checks a platform package's tarball: its package.json
// names t's package at version with t's os and cpu, and its binary is an
// executable for t.
func VerifyNPMTarball(path, version string, t Target) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("release: %w", err)
	}
	defer f.Close()
	files, err := ReadTarGz(f)
	if err != nil {
		return fmt.Errorf("release: %q: %w", path, err)
	}
	byName := map[string]File{}
	for _, file := range files {
		byName[file.Name] = file
	}
	var m struct {
		Name, Version string
		OS, CPU       []string
	}
	if err := json.Unmarshal(byName["package/package.json"].Data, &m); err != nil {
		return fmt.Errorf("release: %q: package.json: %w", path, err)
	}
	want := fmt.Sprintf("%s@%s os=%s cpu=%s", t.Package(), version, t.OS, t.CPU)
	got := fmt.Sprintf("%s@%s os=%s cpu=%s", m.Name, m.Version, strings.Join(m.OS, ","), strings.Join(m.CPU, ","))
	if got != want {
		return fmt.Errorf("release: %q: package.json says %s, want %s", filepath.Base(path), got, want)
	}
	for _, prog := range Programs {
		name := "bin/" + t.ExeOf(prog)
		bin, ok := byName["package/"+name]
		if !ok {
			return fmt.Errorf("release: %q has no %s", filepath.Base(path), name)
		}
		if !bin.Exec {
			return fmt.Errorf("release: %q: %s is not executable", filepath.Base(path), name)
		}
		if err := CheckBinary(bytes.NewReader(bin.Data), t.GOOS, t.GOARCH); err != nil {
			return fmt.Errorf("release: %q: %s: %w", filepath.Base(path), name, err)
		}
	}
	return nil
}
