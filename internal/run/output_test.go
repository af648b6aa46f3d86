package run

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPrefixWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"whole lines", []string{"a\nb\n"}, "p a\np b\n"},
		{"split line", []string{"he", "llo\nwor", "ld\n"}, "p hello\np world\n"},
		{"partial last line flushed on close", []string{"x\ny"}, "p x\np y\n"},
		{"empty lines kept", []string{"\n\n"}, "p \np \n"},
		{"nothing", nil, ""},
		{"crlf kept", []string{"a\r\n"}, "p a\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			w := newPrefixWriter(&lockedWriter{w: &buf}, "p ")
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			w.Close()
			if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// countingWriter records every Write so the test can check that each one
// is exactly one whole line.
type countingWriter struct {
	writes []string
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes = append(c.writes, string(p))
	return len(p), nil
}

func TestPrefixWriterConcurrentWholeLines(t *testing.T) {
	dst := &countingWriter{}
	locked := &lockedWriter{w: dst}
	const writers, lines = 8, 500
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(i)))
			w := newPrefixWriter(locked, fmt.Sprintf("t%d | ", i))
			var all bytes.Buffer
			for j := range lines {
				fmt.Fprintf(&all, "line %d %s\n", j, strings.Repeat("x", r.Intn(300)))
			}
			data := all.Bytes()
			for len(data) > 0 {
				n := min(len(data), 1+r.Intn(97))
				w.Write(data[:n])
				data = data[n:]
			}
			w.Close()
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, s := range dst.writes {
		if strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") {
			t.Fatalf("a Write was not exactly one line: %q", s)
		}
		prefix, rest, _ := strings.Cut(s, " | ")
		var j int
		if _, err := fmt.Sscanf(rest, "line %d", &j); err != nil {
			t.Fatalf("bad line %q", s)
		}
		seen[prefix]++
	}
	for i := range writers {
		if got := seen[fmt.Sprintf("t%d", i)]; got != lines {
			t.Errorf("writer %d: %d lines, want %d", i, got, lines)
		}
	}
}

func BenchmarkPrefixWriter(b *testing.B) {
	var data bytes.Buffer
	for i := range 1000 {
		fmt.Fprintf(&data, "some build output line number %d with a little text\n", i)
	}
	b.SetBytes(int64(data.Len()))
	b.ReportAllocs()
	for b.Loop() {
		w := newPrefixWriter(&lockedWriter{w: discard{}}, "web#build | ")
		src := data.Bytes()
		for len(src) > 0 {
			n := min(len(src), 4096)
			w.Write(src[:n])
			src = src[n:]
		}
		w.Close()
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
