package vx

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// This file keeps the repository in order: README's package map names every
// package, the import rules it states hold, and nothing built is tracked.

const module = "github.com/vxrun/vx"

// packages returns the module's packages, by directory relative to the
// root ("." for the root), each with the module-internal and other
// imports of its non-test files, whatever their build constraints.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir // test data, hidden, or another module (tools)
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		imports := pkgs[dir]
		for _, imp := range f.Imports {
			if s, err := strconv.Unquote(imp.Path.Value); err == nil && !slices.Contains(imports, s) {
				imports = append(imports, s)
			}
		}
		pkgs[dir] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// packageMap reads README.md's package map: the code block after the line
// that starts "Which package owns what", one package a line (its directory,
// "." for the root, then what it owns), blank lines between groups.
func packageMap(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\nWhich package owns what")
	if !ok {
		t.Fatal(`README.md has no package map (a line starting "Which package owns what", then a code block)`)
	}
	_, rest, _ = strings.Cut(rest, "\n```\n")
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatal("README.md's package map is not followed by a code block")
	}
	m := map[string]string{}
	for _, line := range strings.Split(block, "\n") {
		dir, owns, _ := strings.Cut(strings.TrimSpace(line), " ")
		if dir != "" {
			m[dir] = strings.TrimSpace(owns)
		}
	}
	return m
}

// TestPackageMap proves that README's package map names every package of
// the module, and only those, each with what it owns.
func TestPackageMap(t *testing.T) {
	pkgs := packages(t)
	table := packageMap(t)
	var dirs []string
	for dir := range pkgs {
		dirs = append(dirs, dir)
	}
	slices.Sort(dirs)
	for _, dir := range dirs {
		owns, ok := table[dir]
		if !ok {
			t.Errorf("README.md's package map has no line for %s: add one to the code block after \"Which package owns what\",\n"+
				"in the group it belongs to, aligned with the others:\n\t%-27s what it owns, in a few words (as its doc.go says)", dir, dir)
		} else if owns == "" {
			t.Errorf("README.md's package map names %s but not what it owns: add a few words after the name", dir)
		}
	}
	for dir := range table {
		if _, ok := pkgs[dir]; !ok {
			t.Errorf("README.md's package map names %s, which is no package of the module (moved or removed?): rename or remove its line", dir)
		}
	}
}

// mapGroups reads README.md's package map in order: its groups (separated
// by blank lines), each the package directories in the order listed.
func mapGroups(t *testing.T) [][]string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(data), "\nWhich package owns what")
	_, rest, _ = strings.Cut(rest, "\n```\n")
	block, _, _ := strings.Cut(rest, "\n```")
	groups := [][]string{nil}
	for _, line := range strings.Split(block, "\n") {
		dir, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		switch {
		case dir != "":
			groups[len(groups)-1] = append(groups[len(groups)-1], dir)
		case len(groups[len(groups)-1]) > 0:
			groups = append(groups, nil)
		}
	}
	return groups
}

// TestImportRules checks the four rules README's package map states:
//  1. vx's own packages (the map's first group) import only packages listed
//     below them in that group: the command at the top, exec at the bottom;
//  2. exec imports nothing else of vx (it takes plain values);
//  3. the helpers vx starts (the second group: vx-config, vx-remote and
//     their packages) are never linked into vx: not their packages, not
//     esbuild, not gRPC; and vx-remote links neither the cache nor exec;
//  4. the cache's rooms: the store knows nothing of computing keys and the
//     key's computation nothing of the store (neither reaches the other),
//     and no room (those two, reapi, outputs) reaches internal/cache,
//     which composes them.
func TestImportRules(t *testing.T) {
	pkgs := packages(t)
	// deps returns the module's packages dir reaches, and every import
	// outside the module that they make.
	deps := func(dir string) (internal, external []string) {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(dir string) {
			for _, imp := range pkgs[dir] {
				if d, ok := strings.CutPrefix(imp, module+"/"); ok || imp == module {
					if !ok {
						d = "."
					}
					if !seen[d] {
						seen[d] = true
						internal = append(internal, d)
						walk(d)
					}
				} else if !slices.Contains(external, imp) {
					external = append(external, imp)
				}
			}
		}
		walk(dir)
		return internal, external
	}
	groups := mapGroups(t)
	if len(groups) < 2 || len(groups[0]) == 0 || groups[0][0] != "cmd/vx" || groups[0][len(groups[0])-1] != "exec" {
		t.Fatalf("README.md's package map: want vx's own packages first, from cmd/vx down to exec, then the helpers; got groups %q", groups)
	}
	own, helpers := groups[0], groups[1]

	// 1. Downward only.
	at := map[string]int{}
	for i, dir := range own {
		at[dir] = i
	}
	for i, dir := range own {
		for _, imp := range pkgs[dir] {
			d, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				if imp == module {
					t.Errorf("%s imports the module's root package; vx's own packages import only those below them in README's map", dir)
				}
				continue
			}
			j, listed := at[d]
			switch {
			case !listed:
				t.Errorf("%s imports %s, which is not one of vx's own packages (README's map, first group): vx must not link it", dir, d)
			case j <= i:
				t.Errorf("%s imports %s, which README's map lists above it: vx's own packages import only those below them "+
					"(move what %s needs down, or reorder the map if the arrow is right)", dir, d, dir)
			}
		}
	}
	// 2. exec at the bottom.
	if internal, _ := deps("exec"); len(internal) > 0 {
		t.Errorf("exec imports %v; it must import nothing else of vx (it takes plain values)", internal)
	}
	// 3. The helpers are started, never linked.
	internal, external := deps("cmd/vx")
	for _, d := range internal {
		if slices.Contains(helpers, d) {
			t.Errorf("vx links %s, a helper's package (README's map, second group): vx starts the helper and talks to it over a pipe", d)
		}
	}
	for _, imp := range external {
		if strings.HasPrefix(imp, "google.golang.org/") || strings.HasPrefix(imp, "github.com/evanw/esbuild") {
			t.Errorf("vx's own packages import %s: gRPC belongs in vx-remote (internal/remote/reapi), esbuild in vx-config", imp)
		}
	}
	internal, _ = deps("cmd/vx-remote")
	for _, d := range internal {
		if d == "exec" || d == "internal/cache" {
			t.Errorf("vx-remote links %s: the helper needs only the pipe's types (internal/remote/wire)", d)
		}
	}
	// 4. The cache's rooms, one way: internal/cache -> outputs -> key -> reapi, internal/cache -> store -> reapi.
	rooms := map[string][]string{ // a room: the packages it must not reach
		"internal/cache/store":   {"internal/cache", "internal/cache/key"},
		"internal/cache/key":     {"internal/cache", "internal/cache/store"},
		"internal/cache/reapi":   {"internal/cache", "internal/cache/key", "internal/cache/store"},
		"internal/cache/outputs": {"internal/cache"},
	}
	for room, never := range rooms {
		if _, ok := pkgs[room]; !ok {
			t.Errorf("%s is gone: update rule 4 of TestImportRules and README's map", room)
			continue
		}
		internal, _ := deps(room)
		for _, d := range internal {
			if slices.Contains(never, d) {
				t.Errorf("%s reaches %s: the store and the key's computation know nothing of each other, and no room of the cache "+
					"knows internal/cache, which composes them (move what both need into internal/cache/reapi, or up into internal/cache)", room, d)
			}
		}
	}
}

// TestNothingBuiltIsTracked proves that git tracks no compiled file (an
// executable, a test binary, an archive) and no file over 1 MiB: a fresh
// clone stays small. make build, make dist, bench/run.sh and go test -c
// write theirs where .gitignore keeps them out.
func TestNothingBuiltIsTracked(t *testing.T) {
	out, err := exec.Command("git", "ls-files", "-z").Output()
	if err != nil || len(out) == 0 {
		t.Skipf("not a git checkout with git on PATH (git ls-files: %v)", err)
	}
	magic := map[string]string{"\x7fELF": "an ELF executable", "MZ": "a Windows executable", "\xcf\xfa\xed\xfe": "a Mach-O executable",
		"\xce\xfa\xed\xfe": "a Mach-O executable", "\xca\xfe\xba\xbe": "a Mach-O universal binary", "\x1f\x8b": "a gzip file", "PK\x03\x04": "a zip file"}
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		switch ext := path.Ext(name); ext {
		case ".test", ".exe", ".tgz", ".zip", ".prof", ".pprof":
			t.Errorf("git tracks %s, a build output (%s): git rm --cached it; .gitignore should keep it out", name, ext)
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		st, err := f.Stat()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for m, what := range magic {
			if bytes.HasPrefix(head[:n], []byte(m)) {
				t.Errorf("git tracks %s, %s: git rm --cached it; build outputs stay out of the repository", name, what)
			}
		}
		if st.Size() > 1<<20 {
			t.Errorf("git tracks %s, %s: a fresh clone should stay small; keep large files out of the repository", name, fmt.Sprintf("%.1f MiB", float64(st.Size())/(1<<20)))
		}
	}
}

// TestMessagesNameTheConfigFile keeps every message from naming vx.json in
// a workspace configured by vx.config.ts: a string literal of vx's code
// (not its tests) that says "vx.json" must name vx.config too (a message
// that names both), or be one of the few that are about vx.json itself.
// The others take the file's name from the configuration
// (config.Config.FileName, run.Node.ConfigFile).
func TestMessagesNameTheConfigFile(t *testing.T) {
	// file: the literals allowed there, by a part of their text.
	allowed := map[string][]string{
		"internal/config/config.go":         {`"vx.json"`},                                    // FileName itself
		"internal/run/watchplan.go":         {`"vx.json"`},                                    // the manifests whose change replans vx watch
		"internal/run/changed.go":           {`"vx.json"`},                                    // the same, for --affected
		"internal/inputfile/inputfile.go":   {"package.json, vx.json or pnpm-workspace.yaml"}, // the files inputfile reads
		"internal/jsconfig/run.go":          {"write the configuration as vx.json"},           // no node: the other kind of file
		"internal/guard/guard.go":           {`"vx.json"`},                                    // the default, when the caller names no file
		"internal/cache/outputs/outputs.go": {`"vx.json"`},                                    // the same
		"bench/cachews.go":                  {`"vx.json"`},                                    // a benchmark's workspace
	}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || fileExists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING || !strings.Contains(lit.Value, "vx.json") || strings.Contains(lit.Value, "vx.config") {
				return true
			}
			for _, a := range allowed[filepath.ToSlash(p)] {
				if strings.Contains(lit.Value, a) {
					return true
				}
			}
			t.Errorf("%s: %s names vx.json, which a workspace configured by vx.config.ts does not have: "+
				"name the workspace's file (config.Config.FileName, run.Node.ConfigFile), or both files", fset.Position(lit.Pos()), lit.Value)
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
