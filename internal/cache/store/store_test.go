package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/testdir"
)

func TestStoreBlobs(t *testing.T) {
	s, err := OpenStore(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.PutBytes([]byte("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d != reapi.DigestOf([]byte("hello\n")) || !s.HasBlob(d) {
		t.Fatalf("PutBytes = %v, HasBlob = %v", d, s.HasBlob(d))
	}
	got, err := s.ReadBlob(d)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("ReadBlob = %q, %v", got, err)
	}
	if _, err := s.ReadBlob(reapi.DigestOf([]byte("other"))); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadBlob of a missing blob: %v, want ErrNotFound", err)
	}
	// A blob whose content was damaged in place is an error, never data.
	if err := os.WriteFile(s.BlobPath(d), []byte("jello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadBlob(d); !errors.Is(err, ErrCorrupt) {
		t.Errorf("ReadBlob of a damaged blob: %v, want ErrCorrupt", err)
	}
	// WriteBlob refuses content that does not match the digest.
	if _, err := s.WriteBlob(reapi.DigestOf([]byte("abc")), strings.NewReader("abd")); err == nil {
		t.Error("WriteBlob stored content that does not match its digest")
	}
	if s.HasBlob(reapi.DigestOf([]byte("abc"))) {
		t.Error("a mismatched blob is in the store")
	}
	// PutFile.
	src := testdir.New(t) + "/f"
	os.WriteFile(src, bytes.Repeat([]byte("x"), 100000), 0o644)
	fd, err := s.PutFile(src)
	if err != nil || fd != reapi.DigestOf(bytes.Repeat([]byte("x"), 100000)) {
		t.Fatalf("PutFile = %v, %v", fd, err)
	}
	entries, _ := os.ReadDir(s.Dir + "/tmp")
	if len(entries) != 0 {
		t.Errorf("tmp/ holds %d files after the writes", len(entries))
	}
}

func TestStoreActionResults(t *testing.T) {
	s, err := OpenStore(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	action := reapi.DigestOf([]byte("action"))
	if _, err := s.GetActionResult(action); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetActionResult of an empty store: %v", err)
	}
	res := (&reapi.ActionResult{StdoutDigest: reapi.DigestOf([]byte("x"))}).Marshal()
	if err := s.UpdateActionResult(action, res); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetActionResult(action)
	if err != nil || !bytes.Equal(got, res) {
		t.Fatalf("GetActionResult = %x, %v; want %x", got, err, res)
	}
	entry, _ := os.ReadFile(s.EntryPath(action))
	for name, damaged := range map[string][]byte{
		"truncated":     entry[:len(entry)-1],
		"cut at header": entry[:10],
		"empty":         {},
		"flipped byte":  append(append([]byte{}, entry[:len(entry)-1]...), entry[len(entry)-1]^1),
	} {
		os.WriteFile(s.EntryPath(action), damaged, 0o644)
		if _, err := s.GetActionResult(action); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s entry: GetActionResult error = %v, want ErrCorrupt", name, err)
		}
	}
}

// writeTree writes files (path → content) under dir, every one 48 hours
// old: old enough for any prune.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	old := time.Now().Add(-48 * time.Hour)
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(abs, old, old)
	}
}

// checkTree fails the test when a file of files is gone or changed.
func checkTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || string(b) != content {
			t.Errorf("%s: %q, %v; want it untouched", p, b, err)
		}
	}
}

// TestStoreOnlyInItsOwnDirectory: vx makes its store in a directory that
// is absent or empty and marks it; it adopts the store of an older vx
// (exactly its layout); it refuses any other directory that holds files,
// whatever subdirectories it has, and then neither writes nor prunes
// there.
func TestStoreOnlyInItsOwnDirectory(t *testing.T) {
	hash := func(s string) string { return reapi.DigestOf([]byte(s)).Hash }
	a, b := hash("a"), hash("b")
	oldStore := map[string]string{
		"cas/" + a[:2] + "/" + a: "a",
		"ac/" + b[:2] + "/" + b:  acMagic + "entry",
		"tmp/w-123":              "partial",
		"memo":                   oldMemoMagic,
		"last-run":               "time 1\nhits 0\n",
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range oldStore {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name  string
		files map[string]string // nil: the directory does not exist
		ok    bool
	}{
		{"absent", nil, true},
		{"empty", map[string]string{}, true},
		{"only a half-written mark", map[string]string{markName: ""}, true},
		{"an older vx's store", oldStore, true},
		{"an older vx's store with only its directories", map[string]string{"cas/.keep": ""}, false},
		{"a home directory", map[string]string{".bashrc": "x", "notes/todo.txt": "y"}, false},
		{"a workspace with ac, cas and tmp of its own", map[string]string{"ac/report.txt": "r", "cas/x.bin": "x", "tmp/draft.txt": "d", "package.json": "{}"}, false},
		{"an older vx's layout plus a user file", with(map[string]string{"README": "mine"}), false},
		{"an older vx's layout plus a user file in tmp", with(map[string]string{"tmp/draft.txt": "mine"}), false},
		{"an older vx's layout plus a user file in cas", with(map[string]string{"cas/" + a[:2] + "/photo.jpg": "mine"}), false},
		{"a memo that is not vx's", with(map[string]string{"memo": "call the bank"}), false},
		{"a last-run that is not vx's", with(map[string]string{"last-run": "5km in 31 minutes"}), false},
		{"a mark with other content", map[string]string{markName: "my notes", "a.txt": "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(testdir.New(t), "store")
			if tt.files != nil {
				os.Mkdir(dir, 0o755)
				writeTree(t, dir, tt.files)
			}
			st, err := OpenStore(dir)
			var nse *NotStoreError
			if tt.ok {
				if err != nil {
					t.Fatalf("OpenStore: %v", err)
				}
				if !st.marked() {
					t.Error("the store is not marked")
				}
				if _, err := st.PutBytes([]byte("c")); err != nil {
					t.Error(err)
				}
				return
			}
			if !errors.As(err, &nse) || !strings.Contains(err.Error(), "--cache-dir") {
				t.Fatalf("OpenStore = %v, want a NotStoreError that says what to do", err)
			}
			s := &Store{Dir: dir}
			if _, err := s.Prune(PruneOptions{MaxSize: 1, MaxAge: time.Nanosecond, Grace: time.Nanosecond}); !errors.As(err, &nse) {
				t.Errorf("Prune = %v, want a NotStoreError", err)
			}
			if _, err := s.Status(); !errors.As(err, &nse) {
				t.Errorf("Status = %v, want a NotStoreError", err)
			}
			checkTree(t, dir, tt.files)
			if _, err := os.Lstat(filepath.Join(dir, markName)); err == nil && tt.files[markName] == "" {
				t.Error("a mark was written")
			}
		})
	}
}

// TestOldStoreAdopted: an older vx's store keeps its entries once adopted.
func TestOldStoreAdopted(t *testing.T) {
	dir := testdir.New(t)
	st, _ := OpenStore(dir)
	action := reapi.DigestOf([]byte("action"))
	res := (&reapi.ActionResult{}).Marshal()
	st.UpdateActionResult(action, res)
	os.Remove(filepath.Join(dir, markName)) // as an older vx left it
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.GetActionResult(action); err != nil || !bytes.Equal(got, res) {
		t.Errorf("GetActionResult after adoption = %x, %v", got, err)
	}
}

// TestPruneStaysInTheStore: in a store vx made, prune removes only files
// of the store's layout, and never through a symbolic link: a tmp, cas or
// ac (or one of their subdirectories) that leads elsewhere is left alone,
// and so is whatever else a user put in the store.
func TestPruneStaysInTheStore(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege on Windows")
	}
	h := reapi.DigestOf([]byte("x")).Hash
	outsideFiles := map[string]string{"w-draft": "w", "memo-1": "m", h: "x", h[:2] + "/" + h: "x"}
	for _, link := range []string{"tmp", "cas", "ac", "cas/" + h[:2], "ac/" + h[:2]} {
		t.Run(link, func(t *testing.T) {
			dir, outside := testdir.New(t), testdir.New(t)
			st, err := OpenStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			writeTree(t, outside, outsideFiles)
			p := filepath.Join(dir, filepath.FromSlash(link))
			testdir.RemoveTree(p)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.Symlink(outside, p); err != nil {
				t.Fatal(err)
			}
			stray := map[string]string{"cas/" + h[:2] + "/notes.txt": "mine", "tmp/draft.txt": "mine", "README": "mine"}
			if link == "tmp" || link == "cas" || link == "cas/"+h[:2] {
				stray = map[string]string{"README": "mine"}
			}
			writeTree(t, dir, stray)
			if _, err := st.Prune(PruneOptions{MaxSize: 1, MaxAge: time.Nanosecond, Grace: time.Nanosecond}); err != nil {
				t.Fatal(err)
			}
			checkTree(t, outside, outsideFiles)
			checkTree(t, dir, stray)
		})
	}
}

// TestOpenStoreConcurrently: vx processes that start at once on a new
// store (two worktrees sharing one) all open it; none takes the others'
// half-made store for a user's directory.
func TestOpenStoreConcurrently(t *testing.T) {
	base := testdir.New(t)
	for i := range 100 {
		dir := filepath.Join(base, strconv.Itoa(i))
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				_, err := OpenStore(dir)
				errs <- err
			}()
		}
		for range 4 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
		}
	}
}
