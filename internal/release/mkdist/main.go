// Command mkdist builds vx's npm packages and release archives:
//
//	go run ./internal/release/mkdist -version 1.2.3 npm      # dist/npm/*.tgz (make npm)
//	go run ./internal/release/mkdist -version 1.2.3 archives # dist/archives/vx_1.2.3_<os>_<arch>.{tar.gz,zip}, checksums.txt (make dist)
//	go run ./internal/release/mkdist -version 1.2.3 verify   # check every platform tarball's binary and labels
//
// Run it from the module's root. Binaries are built once into dist/bin/.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/vxrun/vx"
	"github.com/vxrun/vx/internal/release"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}

// semver is the form npm accepts for a version (no leading v).
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

func run() error {
	version := flag.String("version", "", "the version to stamp, semver without a leading v (required)")
	out := flag.String("out", "dist", "the output directory")
	goBin := flag.String("go", "go", "the go command")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: mkdist -version X.Y.Z [-out dist] npm|archives|verify")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		return errors.New("name one of npm, archives, verify")
	}
	if !semver.MatchString(*version) {
		return fmt.Errorf("-version %q is not a semantic version such as 1.2.3 or 0.1.0-dev.1", *version)
	}
	switch flag.Arg(0) {
	case "npm":
		return npm(*goBin, *version, *out)
	case "archives":
		return archives(*goBin, *version, *out)
	case "verify":
		return verify(*version, *out)
	}
	return fmt.Errorf("unknown step %q: name one of npm, archives, verify", flag.Arg(0))
}

// binaries builds every program for every target into out/bin/<goos>_<goarch>/.
func binaries(goBin, version, out string) (map[release.Target]map[string]string, error) {
	paths := map[release.Target]map[string]string{}
	for _, t := range release.Targets {
		paths[t] = map[string]string{}
		for _, prog := range release.Programs {
			p := filepath.Join(out, "bin", t.GOOS+"_"+t.GOARCH, t.ExeOf(prog))
			fmt.Fprintf(os.Stderr, "building %s for %s\n", prog, t)
			if err := release.Build(goBin, ".", version, prog, t, p); err != nil {
				return nil, err
			}
			paths[t][prog] = p
		}
	}
	return paths, nil
}

func npm(goBin, version, out string) error {
	bins, err := binaries(goBin, version, out)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, "npm")
	main, err := release.MainNPMPackage(version)
	if err != nil {
		return err
	}
	pkgs := []release.NPMPackage{main}
	for _, t := range release.Targets {
		p, err := release.PlatformNPMPackage(version, t, bins[t])
		if err != nil {
			return err
		}
		pkgs = append(pkgs, p)
	}
	for _, p := range pkgs {
		tgz, err := release.WriteNPMPackage(dir, p)
		if err != nil {
			return err
		}
		fmt.Println(tgz)
	}
	return verify(version, out)
}

func archives(goBin, version, out string) error {
	bins, err := binaries(goBin, version, out)
	if err != nil {
		return err
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		return err
	}
	dir := filepath.Join(out, "archives")
	var paths []string
	for _, t := range release.Targets {
		p, err := release.WriteArchive(dir, version, t, bins[t], []release.File{{Name: "README.md", Data: readme}, {Name: "LICENSE", Data: vx.LicenseText}})
		if err != nil {
			return err
		}
		fmt.Println(p)
		paths = append(paths, p)
	}
	sums, err := release.WriteChecksums(dir, paths)
	if err != nil {
		return err
	}
	fmt.Println(sums)
	return nil
}

func verify(version, out string) error {
	main, err := release.MainNPMPackage(version)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(out, "npm", main.Tarball())); err != nil {
		return fmt.Errorf("no main package: %w (run the npm step first)", err)
	}
	for _, t := range release.Targets {
		p := release.NPMPackage{Name: t.Package(), Version: version}
		if err := release.VerifyNPMTarball(filepath.Join(out, "npm", p.Tarball()), version, t); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "verified %d platform packages\n", len(release.Targets))
	return nil
}
