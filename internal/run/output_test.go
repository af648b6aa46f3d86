package run

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

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
		{"crlf split between writes", []string{"a\r", "\nb\n"}, "p a\r\np b\n"},
		{"bare cr ends a line", []string{"10%\r20%\r30%\n"}, "p 10%\rp 20%\rp 30%\n"},
		{"progress bar redraws", []string{"\r10%", "\r20%", "\r100%\n"}, "p \rp 10%\rp 20%\rp 100%\n"},
		{"empty cr lines kept", []string{"\r\r\rx\r\r\n"}, "p \rp \rp \rp x\rp \r\n"},
		{"cr then close", []string{"x\r"}, "p x\r\n"},
		{"cr, lf apart", []string{"x\r", "\n", "\n"}, "p x\r\np \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			stdout, _ := newOutput(&buf, &buf, false)
			w := newPrefixWriter(stdout, "p ")
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
	locked, _ := newOutput(dst, dst, false)
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
		stdout, _ := newOutput(discard{}, discard{}, false)
		w := newPrefixWriter(stdout, "web#build | ")
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

// TestOutputOneLockForBothStreams: stdout and stderr often reach the same
// pipe (2>&1). A write to one must never overlap a write to the other, or
// a long line and a short one interleave.
func TestOutputOneLockForBothStreams(t *testing.T) {
	dst := &overlapWriter{}
	stdout, stderr := newOutput(dst, dst, false)
	long := strings.Repeat("L", 8000) + "\n"
	var wg sync.WaitGroup
	for i, lw := range []*lockedWriter{stdout, stderr, stdout, stderr} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newPrefixWriter(lw, fmt.Sprintf("t%d | ", i))
			for range 200 {
				w.Write([]byte(long))
			}
			w.Close()
		}()
	}
	wg.Wait()
	if dst.overlaps.Load() > 0 {
		t.Errorf("%d writes overlapped another write to the same destination", dst.overlaps.Load())
	}
}

// overlapWriter counts Writes that start while another is in progress.
type overlapWriter struct {
	active, overlaps atomic.Int32
}

func (o *overlapWriter) Write(p []byte) (int, error) {
	if o.active.Add(1) > 1 {
		o.overlaps.Add(1)
	}
	time.Sleep(10 * time.Microsecond)
	o.active.Add(-1)
	return len(p), nil
}

// TestPrefixWriterLongLine: a line longer than maxLine is written in pieces
// of at most maxLine bytes, the later ones under the continuation prefix,
// and the writer's buffer never grows past one piece.
func TestPrefixWriterLongLine(t *testing.T) {
	dst := &countingWriter{}
	stdout, _ := newOutput(dst, dst, false)
	w := newPrefixWriter(stdout, "t | ")
	chunk := []byte(strings.Repeat("x", 10000))
	total := 0
	for total < 5*maxLine+123 {
		w.Write(chunk)
		total += len(chunk)
		if c := cap(w.buf); c > 2*maxLine {
			t.Fatalf("buffer capacity %d after %d bytes without a newline; want it bounded", c, total)
		}
	}
	w.Write([]byte("end\n"))
	w.Close()
	var got strings.Builder
	for i, s := range dst.writes {
		want := "t | "
		if i > 0 {
			want = "t + "
		}
		if !strings.HasPrefix(s, want) || !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
			t.Fatalf("write %d = %.40q..., want one line starting %q", i, s, want)
		}
		if len(s) > len(want)+maxLine+1 {
			t.Errorf("write %d is %d bytes, want at most %d", i, len(s), len(want)+maxLine+1)
		}
		got.WriteString(strings.TrimSuffix(s[len(want):], "\n"))
	}
	if want := strings.Repeat("x", total) + "end"; got.String() != want {
		t.Errorf("pieces joined = %d bytes, want %d", got.Len(), len(want))
	}
}

// TestPrefixWriterCutKeepsCharacters: a cut never splits a UTF-8 character.
func TestPrefixWriterCutKeepsCharacters(t *testing.T) {
	for _, lead := range []int{0, 1, 2, 3} {
		dst := &countingWriter{}
		stdout, _ := newOutput(dst, dst, false)
		w := newPrefixWriter(stdout, "| ")
		line := strings.Repeat("a", lead) + strings.Repeat("€", maxLine) // 3 bytes each
		w.Write([]byte(line + "\n"))
		var joined strings.Builder
		for _, s := range dst.writes {
			piece := strings.TrimSuffix(s[2:], "\n")
			if !utf8.ValidString(piece) {
				t.Fatalf("lead %d: a piece is not valid UTF-8: ...%q", lead, piece[len(piece)-4:])
			}
			joined.WriteString(piece)
		}
		if joined.String() != line {
			t.Errorf("lead %d: pieces do not join back to the line", lead)
		}
	}
}

// TestOutputCRLine: after a progress line ended by a bare \r, a line from
// another writer (or from vx) starts on a new line on a terminal, instead
// of overwriting it; in a pipe nothing is added, so each task's bytes can be
// rebuilt. The same writer redraws in place.
func TestOutputCRLine(t *testing.T) {
	for _, tt := range []struct {
		terminal bool
		want     string
	}{
		{true, "a | 10%\ra | 20%\r\nb | hello\na | done\r\nvx: summary\n"},
		{false, "a | 10%\ra | 20%\rb | hello\na | \na | done\r\nvx: summary\n"},
	} {
		var buf bytes.Buffer
		stdout, stderr := newOutput(&buf, &buf, tt.terminal)
		a, b := newPrefixWriter(stdout, "a | "), newPrefixWriter(stderr, "b | ")
		a.Write([]byte("10%\r"))
		a.Write([]byte("20%\r"))
		b.Write([]byte("hello\n"))
		a.Write([]byte("\n")) // the second half of "20%\r\n", after b's line
		a.Write([]byte("done\r"))
		a.Close()
		b.Close()
		fmt.Fprintln(stderr, "vx: summary")
		if diff := cmp.Diff(tt.want, buf.String()); diff != "" {
			t.Errorf("terminal %v: output mismatch (-want +got):\n%s", tt.terminal, diff)
		}
	}
}

func TestTaskPrefix(t *testing.T) {
	tests := []struct {
		ids  []string
		id   string
		want string
	}{
		{[]string{"web#build", "ui#b"}, "ui#b", "ui#b      | "},
		{[]string{"日本#build", "ui#build"}, "ui#build", "ui#build   | "},
		{[]string{"日本#build", "ui#build"}, "日本#build", "日本#build | "},
		{[]string{"e\u0301#b", "ab#b"}, "ab#b", "ab#b | "},
		{[]string{"x\x1b[2K\rFAKE#t", "a#t"}, "x\x1b[2K\rFAKE#t", `"x\x1b[2K\rFAKE#t" | `},
		{[]string{"x\x1b[2K\rFAKE#t", "a#t"}, "a#t", "a#t" + strings.Repeat(" ", 15) + " | "},
		{[]string{"bad\xff#t"}, "bad\xff#t", `"bad\xff#t" | `},
	}
	for _, tt := range tests {
		got := taskPrefix(tt.id, prefixWidth(tt.ids), 0, false)
		if got != tt.want {
			t.Errorf("taskPrefix(%q) among %q = %q, want %q", tt.id, tt.ids, got, tt.want)
		}
	}
}

func TestOutcomeCodeOutputFailure(t *testing.T) {
	o := Outcome{Total: 1, Started: 1, Failed: []string{"a#build"}, ExitCode: 0}
	if got := o.Code(); got != 1 {
		t.Errorf("Code() of a single task that exited 0 but failed = %d, want 1", got)
	}
	o = Outcome{Total: 1, Started: 1, Failed: []string{"a#build"}, ExitCode: 3}
	if got := o.Code(); got != 3 {
		t.Errorf("Code() of a single task that exited 3 = %d, want 3", got)
	}
}
