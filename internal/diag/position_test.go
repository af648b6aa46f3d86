package diag

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPosition: lines end at "\n", columns count characters, a leading
// byte order mark is no character, offsets out of range are clamped.
func TestPosition(t *testing.T) {
	type pos struct{ Line, Col int }
	tests := []struct {
		name string
		data string
		off  int
		want pos
	}{
		{"start", "ab\nçd\n\nx", 0, pos{1, 1}},
		{"negative", "ab\nçd\n\nx", -5, pos{1, 1}},
		{"in line 1", "ab\nçd\n\nx", 2, pos{1, 3}},
		{"after a newline", "ab\nçd\n\nx", 3, pos{2, 1}},
		{"after a two-byte character", "ab\nçd\n\nx", 5, pos{2, 2}},
		{"empty line", "ab\nçd\n\nx", 7, pos{3, 1}},
		{"last line", "ab\nçd\n\nx", 8, pos{4, 1}},
		{"end", "ab\nçd\n\nx", 9, pos{4, 2}},
		{"past the end", "ab\nçd\n\nx", 100, pos{4, 2}},
		{"\\r is a character", "a\r\nb", 1, pos{1, 2}},
		{"after \\r\\n", "a\r\nb", 3, pos{2, 1}},
		{"byte order mark: no character", "\uFEFF{x}", 4, pos{1, 2}},
		{"byte order mark: first character", "\uFEFF{x}", 3, pos{1, 1}},
		{"inside the byte order mark", "\uFEFF{x}", 1, pos{1, 1}},
		{"byte order mark, line 2", "\uFEFF{\nx}", 5, pos{2, 1}},
		{"a byte order mark later is a character", "a\uFEFFb", 4, pos{1, 3}},
		{"invalid UTF-8: one a byte", "\xff\xfex", 2, pos{1, 3}},
		{"empty", "", 0, pos{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got pos
			got.Line, got.Col = Position([]byte(tt.data), tt.off)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Position(%q, %d) (-want +got):\n%s", tt.data, tt.off, diff)
			}
		})
	}
}
