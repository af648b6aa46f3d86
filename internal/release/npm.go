package release

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx"
)

//go:embed npm/README.md npm/install.js npm/launcher.js npm/platform-README.md npm/index.d.ts npm/index.mjs npm/index.cjs
var npmFiles embed.FS

// Types is index.d.ts of @vxrun/vx: the types of vx.config.ts.
func Types() []byte {
	data, _ := npmFiles.ReadFile("npm/index.d.ts")
	return data
}

// File is one file of a package or archive: its path inside it, its
// content, and whether it is executable.
type File struct {
	Name string
	Data []byte
	Exec bool
}

// NPMPackage is one npm package, ready to pack.
type NPMPackage struct {
	Name, Version string
	Files         []File // package.json first
}

// Tarball is the file name npm pack gives the package: "@vxrun/vx" at 1.2.3
// is "vxrun-vx-1.2.3.tgz".
func (p NPMPackage) Tarball() string {
	return strings.NewReplacer("@", "", "/", "-").Replace(p.Name) + "-" + p.Version + ".tgz"
}

// MainNPMPackage is @vxrun/vx at version: the launcher, the postinstall
// speed-up and one optional dependency per target, all at the same version;
// and the module vx.config.ts imports (defineConfig, defineProject) with
// its types.
func MainNPMPackage(version string) (NPMPackage, error) {
	opt := map[string]string{}
	for _, t := range Targets {
		opt[t.Package()] = version
	}
	manifest := map[string]any{
		"name":        MainPackage,
		"version":     version,
		"description": "A fast task runner for JavaScript and TypeScript monorepos, each task in an isolated environment",
		"keywords":    []string{"monorepo", "task runner", "workspaces", "build"},
		"repository":  map[string]string{"type": "git", "url": "git+https://github.com/vxrun/vx.git"},
		"license":     vx.License,
		"bin":         map[string]string{"vx": "bin/vx"},
		"main":        "./index.cjs",
		"types":       "./index.d.ts",
		"exports": map[string]any{
			".":                map[string]string{"types": "./index.d.ts", "import": "./index.mjs", "require": "./index.cjs"},
			"./vx.schema.json": "./vx.schema.json",
			"./package.json":   "./package.json",
		},
		"scripts":              map[string]string{"postinstall": "node install.js"},
		"optionalDependencies": opt,
		"engines":              map[string]string{"node": ">=16"},
		"preferUnplugged":      true,
	}
	files := []File{{Name: "package.json"}}
	for _, f := range []struct {
		src, name string
		exec      bool
	}{{"npm/README.md", "README.md", false}, {"npm/install.js", "install.js", false}, {"npm/launcher.js", "bin/vx", true},
		{"npm/index.d.ts", "index.d.ts", false}, {"npm/index.mjs", "index.mjs", false}, {"npm/index.cjs", "index.cjs", false}} {
		data, err := npmFiles.ReadFile(f.src)
		if err != nil {
			return NPMPackage{}, err
		}
		files = append(files, File{Name: f.name, Data: data, Exec: f.exec})
	}
	// The schema of vx.json, for editors: "$schema": "./node_modules/@vxrun/vx/vx.schema.json".
	files = append(files, File{Name: "vx.schema.json", Data: vx.ConfigSchema}, File{Name: "LICENSE", Data: vx.LicenseText})
	return withManifest(NPMPackage{Name: MainPackage, Version: version, Files: files}, manifest)
}

// PlatformNPMPackage is the package that holds t's binaries, read from
// binaries (program name → file; every one of [Programs]). npm, pnpm, yarn
// and bun install it only where os and cpu match.
func PlatformNPMPackage(version string, t Target, binaries map[string]string) (NPMPackage, error) {
	readme, err := npmFiles.ReadFile("npm/platform-README.md")
	if err != nil {
		return NPMPackage{}, err
	}
	readme = []byte(strings.NewReplacer("{{name}}", t.Package(), "{{os}}", t.OS, "{{cpu}}", t.CPU).Replace(string(readme)))
	files := []File{{Name: "package.json"}, {Name: "README.md", Data: readme}}
	bins, err := readBinaries(t, binaries)
	if err != nil {
		return NPMPackage{}, fmt.Errorf("release: %s: %w", t.Package(), err)
	}
	for _, b := range bins {
		b.Name = "bin/" + b.Name
		files = append(files, b)
	}
	files = append(files, File{Name: "LICENSE", Data: vx.LicenseText})
	manifest := map[string]any{
		"name":            t.Package(),
		"version":         version,
		"description":     fmt.Sprintf("The %s-%s binaries of vx (install @vxrun/vx instead)", t.OS, t.CPU),
		"repository":      map[string]string{"type": "git", "url": "git+https://github.com/vxrun/vx.git"},
		"license":         vx.License,
		"os":              []string{t.OS},
		"cpu":             []string{t.CPU},
		"preferUnplugged": true,
	}
	return withManifest(NPMPackage{Name: t.Package(), Version: version, Files: files}, manifest)
}

// readBinaries reads every program's binary for t, checked to be built for
// t, as executable files named as on t.
func readBinaries(t Target, binaries map[string]string) ([]File, error) {
	var files []File
	for _, prog := range Programs {
		path, ok := binaries[prog]
		if !ok {
			return nil, fmt.Errorf("no %s binary", prog)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := CheckBinary(bytes.NewReader(data), t.GOOS, t.GOARCH); err != nil {
			return nil, fmt.Errorf("%q: %w", path, err)
		}
		files = append(files, File{Name: t.ExeOf(prog), Data: data, Exec: true})
	}
	return files, nil
}

func withManifest(p NPMPackage, manifest map[string]any) (NPMPackage, error) {
	data, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return NPMPackage{}, err
	}
	p.Files[0].Data = append(data, '\n')
	return p, nil
}

// WriteNPMPackage writes p unpacked under dir/<name> and packed as
// dir/<tarball>, and returns the tarball's path.
func WriteNPMPackage(dir string, p NPMPackage) (string, error) {
	unpacked := filepath.Join(dir, filepath.FromSlash(p.Name))
	if err := os.RemoveAll(unpacked); err != nil {
		return "", fmt.Errorf("release: %w", err)
	}
	for _, f := range p.Files {
		path := filepath.Join(unpacked, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("release: %w", err)
		}
		if err := os.WriteFile(path, f.Data, fileMode(f)); err != nil {
			return "", fmt.Errorf("release: %w", err)
		}
	}
	tgz := filepath.Join(dir, p.Tarball())
	return tgz, writeFileAtomic(tgz, func(w *os.File) error { return writeTarGz(w, "package/", p.Files) })
}
