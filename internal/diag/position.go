package diag

import (
	"bytes"
	"unicode/utf8"
)

// bom is UTF-8's byte order mark, which some editors put at the start of a
// file.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Position turns a byte offset of data into the 1-based line and 1-based
// column an [Error] shows: a line ends at "\n" ("\r" is a character of the
// line it ends, as editors count columns after a "\r\n" line), the column
// counts characters (UTF-8 sequences; an invalid byte is one), and a
// leading byte order mark is no character of line 1. An offset out of range
// is clamped to data; one inside the byte order mark is line 1, column 1.
// vx's one conversion: package.json, vx.json and vx.config.ts errors all go
// through it.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line, start := 1, 0
	if bytes.HasPrefix(data, bom) {
		start = min(len(bom), off)
	}
	head := data[start:off]
	line += bytes.Count(head, []byte{'\n'})
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[i+1:]
	}
	return line, utf8.RuneCount(head) + 1
}
