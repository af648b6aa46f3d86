package release

import "fmt"

// Target is one platform vx ships a prebuilt binary for.
type Target struct {
	GOOS, GOARCH string // Go's names
	OS, CPU      string // Node's names (process.platform, process.arch), as npm's os/cpu fields use them
}

// Targets are the platforms of the npm packages and release archives.
var Targets = []Target{
	{"linux", "amd64", "linux", "x64"},
	{"linux", "arm64", "linux", "arm64"},
	{"darwin", "amd64", "darwin", "x64"},
	{"darwin", "arm64", "darwin", "arm64"},
	{"windows", "amd64", "win32", "x64"},
	{"windows", "arm64", "win32", "arm64"},
}

// MainPackage is the npm package users install.
const MainPackage = "@vxrun/vx"

// Package is the name of the npm package that holds t's binary.
func (t Target) Package() string { return fmt.Sprintf("%s-%s-%s", MainPackage, t.OS, t.CPU) }

// Programs are the executables vx ships, by their ./cmd/ directory: vx;
// vx-remote, the REAPI client vx starts only when a remote cache is
// configured; and vx-config, which evaluates vx.config.ts when no memo
// holds. vx finds both beside its own executable.
var Programs = []string{"vx", "vx-remote", "vx-config"}

// Exe is the binary's file name on t.
func (t Target) Exe() string { return t.ExeOf("vx") }

// ExeOf is program's file name on t.
func (t Target) ExeOf(program string) string {
	if t.GOOS == "windows" {
		return program + ".exe"
	}
	return program
}

// String is the target as Go names it, "linux/amd64".
func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// TargetFor returns the target whose Go names are goos/goarch.
func TargetFor(goos, goarch string) (Target, bool) {
	for _, t := range Targets {
		if t.GOOS == goos && t.GOARCH == goarch {
			return t, true
		}
	}
	return Target{}, false
}
