package workspace

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PackageManager is the package manager a workspace is managed with, as vx
// works it out: the root package.json's "packageManager" field first
// ("pnpm@9.1.0+sha512..."), else the root's lockfile, else a
// pnpm-workspace.yaml, else npm.
type PackageManager struct {
	// Name is "npm", "pnpm", "yarn" or "bun".
	Name string
	// Version is the version the "packageManager" field gives; "" when vx
	// learnt the package manager another way.
	Version string
	// Major is the major version: from Version, or the lowest major that
	// writes the lockfile found (pnpm's lockfileVersion 9.0 means pnpm 9 or
	// later; a yarn.lock with "__metadata" means yarn 2 or later, without
	// it yarn 1); 0 when unknown.
	Major int
	// Source says where vx learnt it: "package.json packageManager", the
	// lockfile's name, "pnpm-workspace.yaml", or "" for the npm default.
	Source string
	// Settings are the package manager settings that change what vx does,
	// read from the root's pnpm-workspace.yaml and .npmrc (pnpm only); a
	// nil field is not set.
	Settings PMSettings
}

// PMSettings are pnpm settings vx follows. pnpm-workspace.yaml's camelCase
// keys win over .npmrc's kebab-case ones, as in pnpm 10.
type PMSettings struct {
	EnablePrePostScripts  *bool // enablePrePostScripts / enable-pre-post-scripts
	LinkWorkspacePackages *bool // linkWorkspacePackages / link-workspace-packages ("deep" is true)
}

// RunsPrePost reports whether `<pm> run X` also runs preX and postX:
// npm, yarn 1 and bun do; yarn 2 and later do not; pnpm did before 6.0,
// did not from 6.0 to 8.x, and does again from 9.0, unless its
// enable-pre-post-scripts setting says otherwise.
func (pm PackageManager) RunsPrePost() bool {
	switch pm.Name {
	case "yarn":
		return pm.Major == 1
	case "pnpm":
		if s := pm.Settings.EnablePrePostScripts; s != nil {
			return *s
		}
		return pm.Major == 0 || pm.Major < 6 || pm.Major >= 9
	}
	return true
}

// linksPlainRanges reports whether a dependency written as a plain version
// or range ("^1.2.0", "*") names a workspace project when the project's
// version satisfies it. npm, yarn and bun link such a dependency to the
// workspace; pnpm does only with link-workspace-packages, off by default
// since pnpm 9.
func (pm PackageManager) linksPlainRanges() bool {
	if pm.Name != "pnpm" {
		return true
	}
	if s := pm.Settings.LinkWorkspacePackages; s != nil {
		return *s
	}
	return pm.Major != 0 && pm.Major < 9
}

// lockfiles maps the root's lockfiles to their package managers, in the
// order vx looks for them.
var lockfiles = [...]struct{ file, pm string }{
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"bun.lock", "bun"},
	{"bun.lockb", "bun"},
	{"package-lock.json", "npm"},
	{"npm-shrinkwrap.json", "npm"},
}

// detectPackageManager works out root's package manager. field is the root
// package.json's "packageManager"; yaml tells whether root has a
// pnpm-workspace.yaml and settings what it set.
func detectPackageManager(fsys fileSystem, root, field string, yaml bool, settings PMSettings) PackageManager {
	var pm PackageManager
	if name, version, ok := strings.Cut(field, "@"); ok {
		switch name {
		case "npm", "pnpm", "yarn", "bun":
			version, _, _ = strings.Cut(version, "+")
			pm = PackageManager{Name: name, Version: version, Source: "package.json packageManager"}
			major, _, _ := strings.Cut(version, ".")
			pm.Major, _ = strconv.Atoi(major)
		}
	}
	if pm.Name == "" {
	locks:
		for _, l := range lockfiles {
			if fi, err := fsys.Stat(filepath.Join(root, l.file)); err == nil && fi.Mode().IsRegular() {
				pm = PackageManager{Name: l.pm, Source: l.file}
				switch l.pm {
				case "pnpm":
					pm.Major = pnpmLockMajor(lockHead(fsys, filepath.Join(root, l.file)))
				case "yarn":
					pm.Major = 1
					if bytes.Contains(lockHead(fsys, filepath.Join(root, l.file)), []byte("__metadata:")) {
						pm.Major = 2
					}
				}
				break locks
			}
		}
	}
	if pm.Name == "" && yaml {
		pm = PackageManager{Name: "pnpm", Source: pnpmWorkspaceFile}
	}
	if pm.Name == "" {
		pm = PackageManager{Name: "npm"}
	}
	if pm.Name == "pnpm" {
		pm.Settings = readNpmrc(fsys, root)
		if settings.EnablePrePostScripts != nil {
			pm.Settings.EnablePrePostScripts = settings.EnablePrePostScripts
		}
		if settings.LinkWorkspacePackages != nil {
			pm.Settings.LinkWorkspacePackages = settings.LinkWorkspacePackages
		}
	}
	return pm
}

// lockHead returns the first bytes of a lockfile: enough for its version
// line, never the whole file (lockfiles run to megabytes).
func lockHead(fsys fileSystem, path string) []byte {
	if _, ok := fsys.(osFS); ok {
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		b := make([]byte, 512)
		n, _ := io.ReadFull(f, b)
		return b[:n]
	}
	b, _ := fsys.ReadFile(path) // the file systems of tests
	return b[:min(len(b), 512)]
}

// pnpmLockMajor maps a pnpm-lock.yaml's lockfileVersion to the lowest pnpm
// major that writes it: 9.0 → 9, 6.x → 8, 5.4 → 7, 5.3 → 6, older → 5.
func pnpmLockMajor(head []byte) int {
	for _, line := range strings.Split(string(head), "\n") {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "lockfileVersion:")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `'"`)
		ma, mi, _ := strings.Cut(v, ".")
		major, err := strconv.Atoi(ma)
		if err != nil {
			return 0
		}
		minor, _ := strconv.Atoi(mi)
		switch {
		case major >= 9:
			return 9
		case major >= 6:
			return 8
		case major == 5 && minor >= 4:
			return 7
		case major == 5 && minor == 3:
			return 6
		default:
			return 5
		}
	}
	return 0
}

// readNpmrc reads the pnpm settings vx follows from root's .npmrc: lines
// "key=value", comments starting with # or ;.
func readNpmrc(fsys fileSystem, root string) PMSettings {
	var s PMSettings
	path := filepath.Join(root, ".npmrc")
	if fi, err := fsys.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return s
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return s // absent or unreadable: the defaults
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)
		switch k {
		case "enable-pre-post-scripts":
			s.EnablePrePostScripts = npmrcBool(v)
		case "link-workspace-packages":
			s.LinkWorkspacePackages = npmrcBool(v)
		}
	}
	return s
}

func npmrcBool(v string) *bool {
	b := v == "true" || v == "deep"
	if !b && v != "false" {
		return nil
	}
	return &b
}
