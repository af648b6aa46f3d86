package release

import (
	"bytes"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// bins stands this test binary in for every program vx ships.
func bins(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, p := range Programs {
		m[p] = self(t)
	}
	return m
}

// self is this test binary: a real executable for the platform the tests run on.
func self(t *testing.T) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckBinary(t *testing.T) {
	exe, err := os.Open(self(t))
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	other := map[string]string{"linux": "darwin", "darwin": "windows", "windows": "linux"}[runtime.GOOS]
	otherArch := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
	tests := []struct {
		name        string
		goos, arch  string
		data        []byte // nil: this test binary
		wantErrPart string
	}{
		{"this platform", runtime.GOOS, runtime.GOARCH, nil, ""},
		{"another OS", other, runtime.GOARCH, nil, "not " + other + "/" + runtime.GOARCH},
		{"another architecture", runtime.GOOS, otherArch, nil, "not " + runtime.GOOS + "/" + otherArch},
		{"a script", runtime.GOOS, runtime.GOARCH, []byte("#!/usr/bin/env node\nconsole.log(1)\n"), "not an ELF, Mach-O or PE"},
		{"empty", runtime.GOOS, runtime.GOARCH, []byte{}, "not an executable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.data == nil {
				err = CheckBinary(exe, tt.goos, tt.arch)
			} else {
				err = CheckBinary(bytes.NewReader(tt.data), tt.goos, tt.arch)
			}
			if tt.wantErrPart == "" {
				if err != nil {
					t.Fatalf("CheckBinary: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErrPart) {
				t.Fatalf("CheckBinary error = %v, want one containing %q", err, tt.wantErrPart)
			}
		})
	}
}

func TestMainNPMPackage(t *testing.T) {
	p, err := MainNPMPackage("1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name, Version        string
		Bin                  map[string]string
		Scripts              map[string]string
		OptionalDependencies map[string]string
	}
	if err := json.Unmarshal(p.Files[0].Data, &m); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"@vxrun/vx-linux-x64": "1.2.3", "@vxrun/vx-linux-arm64": "1.2.3",
		"@vxrun/vx-darwin-x64": "1.2.3", "@vxrun/vx-darwin-arm64": "1.2.3",
		"@vxrun/vx-win32-x64": "1.2.3", "@vxrun/vx-win32-arm64": "1.2.3",
	}
	if diff := cmp.Diff(want, m.OptionalDependencies); diff != "" {
		t.Errorf("optionalDependencies (-want +got):\n%s", diff)
	}
	if m.Name != "@vxrun/vx" || m.Version != "1.2.3" || m.Bin["vx"] != "bin/vx" {
		t.Errorf("manifest = %+v", m)
	}
	var names []string
	for _, f := range p.Files {
		names = append(names, f.Name)
		if f.Name == "bin/vx" && !f.Exec {
			t.Error("bin/vx is not executable")
		}
	}
	if diff := cmp.Diff([]string{"package.json", "README.md", "install.js", "bin/vx", "index.d.ts", "index.mjs", "index.cjs", "vx.schema.json", "LICENSE"}, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if got := p.Tarball(); got != "vxrun-vx-1.2.3.tgz" {
		t.Errorf("Tarball() = %q", got)
	}
}

// TestLicense proves that every npm package declares the licence the
// LICENSE file holds, and carries that file.
func TestLicense(t *testing.T) {
	// The first line of each licence text vx could declare, by SPDX id.
	heading := map[string]string{"MIT": "MIT License", "Apache-2.0": "Apache License", "BSD-3-Clause": "BSD 3-Clause License"}
	want, ok := heading[vx.License]
	if !ok {
		t.Fatalf("vx.License %q: add its LICENSE heading to this test", vx.License)
	}
	if first, _, _ := strings.Cut(string(vx.LicenseText), "\n"); first != want {
		t.Errorf("LICENSE begins %q; vx.License %q wants %q", first, vx.License, want)
	}
	main, err := MainNPMPackage("1.2.3")
	if err != nil {
		t.Fatal(err)
	}
	plat, err := PlatformNPMPackage("1.2.3", hostTarget(t), bins(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []NPMPackage{main, plat} {
		var m struct{ License string }
		if err := json.Unmarshal(p.Files[0].Data, &m); err != nil {
			t.Fatal(err)
		}
		if m.License != vx.License {
			t.Errorf("%s declares license %q, want %q", p.Name, m.License, vx.License)
		}
		carried := false
		for _, f := range p.Files {
			carried = carried || f.Name == "LICENSE" && bytes.Equal(f.Data, vx.LicenseText)
		}
		if !carried {
			t.Errorf("%s does not carry LICENSE", p.Name)
		}
	}
}

func hostTarget(t *testing.T) Target {
	t.Helper()
	tg, ok := TargetFor(runtime.GOOS, runtime.GOARCH)
	if !ok {
		t.Skipf("vx ships no package for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	return tg
}

func TestPlatformPackageRoundTrip(t *testing.T) {
	tg := hostTarget(t)
	dir := testdir.New(t)
	p, err := PlatformNPMPackage("0.3.0-rc.1", tg, bins(t))
	if err != nil {
		t.Fatal(err)
	}
	tgz, err := WriteNPMPackage(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyNPMTarball(tgz, "0.3.0-rc.1", tg); err != nil {
		t.Fatalf("VerifyNPMTarball: %v", err)
	}
	if err := VerifyNPMTarball(tgz, "0.3.0", tg); err == nil || !strings.Contains(err.Error(), "want "+tg.Package()+"@0.3.0 ") {
		t.Errorf("VerifyNPMTarball with another version: %v", err)
	}
	// The same inputs give the same bytes.
	first, _ := os.ReadFile(tgz)
	again, err := WriteNPMPackage(testdir.New(t), p)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(again)
	if !bytes.Equal(first, second) {
		t.Error("packing twice gave different tarballs")
	}
	f, _ := os.Open(tgz)
	defer f.Close()
	files, err := ReadTarGz(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Name+" "+map[bool]string{true: "exec", false: "-"}[f.Exec])
	}
	want := []string{"package/package.json -", "package/README.md -", "package/bin/" + tg.Exe() + " exec", "package/bin/" + tg.ExeOf("vx-remote") + " exec", "package/bin/" + tg.ExeOf("vx-config") + " exec", "package/LICENSE -"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tarball files (-want +got):\n%s", diff)
	}
}

// A package labelled for one platform cannot be built with another's binary,
// and a tarball whose binary was swapped afterwards fails verification.
func TestMislabelledPackage(t *testing.T) {
	host := hostTarget(t)
	var wrong Target
	for _, tg := range Targets {
		if tg.GOOS != host.GOOS {
			wrong = tg
			break
		}
	}
	if _, err := PlatformNPMPackage("1.0.0", wrong, bins(t)); err == nil {
		t.Fatalf("PlatformNPMPackage(%s) with a %s binary succeeded", wrong, host)
	}
	p, err := PlatformNPMPackage("1.0.0", host, bins(t))
	if err != nil {
		t.Fatal(err)
	}
	// Relabel the manifest only, as a copy-paste slip in a release script would.
	p.Name = wrong.Package()
	p.Files[0].Data = bytes.ReplaceAll(p.Files[0].Data, []byte(host.Package()), []byte(wrong.Package()))
	p.Files[0].Data = bytes.ReplaceAll(p.Files[0].Data, []byte(`"`+host.OS+`"`), []byte(`"`+wrong.OS+`"`))
	p.Files[0].Data = bytes.ReplaceAll(p.Files[0].Data, []byte(`"`+host.CPU+`"`), []byte(`"`+wrong.CPU+`"`))
	p.Files[2].Name = "bin/" + wrong.Exe()
	p.Files[3].Name = "bin/" + wrong.ExeOf("vx-remote")
	p.Files[4].Name = "bin/" + wrong.ExeOf("vx-config")
	tgz, err := WriteNPMPackage(testdir.New(t), p)
	if err != nil {
		t.Fatal(err)
	}
	err = VerifyNPMTarball(tgz, "1.0.0", wrong)
	if err == nil || !strings.Contains(err.Error(), "built for "+host.String()) {
		t.Fatalf("VerifyNPMTarball of a mislabelled package: %v", err)
	}
}

func TestArchiveAndChecksums(t *testing.T) {
	tg := hostTarget(t)
	dir := testdir.New(t)
	path, err := WriteArchive(dir, "1.0.0", tg, bins(t), []File{{Name: "README.md", Data: []byte("hi\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, ArchiveName("1.0.0", tg)); path != want {
		t.Errorf("archive at %q, want %q", path, want)
	}
	sums, err := WriteChecksums(dir, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(sums)
	line := strings.TrimSuffix(string(data), "\n")
	if len(line) != 64+2+len(filepath.Base(path)) || !strings.HasSuffix(line, "  "+filepath.Base(path)) {
		t.Errorf("checksums.txt = %q", data)
	}
	if sha, err := osexec.LookPath("sha256sum"); err == nil {
		cmd := osexec.Command(sha, "-c", "checksums.txt")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}
}

// The launcher, when no platform package is installed, says which package is
// missing and exits 2 instead of a Node.js stack trace.
func TestLauncherWithoutPlatformPackage(t *testing.T) {
	node := testtool.Need(t, "Node.js; .ci/run has it: it runs the npm launcher", "node")
	dir := testdir.New(t)
	data, err := npmFiles.ReadFile("npm/launcher.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vx.js"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(node, filepath.Join(dir, "vx.js"), "--version")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	code := -1
	if ee, ok := err.(*osexec.ExitError); ok {
		code = ee.ExitCode()
	}
	msg := stderr.String()
	if _, fits := TargetFor(runtime.GOOS, runtime.GOARCH); fits {
		if code != 2 || !strings.Contains(msg, "is not installed") || strings.Contains(msg, "    at ") {
			t.Errorf("exit %d, stderr %q", code, msg)
		}
	} else if code != 2 || !strings.Contains(msg, "no prebuilt binary") {
		t.Errorf("exit %d, stderr %q", code, msg)
	}
}
