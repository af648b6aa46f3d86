package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vxrun/vx/internal/diag"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that Parse never panics, that every error is a *diag.Error
// pointing inside the file on a single line, and that what it accepts obeys
// the rules it enforces. The seed corpus is in testdata/fuzz/FuzzParse and
// runs with the ordinary tests; `go test -fuzz=FuzzParse ./internal/config`
// explores further.
func FuzzParse(f *testing.F) {
	example, err := os.ReadFile(filepath.Join("testdata", "example", FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Add([]byte(`{"tasks": {"build": {"env": {"passthrough": []}}}}`))
	f.Add([]byte("\uFEFF{\r\n\t/* c */\"tasks\": {\"a#b\": {\"dependsOn\": [\"^c\",],},},}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("vx.json", data)
		if err != nil {
			if c != nil {
				t.Fatalf("Parse returned a config and an error %v", err)
			}
			var ce *diag.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Parse error %v is %T, want *diag.Error", err, err)
			}
			lines := strings.Count(string(data), "\n") + 1
			if ce.Line < 1 || ce.Col < 1 || ce.Line > lines {
				t.Fatalf("Parse error %v: line %d, column %d outside a file of %d lines", err, ce.Line, ce.Col, lines)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !utf8.ValidString(msg) {
				t.Fatalf("Parse error %q is not one valid UTF-8 line", msg)
			}
			return
		}
		if c == nil || c.Tasks == nil || c.Path != "vx.json" {
			t.Fatalf("Parse = %+v, want a config with a non-nil Tasks map", c)
		}
		for key, task := range c.Tasks {
			if reason := checkTaskRef(key, false); reason != "" {
				t.Errorf("accepted task key %q: %s", key, reason)
			}
			for _, d := range task.DependsOn {
				if reason := checkTaskRef(d, true); reason != "" {
					t.Errorf("accepted dependsOn entry %q: %s", d, reason)
				}
			}
			for _, p := range task.PassThrough {
				if p == "" || p == "*" || strings.ContainsAny(p, "=\x00") || strings.Contains(strings.TrimSuffix(p, "*"), "*") {
					t.Errorf("accepted passThrough entry %q", p)
				}
			}
			for k, v := range task.Define {
				if k == "" || strings.ContainsAny(k, "=\x00") || strings.Contains(v, "\x00") {
					t.Errorf("accepted define %q=%q", k, v)
				}
			}
			if task.DependsOn != nil && len(task.DependsOn) == 0 || task.PassThrough != nil && len(task.PassThrough) == 0 ||
				task.Define != nil && len(task.Define) == 0 {
				t.Errorf("task %q has an empty non-nil list or map: %+v", key, task)
			}
		}
		again, err := Parse("vx.json", data)
		if err != nil {
			t.Fatalf("second Parse failed: %v", err)
		}
		if diff := cmp.Diff(c, again); diff != "" {
			t.Fatalf("Parse is not deterministic (-first +second):\n%s", diff)
		}
	})
}

// BenchmarkParse measures parsing the example file of issue 4.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "example", FileName))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse("vx.json", data); err != nil {
			b.Fatal(err)
		}
	}
}
