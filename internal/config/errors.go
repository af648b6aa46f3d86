package config

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Error is a problem in a vx.json file: a syntax error, an unknown key, a
// value of the wrong type or an invalid name. Every error [Parse] returns is
// an *Error; cmd/vx exits with status 2 for it.
//
// Its message has one shape:
//
//	config: "vx.json":3:9: unknown key "passthrough" in task "build"; did you mean "passThrough"?
type Error struct {
	Path string // the file's path, as given to Parse or built by Load
	Line int    // 1-based line
	Col  int    // 1-based column, counted in characters (a tab is one)
	Msg  string // what is wrong, with a suggestion when one is obvious
}

// Error returns "config: <quoted path>:<line>:<col>: <msg>".
func (e *Error) Error() string {
	return fmt.Sprintf("config: %s:%d:%d: %s", quotePath(e.Path), e.Line, e.Col, e.Msg)
}

// quotePath puts a path in double quotes. Paths made of printable characters
// are quoted as they are, so that a Windows path keeps single backslashes;
// others are quoted with Go escapes so nothing invisible reaches the terminal.
func quotePath(p string) string {
	for _, r := range p {
		if r == '"' || r == utf8.RuneError || !unicode.IsPrint(r) {
			return strconv.Quote(p)
		}
	}
	return `"` + p + `"`
}
