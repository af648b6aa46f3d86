package cache

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

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
	if d != DigestOf([]byte("hello\n")) || !s.HasBlob(d) {
		t.Fatalf("PutBytes = %v, HasBlob = %v", d, s.HasBlob(d))
	}
	got, err := s.ReadBlob(d)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("ReadBlob = %q, %v", got, err)
	}
	if _, err := s.ReadBlob(DigestOf([]byte("other"))); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadBlob of a missing blob: %v, want ErrNotFound", err)
	}
	// A blob whose content was damaged in place is an error, never data.
	if err := os.WriteFile(s.BlobPath(d), []byte("jello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadBlob(d); !errors.Is(err, errCorrupt) {
		t.Errorf("ReadBlob of a damaged blob: %v, want errCorrupt", err)
	}
	// WriteBlob refuses content that does not match the digest.
	if _, err := s.WriteBlob(DigestOf([]byte("abc")), strings.NewReader("abd")); err == nil {
		t.Error("WriteBlob stored content that does not match its digest")
	}
	if s.HasBlob(DigestOf([]byte("abc"))) {
		t.Error("a mismatched blob is in the store")
	}
	// PutFile.
	src := testdir.New(t) + "/f"
	os.WriteFile(src, bytes.Repeat([]byte("x"), 100000), 0o644)
	fd, err := s.PutFile(src)
	if err != nil || fd != DigestOf(bytes.Repeat([]byte("x"), 100000)) {
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
	action := DigestOf([]byte("action"))
	if _, err := s.GetActionResult(action); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetActionResult of an empty store: %v", err)
	}
	res := (&ActionResult{StdoutDigest: DigestOf([]byte("x"))}).Marshal()
	if err := s.UpdateActionResult(action, res); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetActionResult(action)
	if err != nil || !bytes.Equal(got, res) {
		t.Fatalf("GetActionResult = %x, %v; want %x", got, err, res)
	}
	entry, _ := os.ReadFile(s.acPath(action))
	for name, damaged := range map[string][]byte{
		"truncated":     entry[:len(entry)-1],
		"cut at header": entry[:10],
		"empty":         {},
		"flipped byte":  append(append([]byte{}, entry[:len(entry)-1]...), entry[len(entry)-1]^1),
	} {
		os.WriteFile(s.acPath(action), damaged, 0o644)
		if _, err := s.GetActionResult(action); !errors.Is(err, errCorrupt) {
			t.Errorf("%s entry: GetActionResult error = %v, want errCorrupt", name, err)
		}
	}
}
