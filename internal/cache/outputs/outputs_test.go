package outputs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/testdir"
)

func TestCheckPaths(t *testing.T) {
	d := reapi.DigestOf([]byte("x"))
	out := []string{"dist/**"}
	tests := []struct {
		name string
		r    reapi.ActionResult
		bad  string // "" = accepted
	}{
		{"ok", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "dist/a.js", Digest: d}}, OutputSymlinks: []reapi.OutputSymlink{{Path: "dist/b", Target: "a.js"}}}, ""},
		{"link to a sibling directory", reapi.ActionResult{OutputSymlinks: []reapi.OutputSymlink{{Path: "dist/x/b", Target: "../y"}}}, ""},
		{"dotdot", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "dist/../../x", Digest: d}}}, "outside the project"},
		{"absolute", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "/etc/passwd", Digest: d}}}, "outside the project"},
		{"backslash", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: `dist\..\..\x`, Digest: d}}}, "outside the project"},
		{"drive", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "C:/x", Digest: d}}}, "outside the project"},
		{"not an output", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "src/index.ts", Digest: d}}}, "outputs do not match"},
		{"twice", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "dist/a", Digest: d}, {Path: "dist/a", Digest: d}}}, "twice"},
		{"file below a file", reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "dist/a", Digest: d}, {Path: "dist/a/b", Digest: d}}}, "below"},
		{"link escaping", reapi.ActionResult{OutputSymlinks: []reapi.OutputSymlink{{Path: "dist/x", Target: "../../../etc"}}}, "points outside"},
		{"absolute link", reapi.ActionResult{OutputSymlinks: []reapi.OutputSymlink{{Path: "dist/x", Target: "/etc/passwd"}}}, "points outside"},
	}
	for _, tt := range tests {
		err := CheckPaths(out, &tt.r)
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("%s: refused: %v", tt.name, err)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%s: error %v, want one saying %q", tt.name, err, tt.bad)
		}
	}
}

// TestRestoreOutputs restores over a project that holds stale and
// conflicting files, and checks modes and that setuid bits never come back.
func TestRestoreOutputs(t *testing.T) {
	st, _ := store.OpenStore(testdir.New(t))
	dir := testdir.New(t)
	a, _ := st.PutBytes([]byte("A"))
	b, _ := st.PutBytes([]byte("#!/bin/sh\n"))
	r := &reapi.ActionResult{OutputFiles: []reapi.OutputFile{
		{Path: "dist/a.txt", Digest: a, Mode: 0o640},
		{Path: "dist/bin/run", Digest: b, Executable: true, Mode: 0o4755},
	}}
	os.MkdirAll(filepath.Join(dir, "dist/old"), 0o755)
	os.WriteFile(filepath.Join(dir, "dist/old/stale.js"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("not an output"), 0o644)
	os.MkdirAll(filepath.Join(dir, "dist/a.txt"), 0o755) // a directory where a file goes
	if err := Restore(st, []string{"dist/**"}, r, dir, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "dist/a.txt"))
	if string(got) != "A" {
		t.Errorf("dist/a.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "dist/old/stale.js")); err == nil {
		t.Error("a stale output survived")
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
		t.Error("a file outside the outputs was removed")
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{"dist/a.txt": 0o640, "dist/bin/run": 0o755} {
			fi, err := os.Stat(filepath.Join(dir, p))
			if err != nil || fi.Mode()&(os.ModePerm|os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != want {
				t.Errorf("%s: mode %v, %v; want %v", p, fi.Mode(), err, want)
			}
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "dist"))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".vx-restore-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}

	// Outputs already in place are left as they are (not written again);
	// one of the same size but another content, or other permission bits,
	// is restored.
	inode := func(p string) uint64 {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return key.Inode(fi)
	}
	before := inode("dist/bin/run")
	os.WriteFile(filepath.Join(dir, "dist/a.txt"), []byte("Z"), 0o640)
	if err := Restore(st, []string{"dist/**"}, r, dir, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "dist/a.txt")); string(got) != "A" {
		t.Errorf("dist/a.txt of the same size, other content: %q after the restore, want %q", got, "A")
	}
	if runtime.GOOS != "windows" {
		if after := inode("dist/bin/run"); after != before {
			t.Errorf("dist/bin/run was in place and was written again (inode %d -> %d)", before, after)
		}
		os.Chmod(filepath.Join(dir, "dist/bin/run"), 0o644)
		if err := Restore(st, []string{"dist/**"}, r, dir, nil); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(filepath.Join(dir, "dist/bin/run")); fi.Mode().Perm() != 0o755 {
			t.Errorf("dist/bin/run made 0644: restored as %v, want 0755", fi.Mode().Perm())
		}
	}

	// A damaged blob: nothing of the project changes.
	os.WriteFile(st.BlobPath(b), []byte("#!/bin/sx\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "dist/bin/run"), []byte("edited"), 0o755)
	os.WriteFile(filepath.Join(dir, "dist/a.txt"), []byte("edited"), 0o644)
	err := Restore(st, []string{"dist/**"}, r, dir, nil)
	var be *BlobError
	if !errors.As(err, &be) || be.Digest != b {
		t.Fatalf("restore with a damaged blob: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "dist/a.txt")); string(got) != "edited" {
		t.Errorf("a failed restore changed dist/a.txt to %q", got)
	}
}

// TestRestoreKeepsExcludedFiles: an entry with a file where the project
// has a directory replaces the directory only when every file in it is an
// output: one the globs exclude ("!dist/out/notes.txt") makes the restore
// a refusal, and the project stays as it was.
func TestRestoreKeepsExcludedFiles(t *testing.T) {
	st, _ := store.OpenStore(testdir.New(t))
	a, _ := st.PutBytes([]byte("A"))
	r := &reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "dist/out", Digest: a}, {Path: "dist/b.txt", Digest: a}}}
	outputs := []string{"dist/**", "!dist/out/notes.txt"}
	tests := []struct {
		name  string
		files []string // under dist/out
		ok    bool
	}{
		{"only outputs in the directory", []string{"gen.js", "sub/x.js"}, true},
		{"an excluded file in it", []string{"gen.js", "notes.txt"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testdir.New(t)
			for _, f := range tt.files {
				p := filepath.Join(dir, "dist/out", filepath.FromSlash(f))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte("x"), 0o644)
			}
			err := Restore(st, outputs, r, dir, nil)
			var ce *ConflictError
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "dist/out")); string(got) != "A" {
					t.Errorf("dist/out = %q, want the entry's file", got)
				}
				return
			}
			want := `it would replace the directory "dist/out", which holds "dist/out/notes.txt", a file the outputs do not match`
			if !errors.As(err, &ce) || err.Error() != want {
				t.Errorf("restore error = %v, want a conflict: %s", err, want)
			}
			for _, f := range tt.files {
				if got, _ := os.ReadFile(filepath.Join(dir, "dist/out", f)); string(got) != "x" {
					t.Errorf("dist/out/%s is %q after a refused restore", f, got)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "dist/b.txt")); err == nil {
				t.Error("a refused restore wrote dist/b.txt")
			}
		})
	}
}

// TestRestoreRefusesSymlinkedParent: a restore never writes through a
// symbolic link in the project (it could lead anywhere).
func TestRestoreRefusesSymlinkedParent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows")
	}
	st, _ := store.OpenStore(testdir.New(t))
	dir, outside := testdir.New(t), testdir.New(t)
	os.Symlink(outside, filepath.Join(dir, "dist"))
	a, _ := st.PutBytes([]byte("A"))
	r := &reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "dist/a.txt", Digest: a}}}
	if err := Restore(st, []string{"dist/**"}, r, dir, nil); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("restore through a symlinked dist/: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "a.txt")); err == nil {
		t.Error("the restore wrote outside the project")
	}
}

// TestOutputsSkipTheStore: a store inside the project is never an output,
// so a restore does not remove it as a file the entry does not hold.
func TestOutputsSkipTheStore(t *testing.T) {
	dir := testdir.New(t)
	st, _ := store.OpenStore(filepath.Join(dir, ".vx-store"))
	a, _ := st.PutBytes([]byte("A"))
	r := &reapi.ActionResult{OutputFiles: []reapi.OutputFile{{Path: "out.txt", Digest: a}}}
	if err := Restore(st, []string{"**"}, r, dir, nil); err != nil {
		t.Fatal(err)
	}
	if !st.HasBlob(a) {
		t.Error("restoring outputs \"**\" removed the store's blobs")
	}
	got, err := collect(st, []string{"**"}, dir, nil)
	if err != nil || len(got.OutputFiles) != 1 {
		t.Errorf("collect with the store inside the project: %+v, %v", got, err)
	}
}

// TestRestoreLeftovers: the temporary files of a restore that was killed
// are never outputs, and the next restore removes them.
func TestRestoreLeftovers(t *testing.T) {
	st, _ := store.OpenStore(testdir.New(t))
	dir := testdir.New(t)
	os.MkdirAll(filepath.Join(dir, "dist/sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "dist/a.js"), []byte("a"), 0o644)
	leftovers := []string{"dist/.vx-restore-123", "dist/sub/.vx-restore-456"}
	for _, l := range leftovers {
		os.WriteFile(filepath.Join(dir, l), []byte("half"), 0o644)
	}
	// Outputs narrower than the directories that hold the leftovers.
	outputs := []string{"dist/**/*.js"}
	r, err := collect(st, outputs, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := collect(st, []string{"dist/**"}, dir, nil)
	for _, got := range []*reapi.ActionResult{r, r2} {
		if len(got.OutputFiles) != 1 || got.OutputFiles[0].Path != "dist/a.js" {
			t.Errorf("collected %+v, want dist/a.js alone", got.OutputFiles)
		}
	}
	if err := Restore(st, outputs, r, dir, nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range leftovers {
		if _, err := os.Lstat(filepath.Join(dir, l)); err == nil {
			t.Errorf("%s is still there after a restore", l)
		}
	}
}

// TestOutputsDigest: the digest changes with an output's content, its
// permission bits or a new output, and not with a file outside the
// outputs or under node_modules.
func TestOutputsDigest(t *testing.T) {
	dir := testdir.New(t)
	put := func(rel, content string, mode os.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	digest := func() string {
		d, err := Hash([]string{"dist/**", "!dist/**/*.map"}, dir, filepath.Join(dir, "node_modules", ".cache", "vx"))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	put("dist/a.js", "a", 0o644)
	d0 := digest()
	steps := []struct {
		what    string
		do      func()
		changed bool
	}{
		{"a source file", func() { put("src/a.ts", "x", 0o644) }, false},
		{"a map the globs leave out", func() { put("dist/a.js.map", "m", 0o644) }, false},
		{"node_modules", func() { put("dist/node_modules/x.js", "m", 0o644) }, false},
		{"the same content written again", func() { put("dist/a.js", "a", 0o644) }, false},
		{"an output's content", func() { put("dist/a.js", "b", 0o644) }, true},
		{"an output's mode", func() { put("dist/a.js", "b", 0o755) }, runtime.GOOS != "windows"}, // Windows has no executable bit
		{"a new output", func() { put("dist/sub/b.js", "b", 0o644) }, true},
	}
	for _, s := range steps {
		s.do()
		d := digest()
		if (d != d0) != s.changed {
			t.Errorf("%s: digest changed = %v, want %v", s.what, d != d0, s.changed)
		}
		d0 = d
	}
	if d, _ := Hash(nil, dir, ""); d != "" {
		t.Errorf("no outputs: %q, want \"\"", d)
	}
}
