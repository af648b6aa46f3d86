package key

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// yarnDirs are the projects of internal/lockfile/testdata/yarn, a
// workspace yarn 1.22.22 installed: web -> ui; docs; the root.
var yarnDirs = []string{".", "apps/docs", "apps/web", "packages/ui"}

// newYarnFixture copies that workspace (its manifests and yarn.lock) to a
// new root, with a cache that knows its projects.
func newYarnFixture(t *testing.T, dryRun bool) *lockFixture {
	t.Helper()
	root := testdir.New(t)
	for _, dir := range yarnDirs {
		b, err := os.ReadFile(filepath.Join("..", "..", "lockfile", "testdata", "yarn", dir, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(root, dir, "package.json"), string(b))
	}
	f := &lockFixture{root: root, name: "yarn.lock", warn: &bytes.Buffer{}}
	f.c = f.open(t, testdir.New(t), dryRun)
	b, err := os.ReadFile(filepath.Join("..", "..", "lockfile", "testdata", "yarn", "yarn.lock"))
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, string(b))
	return f
}

// open is a new run's cache on the store dir.
func (f *lockFixture) open(t *testing.T, dir string, dryRun bool) *Computer {
	t.Helper()
	c, err := newTestComputer(cacheOptions{Dir: dir, Root: f.root, Read: true, Write: !dryRun, DryRun: dryRun, Warn: f.warn, Projects: yarnDirs})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editManifest replaces old with new in dir's package.json.
func (f *lockFixture) editManifest(t *testing.T, dir, old, new string) {
	t.Helper()
	p := filepath.Join(f.root, dir, "package.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", p, old)
	}
	writeFile(t, p, strings.Replace(string(b), old, new, 1))
}

func (f *lockFixture) allLines(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range yarnDirs {
		out[dir] = f.lines(t, dir)
	}
	return out
}

// With its projects' manifests, yarn classic's yarn.lock is keyed by each
// project's closure: a bump misses only the projects whose closure holds
// the package (through their workspace dependencies: web -> ui), a bump
// of the root's dependency misses all.
func TestYarnClassicKeyPerProject(t *testing.T) {
	for _, tc := range []struct {
		what, from, to string
		changed        []string
	}{
		{"docs' left-pad", `left-pad/-/left-pad-1.3.0.tgz#5b8a3a7765dfe001261dde915589e782f8c94d1e"`, `left-pad/-/left-pad-1.3.0.tgz#0000000000000000000000000000000000000000"`, []string{"apps/docs"}},
		{"ui's is-number 6", "version \"6.0.0\"", "version \"6.0.1\"", []string{"apps/web", "packages/ui"}},
		{"the root's ms", "version \"2.1.3\"", "version \"2.1.4\"", yarnDirs},
		{"an entry nobody loads", "\nkind-of@^3.0.2:", "\nleft-pad@^1.0.0:\n  version \"1.3.0\"\n\nkind-of@^3.0.2:", nil},
	} {
		t.Run(tc.what, func(t *testing.T) {
			f := newYarnFixture(t, false)
			before := f.allLines(t)
			for dir, l := range before {
				if !strings.HasPrefix(l, "lockfile ") {
					t.Fatalf("%s: not keyed by its closure:\n%s", dir, l)
				}
			}
			if before["apps/web"] == before["apps/docs"] {
				t.Fatal("web and docs have one closure")
			}
			text := f.text(t)
			if !strings.Contains(text, tc.from) {
				t.Fatalf("yarn.lock has no %q", tc.from)
			}
			f.write(t, strings.Replace(text, tc.from, tc.to, 1))
			var changed []string
			for _, dir := range yarnDirs {
				if f.lines(t, dir) != before[dir] {
					changed = append(changed, dir)
				}
			}
			if strings.Join(changed, " ") != strings.Join(tc.changed, " ") {
				t.Errorf("changed %q, want %q", changed, tc.changed)
			}
			if f.warn.Len() > 0 {
				t.Errorf("warnings: %s", f.warn)
			}
		})
	}
}

// Without the projects (a cache that was not given them), yarn classic's
// yarn.lock is keyed by its bytes, as vx did before it read it.
func TestYarnClassicKeyWithoutProjects(t *testing.T) {
	f := newLockFixture(t, "yarn.lock", "yarn/yarn.lock", false)
	if got, want := f.lines(t, "apps/web"), string(fileLines([]InputFile{f.file(t)})); got != want {
		t.Errorf("lines %q, want the whole file's %q", got, want)
	}
}

// A manifest's range edited without yarn install (yarn.lock unchanged):
// the key holds what the lockfile resolves the new range to, never the
// memo's answer for the old one; a range with no entry keys the projects
// that reach it by the whole file, said once in a dry run.
func TestYarnClassicKeyManifestEdited(t *testing.T) {
	for _, tc := range []struct {
		what, dir, from, to string
		changed             []string // the projects whose line changes
		whole               []string // of them, those keyed by the whole file
		warn                string
	}{
		{"to another entry", "apps/docs", `"is-number": "7.0.0"`, `"is-number": "^6.0.0"`, []string{"apps/docs"}, nil, ""},
		{"to another spec of the same entry", "apps/docs", `"left-pad": "1.3.0"`, `"left-pad": "1.3.0", "js-tokens": "^3.0.0 || ^4.0.0"`, []string{"apps/docs"}, nil, ""},
		{"to no entry", "packages/ui", `"is-number": "^6.0.0"`, `"is-number": "^6.1.0"`, []string{"apps/web", "packages/ui"}, []string{"apps/web", "packages/ui"},
			`vx: yarn.lock: "packages/ui" depends on "is-number@^6.1.0", which the lockfile has no entry for (run yarn install): the tasks of apps/web hold the whole lockfile
vx: yarn.lock: "packages/ui" depends on "is-number@^6.1.0", which the lockfile has no entry for (run yarn install): the tasks of packages/ui hold the whole lockfile
`},
		{"a peer dependency", "apps/docs", `"dependencies"`, `"peerDependencies": {"react-dom": "^99"}, "dependencies"`, nil, nil, ""},
	} {
		t.Run(tc.what, func(t *testing.T) {
			f := newYarnFixture(t, false)
			before := f.allLines(t)
			f.c.Close()
			f.editManifest(t, tc.dir, tc.from, tc.to)
			for _, dryRun := range []bool{false, true} {
				// a new run, on the same store: the memo holds the closures of
				// the manifests as they were
				f.warn.Reset()
				f.c = f.open(t, f.c.storeDir(), dryRun)
				whole := string(fileLines([]InputFile{f.file(t)}))
				var changed, wholeDirs []string
				for _, dir := range yarnDirs {
					now := f.lines(t, dir)
					if now != before[dir] {
						changed = append(changed, dir)
					}
					if now == whole {
						wholeDirs = append(wholeDirs, dir)
					}
				}
				f.lines(t, "apps/web") // said once
				if strings.Join(changed, " ") != strings.Join(tc.changed, " ") {
					t.Errorf("dry run %v: changed %q, want %q", dryRun, changed, tc.changed)
				}
				if strings.Join(wholeDirs, " ") != strings.Join(tc.whole, " ") {
					t.Errorf("dry run %v: whole file for %q, want %q", dryRun, wholeDirs, tc.whole)
				}
				if want := map[bool]string{true: tc.warn}[dryRun]; f.warn.String() != want {
					t.Errorf("dry run %v: warnings:\n%s\nwant:\n%s", dryRun, f.warn, want)
				}
				f.c.Close()
			}
		})
	}
}

// A second run with the same lockfile and manifests takes the closures
// from the memo: it does not read the lockfile.
func TestYarnClassicKeyMemo(t *testing.T) {
	f := newYarnFixture(t, false)
	first := f.lines(t, "apps/web")
	f.c.Close()
	file := f.file(t)
	writeFile(t, filepath.Join(f.root, "yarn.lock"), "garbage")
	c2 := f.open(t, f.c.storeDir(), false)
	if got := string(c2.inputLines(&TaskSpec{ID: "web#build", RelDir: "apps/web"}, []InputFile{file})); got != first {
		t.Errorf("from the memo %q, want %q", got, first)
	}
}

// Yarn berry's yarn.lock lists its projects: the memo knows its closures
// by its content alone, and a warm run reads no manifest (here there is
// none to read).
func TestYarnBerryMemoWithoutManifests(t *testing.T) {
	f := newLockFixture(t, "yarn.lock", "berry/yarn.lock", false)
	c := f.open(t, f.c.storeDir(), false) // knows the projects; their package.json files are absent
	spec := &TaskSpec{ID: "web#build", RelDir: "apps/web"}
	first := string(c.inputLines(spec, []InputFile{f.file(t)}))
	if !strings.HasPrefix(first, "lockfile ") {
		t.Fatalf("not keyed by its closure: %q", first)
	}
	c.Close()
	for range 2 {
		c = f.open(t, f.c.storeDir(), false)
		if got := string(c.inputLines(spec, []InputFile{f.file(t)})); got != first {
			t.Errorf("warm run: %q, want %q", got, first)
		}
		if c.yarnWS.projects != nil || c.yarnWS.err != nil || c.yarnWS.digest != "" {
			t.Errorf("a warm run read the manifests")
		}
		c.Close()
	}
}

// BenchmarkYarnClassicManifests is what a warm run of a yarn classic
// workspace pays once for its lockfile besides the memo: reading and
// hashing every project's package.json (testdata/yarn, or the workspace at
// $VX_BENCH_YARN: its package.json files at any depth outside
// node_modules).
func BenchmarkYarnClassicManifests(b *testing.B) {
	root := os.Getenv("VX_BENCH_YARN")
	if root == "" {
		root = filepath.Join("..", "..", "lockfile", "testdata", "yarn")
	}
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if d.Name() == "package.json" {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		c := &Computer{opts: Options{Root: root, Projects: dirs}}
		if ws := c.yarnManifests(); ws.err != nil {
			b.Fatal(ws.err)
		}
	}
	b.ReportMetric(float64(len(dirs)), "projects")
}
