package cache

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/testdir"
)

func TestRootNeedles(t *testing.T) {
	tests := []struct {
		name, top, resolved, goos string
		want                      []string
	}{
		{"unix", "/home/me/repo", "", "linux", []string{"/home/me/repo"}},
		{"unix, behind a link", "/tmp/repo", "/private/tmp/repo", "darwin", []string{"/tmp/repo", "/private/tmp/repo"}},
		{"unix, resolved the same", "/src/a", "/src/a", "linux", []string{"/src/a"}},
		{"unix, a trailing slash", "/src/a/", "", "linux", []string{"/src/a"}},
		{"the file system's root is no needle", "/", "", "linux", nil},
		{"windows: both slashes, doubled backslashes, both drive cases", `C:\Users\me\repo`, "", "windows", []string{
			`C:\Users\me\repo`, `C:/Users/me/repo`, `C:\\Users\\me\\repo`,
			`c:\Users\me\repo`, `c:/Users/me/repo`, `c:\\Users\\me\\repo`}},
		{"windows: a drive's root is no needle", `D:\`, "", "windows", nil},
		{"windows: a UNC path", `\\server\share\repo`, "", "windows", []string{
			`\\server\share\repo`, `//server/share/repo`, `\\\\server\\share\\repo`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, rootNeedles(tt.top, tt.resolved, tt.goos)); diff != "" {
				t.Errorf("rootNeedles(%q, %q, %s) (-want +got):\n%s", tt.top, tt.resolved, tt.goos, diff)
			}
		})
	}
}

// TestHoldsAnyAcrossChunks: a needle is found wherever it lies, across
// the boundary of two chunks too.
func TestHoldsAnyAcrossChunks(t *testing.T) {
	needle := "/home/me/repo"
	tests := []struct {
		name string
		at   int // where the needle starts; -1: absent
		size int
		want bool
	}{
		{"empty", -1, 0, false},
		{"absent", -1, 3 * scanChunk, false},
		{"at the start", 0, 100, true},
		{"across the first boundary", scanChunk - 5, 2 * scanChunk, true},
		{"ending at the boundary", scanChunk - len(needle), 2 * scanChunk, true},
		{"starting at the boundary", scanChunk, 2 * scanChunk, true},
		{"across the second boundary", 2*scanChunk - 1, 3 * scanChunk, true},
		{"at the very end", 3*scanChunk - len(needle), 3 * scanChunk, true},
		{"cut by the end", 3*scanChunk - len(needle) + 1, 3 * scanChunk, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Repeat([]byte("x"), tt.size)
			if tt.at >= 0 {
				copy(b[tt.at:], needle)
			}
			got, err := holdsAny(bytes.NewReader(b), []string{"/other/path", needle})
			if err != nil || got != tt.want {
				t.Errorf("holdsAny = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// TestRootBoundEntries: one store, two checkouts of one project. A result
// that holds the absolute path of the checkout that made it, in an output
// or a log, is never restored in the other (a miss that says why), and is
// still a hit in its own; a result without it is shared.
func TestRootBoundEntries(t *testing.T) {
	store := testdir.New(t)
	base := testdir.New(t)
	rootA, rootB := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, r := range []string{rootA, rootB} {
		os.MkdirAll(filepath.Join(r, "p/dist"), 0o755)
		os.WriteFile(filepath.Join(r, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	}
	type task struct {
		name          string
		output, log   func(root string) string
		sharedBetween bool
	}
	tests := []task{
		{"an output holds the path", func(r string) string { return `{"sources":["` + r + `/p/src/a.ts"]}` }, nil, false},
		{"the log holds the path", func(string) string { return "ok" }, func(r string) string { return "cwd: " + r + "\n" }, false},
		{"neither holds it", func(string) string { return "ok" }, func(string) string { return "built\n" }, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build", string(rune('a' + i))}, Outputs: []string{"dist/**"}}
			var warn bytes.Buffer
			open := func(root string) (*Cache, *Key) {
				c, err := New(Options{Dir: store, Root: root, Read: true, Write: true, Warn: &warn})
				if err != nil {
					t.Fatal(err)
				}
				k, err := c.Key(spec)
				if err != nil {
					t.Fatal(err)
				}
				return c, k
			}
			build := func(root string) {
				c, k := open(root)
				os.WriteFile(filepath.Join(root, "p/dist/out.json"), []byte(tt.output(root)), 0o644)
				cp, err := c.NewCapture(k)
				if err != nil {
					t.Fatal(err)
				}
				if tt.log != nil {
					cp.Stdout.WriteString(tt.log(root))
				}
				c.Save(k, cp, filepath.Join(root, "p"))
				c.Close()
			}
			lookup := func(root string) (bool, string) {
				warn.Reset()
				c, k := open(root)
				defer c.Close()
				_, hit := c.Lookup(k)
				return hit, warn.String()
			}

			build(rootA)
			if hit, _ := lookup(rootA); !hit {
				t.Fatal("a miss in the checkout that stored the entry")
			}
			hit, msg := lookup(rootB)
			if hit != tt.sharedBetween {
				t.Fatalf("lookup from the other checkout: hit = %v, want %v", hit, tt.sharedBetween)
			}
			if !tt.sharedBetween {
				want := "vx: p#build: cache miss: its entry was stored from \"" + rootA + "\" and its outputs or logs hold that path, so it serves only that checkout\n"
				if diff := cmp.Diff(want, msg); diff != "" {
					t.Errorf("the note of the miss (-want +got):\n%s", diff)
				}
				// The other checkout stores its own; both hit theirs.
				build(rootB)
				for _, r := range []string{rootA, rootB} {
					if hit, msg := lookup(r); !hit {
						t.Errorf("after both stored, a miss in %s: %s", r, msg)
					}
				}
			}
		})
	}
}

// TestMarkerNeverRestored: the marker under a task's key is no entry a
// vx that does not know it would restore (a run that failed), and a
// marker whose blob is gone is a miss, not a hit of nothing.
func TestMarkerNeverRestored(t *testing.T) {
	store := testdir.New(t)
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	c, err := New(Options{Dir: store, Root: root, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := c.Key(&TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}})
	if err != nil {
		t.Fatal(err)
	}
	m, blob := markerResult("/elsewhere")
	c.store.PutBytes(blob)
	c.store.UpdateActionResult(k.Action, m.Marshal())
	data, _ := c.store.GetActionResult(k.Action)
	if _, err := c.checkResult(k, data); err == nil {
		t.Error("checkResult accepted a marker")
	}
	var be *BoundElsewhereError
	if _, err := c.readLocal(k); !errors.As(err, &be) || be.Root != "/elsewhere" {
		t.Errorf("readLocal of a marker: %v, want a *BoundElsewhereError of /elsewhere", err)
	}
	os.Remove(c.store.BlobPath(reapi.DigestOf(blob)))
	if _, err := c.readLocal(k); err == nil {
		t.Error("readLocal of a marker without its blob: a hit")
	}
}

// TestRootBoundNotUploaded: a root-bound entry stays in the local store.
func TestRootBoundNotUploaded(t *testing.T) {
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p/dist"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	remote := newFakeRemote()
	c, err := New(Options{Dir: testdir.New(t), Root: root, Read: true, Write: true, Remote: remote, RemoteWrite: true, EnvKey: PublicEnvKey()})
	if err != nil {
		t.Fatal(err)
	}
	k, err := c.Key(&TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "p/dist/a.txt"), []byte("made in "+root), 0o644)
	cp, _ := c.NewCapture(k)
	c.Save(k, cp, filepath.Join(root, "p"))
	c.Close()
	if remote.updates != 0 {
		t.Errorf("%d entries uploaded, want none", remote.updates)
	}
}

// BenchmarkHoldsAny: the search of what a task stores for the checkout's
// path (one needle on Unix, six on Windows), per byte stored.
func BenchmarkHoldsAny(b *testing.B) {
	data := bytes.Repeat([]byte("export const a = require('/home/me/other/x.js'); // some text\n"), (16<<20)/62)
	for _, goos := range []string{"linux", "windows"} {
		needles := rootNeedles(`/home/me/src/repo`, "", goos)
		if goos == "windows" {
			needles = rootNeedles(`C:\Users\me\src\repo`, "", goos)
		}
		b.Run(goos, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if found, _ := holdsAny(bytes.NewReader(data), needles); found {
					b.Fatal("found")
				}
			}
		})
	}
}

// TestSharedStoreNeverWrongHit: two checkouts run one task over and over
// at once against one store, the task writing its checkout's path into
// its output on some runs and not on others. Whatever the interleaving
// of stores, markers and lookups, a hit never restores the other
// checkout's path.
func TestSharedStoreNeverWrongHit(t *testing.T) {
	store := testdir.New(t)
	base := testdir.New(t)
	roots := []string{filepath.Join(base, "a"), filepath.Join(base, "b")}
	for _, r := range roots {
		os.MkdirAll(filepath.Join(r, "p/dist"), 0o755)
		os.WriteFile(filepath.Join(r, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	}
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}
	errs := make(chan error, 2)
	for i, root := range roots {
		other := roots[1-i]
		go func() {
			errs <- func() error {
				out := filepath.Join(root, "p/dist/out.txt")
				for n := range 30 {
					// The task's own output of the last round goes; every 4th round is --force.
					os.Remove(out)
					c, err := New(Options{Dir: store, Root: root, Read: n%4 != 3, Write: true})
					if err != nil {
						return err
					}
					k, err := c.Key(spec)
					if err != nil {
						return err
					}
					if h, ok := c.Lookup(k); ok {
						if err := c.Restore(h, filepath.Join(root, "p"), io.Discard, io.Discard); err == nil {
							if b, _ := os.ReadFile(out); strings.Contains(string(b), other) {
								c.Close()
								return errors.New("restored " + string(b) + " in " + root)
							}
						}
					} else {
						content := "made in " + root
						if n%8 == 3 {
							content = "plain"
						}
						cp, err := c.NewCapture(k)
						if err != nil {
							return err
						}
						os.WriteFile(out, []byte(content), 0o644)
						c.Save(k, cp, filepath.Join(root, "p"))
					}
					c.Close()
				}
				return nil
			}()
		}()
	}
	for range roots {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestRootBoundThroughLink: a checkout reached through a symbolic link
// whose task writes the resolved path (as node's __dirname and
// process.cwd() do) is root-bound too.
func TestRootBoundThroughLink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("skipped: symbolic links need a privilege on Windows")
	}
	base := testdir.New(t)
	real, link, other := filepath.Join(base, "real"), filepath.Join(base, "link"), filepath.Join(base, "other")
	for _, r := range []string{real, other} {
		os.MkdirAll(filepath.Join(r, "p/dist"), 0o755)
		os.WriteFile(filepath.Join(r, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	resolved, _ := filepath.EvalSymlinks(real)
	store := testdir.New(t)
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}
	c, err := New(Options{Dir: store, Root: link, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	k, _ := c.Key(spec)
	cp, _ := c.NewCapture(k)
	os.WriteFile(filepath.Join(link, "p/dist/a.txt"), []byte("dirname: "+resolved+"/p"), 0o644)
	c.Save(k, cp, filepath.Join(link, "p"))
	c.Close()
	c, err = New(Options{Dir: store, Root: other, Read: true, Write: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, _ = c.Key(spec)
	if _, hit := c.Lookup(k); hit {
		t.Error("an entry that holds the resolved path of the checkout behind a link was restored in another")
	}
}
