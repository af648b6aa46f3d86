package key

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// lockFixture is a workspace root holding a lockfile from
// internal/lockfile/testdata (web depends on ui, ui on util).
type lockFixture struct {
	c    *Computer
	root string
	name string
	warn *bytes.Buffer
}

func newLockFixture(t testing.TB, name, fixture string, dryRun bool) *lockFixture {
	t.Helper()
	root := testdir.New(t)
	var warn bytes.Buffer
	c, err := newTestComputer(cacheOptions{Dir: testdir.New(t), Root: root, Read: true, Write: !dryRun, DryRun: dryRun, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	f := &lockFixture{c: c, root: root, name: name, warn: &warn}
	b, err := os.ReadFile(filepath.Join("..", "..", "lockfile", "testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, string(b))
	return f
}

func (f *lockFixture) write(t testing.TB, text string) InputFile {
	t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, f.name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f.file(t)
}

// file is the lockfile as a key's file list holds it (its git blob id).
func (f *lockFixture) file(t testing.TB) InputFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, f.name))
	if err != nil {
		t.Fatal(err)
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(b)) + "\x00"))
	h.Write(b)
	return InputFile{Path: f.name, ID: hex.EncodeToString(h.Sum(nil))}
}

func (f *lockFixture) text(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(f.root, f.name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lines returns the input list lines of the lockfile for a task of dir.
func (f *lockFixture) lines(t *testing.T, dir string) string {
	t.Helper()
	return string(f.c.inputLines(&TaskSpec{ID: dir + "#build", RelDir: dir}, []InputFile{f.file(t)}))
}

func TestLockfileKeyPerProject(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, bump, bumped string
	}{
		{"pnpm-lock.yaml", "pnpm-v9.yaml", "4.17.20", "4.17.21"},
		{"pnpm-lock.yaml", "pnpm-v6.yaml", "4.17.20", "4.17.21"},
		{"package-lock.json", "npm-v3.json", `"version": "4.17.20"`, `"version": "4.17.21"`},
		{"package-lock.json", "npm-v2.json", `"version": "4.17.20"`, `"version": "4.17.21"`},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			f := newLockFixture(t, tc.name, tc.fixture, false)
			before := map[string]string{}
			for _, dir := range []string{"apps/web", "packages/ui", "packages/util"} {
				before[dir] = f.lines(t, dir)
				if !strings.HasPrefix(before[dir], "lockfile ") || !strings.HasSuffix(before[dir], " \""+tc.name+"\"\n") {
					t.Fatalf("%s: lines:\n%s", dir, before[dir])
				}
			}
			hash := strings.Fields(before["apps/web"])[1]
			desc := string(f.c.closure(hash))
			if !strings.Contains(desc, "\npackage 4.17.15,4.17.20 ") || !strings.Contains(desc, `"lodash"`) {
				t.Errorf("web's lodash line, the alias's version too:\n%s", desc)
			}
			if got := f.st().BlobPath(Digest{Hash: hash}); !fileExists(got) {
				t.Errorf("the description is not in the store (%s)", got)
			}
			f.write(t, strings.ReplaceAll(f.text(t), tc.bump, tc.bumped))
			for dir, was := range before {
				now := f.lines(t, dir)
				if changed := now != was; changed != (dir == "apps/web") {
					t.Errorf("%s: lines changed %v after web's lodash bump:\n%s", dir, changed, now)
				}
			}
			if f.warn.Len() > 0 {
				t.Errorf("warnings: %s", f.warn)
			}
		})
	}
}

func TestLockfileKeyFallsBack(t *testing.T) {
	for _, tc := range []struct {
		what, name, text, dir, warn string
	}{
		{"unknown version", "pnpm-lock.yaml", "lockfileVersion: '5.4'\n", "apps/web",
			`vx: pnpm-lock.yaml: every task's key holds the whole lockfile, not its project's dependencies: lockfile: "pnpm-lock.yaml": lockfileVersion "5.4": lockfile: format not supported`},
		{"parse error", "package-lock.json", `{"lockfileVersion": 3, "packages": {`, "apps/web",
			`vx: package-lock.json: every task's key holds the whole lockfile, not its project's dependencies: lockfile: "package-lock.json": unexpected end of JSON input`},
		{"bun.lockb", "bun.lockb", "\x00\x01binary", "apps/web",
			`vx: bun.lockb: every task's key holds the whole lockfile, not its project's dependencies: vx does not read the binary bun.lockb (bun.lock, its text form, is read)`},
		{"no importer", "package-lock.json", `{"lockfileVersion": 3, "packages": {"": {}}}`, "apps/new",
			`vx: package-lock.json has no entry for apps/new: its tasks' keys hold the whole lockfile (run the package manager's install)`},
	} {
		t.Run(tc.what, func(t *testing.T) {
			f := newLockFixture(t, tc.name, "npm-v3.json", true)
			file := f.write(t, tc.text)
			want := string(fileLines([]InputFile{file}))
			for range 2 {
				if got := f.lines(t, tc.dir); got != want {
					t.Errorf("lines %q, want the whole file's %q", got, want)
				}
			}
			if got := f.warn.String(); got != tc.warn+"\n" {
				t.Errorf("warning (once):\n%s\nwant:\n%s", got, tc.warn)
			}
		})
	}
}

// A lockfile that changed since the file list was made is keyed whole: the
// key must hold what was listed.
func TestLockfileKeyChangedWhileRead(t *testing.T) {
	f := newLockFixture(t, "pnpm-lock.yaml", "pnpm-v9.yaml", false)
	listed := f.file(t)
	f.write(t, strings.ReplaceAll(f.text(t), "4.17.20", "4.17.21"))
	got := string(f.c.inputLines(&TaskSpec{ID: "web#build", RelDir: "apps/web"}, []InputFile{listed}))
	if want := string(fileLines([]InputFile{listed})); got != want {
		t.Errorf("lines %q, want %q", got, want)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// A second run (a new Cache on the same store) takes the closure from the
// memo: it does not read the lockfile, and its key is the same.
func TestLockfileMemo(t *testing.T) {
	f := newLockFixture(t, "pnpm-lock.yaml", "pnpm-v9.yaml", false)
	first := f.lines(t, "apps/web")
	f.c.Close()
	file := f.file(t)
	// The lockfile's bytes are gone; the content id stays the listed one.
	if err := os.WriteFile(filepath.Join(f.root, f.name), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	c2, err := newTestComputer(cacheOptions{Dir: f.c.storeDir(), Root: f.root, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(c2.inputLines(&TaskSpec{ID: "web#build", RelDir: "apps/web"}, []InputFile{file})); got != first {
		t.Errorf("from the memo %q, want %q", got, first)
	}
	// Its description pruned: computed again (from the lockfile, now
	// unreadable: the whole file).
	os.Remove(f.st().BlobPath(Digest{Hash: strings.Fields(first)[1]}))
	c3, err := newTestComputer(cacheOptions{Dir: f.c.storeDir(), Root: f.root, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(c3.inputLines(&TaskSpec{ID: "web#build", RelDir: "apps/web"}, []InputFile{file})), string(fileLines([]InputFile{file})); got != want {
		t.Errorf("description pruned: %q, want %q", got, want)
	}
}

// BenchmarkLockfileLineWarm is what a warm run pays per task for a
// lockfile vx reads: the closure's digest from the memo, and a stat of its
// description (docs/performance.md, "Lockfiles").
func BenchmarkLockfileLineWarm(b *testing.B) {
	f := newLockFixture(b, "pnpm-lock.yaml", "pnpm-v9.yaml", false)
	file := f.file(b)
	f.c.inputLines(&TaskSpec{ID: "web#build", RelDir: "apps/web"}, []InputFile{file})
	f.c.Close()
	c, err := newTestComputer(cacheOptions{Dir: f.c.storeDir(), Root: f.root, Read: true, Write: true})
	if err != nil {
		b.Fatal(err)
	}
	spec := &TaskSpec{ID: "web#build", RelDir: "apps/web"}
	for b.Loop() {
		c.inputLines(spec, []InputFile{file})
	}
}

// The closures of the workspace dependencies whose files the key holds
// (SourceDeps) are in it too, even when the lockfile does not link them
// (a stale lockfile): web lost its link to ui; ui's react is bumped.
func TestLockfileKeySourceDeps(t *testing.T) {
	f := newLockFixture(t, "pnpm-lock.yaml", "pnpm-v9.yaml", false)
	unlinked := strings.Replace(f.text(t), "      ui:\n        specifier: workspace:*\n        version: link:../../packages/ui\n", "", 1)
	if unlinked == f.text(t) {
		t.Fatal("the fixture's link from web to ui is not where the test expects it")
	}
	withSources := &TaskSpec{ID: "web#build", RelDir: "apps/web", SourceDeps: []string{"packages/ui"}}
	without := &TaskSpec{ID: "web#test", RelDir: "apps/web"}
	file := f.write(t, unlinked)
	a, b := f.c.inputLines(withSources, []InputFile{file}), f.c.inputLines(without, []InputFile{file})
	file = f.write(t, strings.ReplaceAll(unlinked, "18.2.0", "18.3.1"))
	if got := f.c.inputLines(withSources, []InputFile{file}); bytes.Equal(got, a) {
		t.Errorf("with ui as a source dependency: the line did not change after ui's react bump")
	}
	if got := f.c.inputLines(without, []InputFile{file}); !bytes.Equal(got, b) {
		t.Errorf("without: the line changed, but web's closure did not")
	}
}

// git's id of a lockfile checked out with CRLF line ends (core.autocrlf) is
// that of its LF form: the same lockfile, read by its closure.
func TestLockfileKeyCRLF(t *testing.T) {
	f := newLockFixture(t, "pnpm-lock.yaml", "pnpm-v9.yaml", false)
	lf := f.file(t)
	want := f.lines(t, "apps/web")
	f2 := newLockFixture(t, "pnpm-lock.yaml", "pnpm-v9.yaml", false)
	f2.write(t, strings.ReplaceAll(f.text(t), "\n", "\r\n"))
	got := string(f2.c.inputLines(&TaskSpec{ID: "web#build", RelDir: "apps/web"}, []InputFile{lf}))
	if got != want {
		t.Errorf("CRLF checkout: %q, want %q", got, want)
	}
}
