// Package quote owns how vx shows text it did not choose — project and task
// names, task ids, paths, scripts, a config's error messages ([Text]) — on
// a terminal or in a log. Such text
// comes from package.json files and directory names, which anyone can fill
// with control characters or escape sequences that would rewrite the
// terminal (erase a line, forge a task's output, retitle the window). Every
// place vx prints such a name goes through [Name] or [Q]; [Width] pads what
// they return.
package quote

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// safe reports whether s can be shown as it is: valid UTF-8 made only of
// printable characters (unicode.IsPrint: letters, marks, numbers,
// punctuation, symbols and the ASCII space). Control characters (escape,
// carriage return, newline, tab, C1 codes), formatting characters such as
// bidirectional overrides and zero-width joiners, line and paragraph
// separators, other spaces and unassigned code points are not.
func safe(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// Name returns s the way vx shows a name where it stands alone — a task
// prefix, a row of vx ls, the run summary, the path in front of an error:
// s itself when it is [safe] and holds no double quote, otherwise s in
// double quotes with Go escapes (strconv.Quote). So "a\x1b[2Kb" is shown as
// the 13 characters "a\x1b[2Kb" (with the quotes) and never reaches the
// terminal as an escape sequence, and a shown name that starts with a
// double quote is always an escaped one.
func Name(s string) string {
	if safe(s) && !strings.Contains(s, `"`) {
		return s
	}
	return strconv.Quote(s)
}

// Q returns s in double quotes, the way vx names a path or a name inside a
// message. When s is [safe] and holds no double quote it is quoted as it
// is, so a Windows path keeps single backslashes ("C:\repo\web"); otherwise
// it is quoted with Go escapes (strconv.Quote).
func Q(s string) string {
	if safe(s) && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return strconv.Quote(s)
}

// Text returns s the way vx shows a message it did not write (the text of
// an exception a config threw): s itself when it is [safe], double quotes
// and all, otherwise s in double quotes with Go escapes (strconv.Quote), so
// that a message holding newlines or escape sequences is shown on one
// line and cannot clear the screen or forge vx's output.
func Text(s string) string {
	if safe(s) {
		return s
	}
	return strconv.Quote(s)
}

// Width returns the number of terminal columns s takes when printed, for
// padding: East Asian wide and fullwidth characters (CJK, Hangul, most
// emoji) take two, combining marks and zero-width formatting characters
// none, every other character one. Invalid bytes count one each. Meant for
// text that [Name] or [Q] returned, which holds no control characters.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r == utf8.RuneError:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
