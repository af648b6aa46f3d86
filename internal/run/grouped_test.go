package run

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// replayed is what a block replays, as "1:" (stdout) and "2:" (stderr)
// segments.
func replayed(t *testing.T, b *block) string {
	t.Helper()
	var out strings.Builder
	if err := b.replay(func(stderr bool, p []byte) error {
		fd := 1
		if stderr {
			fd = 2
		}
		fmt.Fprintf(&out, "%d:%s", fd, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestBlockKeepsOrderAndStreams(t *testing.T) {
	b := &block{}
	out, errw := blockStream{b, false}, blockStream{b, true}
	out.Write([]byte("one\n"))
	out.Write([]byte("two\n"))
	errw.Write([]byte("oops\n"))
	out.Write([]byte("three\n"))
	want := "1:one\ntwo\n2:oops\n1:three\n"
	if diff := cmp.Diff(want, replayed(t, b)); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if got := replayed(t, b); got != "" {
		t.Errorf("a second replay gives %q; a block is printed once", got)
	}
}

func TestBlockSpillsToDisk(t *testing.T) {
	// Past the memory bound the rest goes to a temporary file, which replay
	// reads back in order and then removes.
	tmp := testdir.New(t)
	t.Setenv("TMPDIR", tmp)
	t.Setenv("TMP", tmp)
	old := maxBlockMemory
	maxBlockMemory = 64
	defer func() { maxBlockMemory = old }()

	b := &block{}
	var want strings.Builder
	for i := 0; i < 100; i++ {
		line := fmt.Sprintf("line %d %s\n", i, strings.Repeat("x", i))
		stderr := i%7 == 0
		blockStream{b, stderr}.Write([]byte(line))
		fd := 1
		if stderr {
			fd = 2
		}
		fmt.Fprintf(&want, "%d:%s", fd, line)
	}
	if b.size > 64 || b.spill == nil {
		t.Fatalf("%d bytes held in memory, spill file %v; want at most 64 and a spill file", b.size, b.spill)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "vx-grouped-*"))
	if len(files) != 1 {
		t.Fatalf("spill files in TMPDIR: %q", files)
	}
	// Tag each line with its stream to compare.
	perLine := func(s string) []string {
		var lines []string
		fd := ""
		for _, l := range strings.SplitAfter(s, "\n") {
			if strings.HasPrefix(l, "1:") || strings.HasPrefix(l, "2:") {
				fd, l = l[:2], l[2:]
			}
			if l != "" {
				lines = append(lines, fd+l)
			}
		}
		return lines
	}
	if diff := cmp.Diff(perLine(want.String()), perLine(replayed(t, b))); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("the spill file %s is still there after replay: %v", files[0], err)
	}
}

func TestWriteBlock(t *testing.T) {
	tests := []struct {
		name    string
		group   bool
		wantOut string
		wantErr string
	}{
		{"plain", false, "a | out\n", "a | err\n"},
		{"folded for GitHub Actions", true, "::group::web#build\na | out\n::endgroup::\n", "a | err\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			b := &block{}
			blockStream{b, false}.Write([]byte("a | out\n"))
			blockStream{b, true}.Write([]byte("a | err\n"))
			o, e := newOutput(&stdout, &stderr, false)
			if err := writeBlock(o, e, "web#build", tt.group, b); err != nil {
				t.Fatal(err)
			}
			if stdout.String() != tt.wantOut || stderr.String() != tt.wantErr {
				t.Errorf("stdout %q, stderr %q; want %q, %q", stdout.String(), stderr.String(), tt.wantOut, tt.wantErr)
			}
		})
	}
}

func TestWriteBlockAfterProgressBar(t *testing.T) {
	// A persistent task's progress bar left its line open with a bare \r:
	// on a terminal the block starts on a new line rather than overwrite
	// it; in a pipe nothing is added.
	for _, terminal := range []bool{true, false} {
		var stdout, stderr bytes.Buffer
		o, e := newOutput(&stdout, &stderr, terminal)
		srv := new(int) // the streaming writer's identity
		o.write(srv, []byte("srv | 50%\r"))
		b := &block{}
		blockStream{b, false}.Write([]byte("a | 10%\ra | done\n"))
		if err := writeBlock(o, e, "a", false, b); err != nil {
			t.Fatal(err)
		}
		want := "srv | 50%\ra | 10%\ra | done\n"
		if terminal {
			want = "srv | 50%\r\na | 10%\ra | done\n"
		}
		if got := stdout.String(); got != want {
			t.Errorf("terminal=%v: stdout %q, want %q", terminal, got, want)
		}
	}
}
