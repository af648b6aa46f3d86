package diag

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vxrun/vx/internal/quote"
)

// Error is a problem at a place in a file.
type Error struct {
	// Path names the file: absolute, or relative to the current directory.
	Path string
	// Line and Col locate the problem, both 1-based; Col counts characters
	// (a tab is one), not bytes. Zero when unknown: a YAML syntax error has
	// a line only, a file that cannot be used at all has neither.
	Line, Col int
	// Msg says what is wrong.
	Msg string
	// Suggest, when not "", says what to do instead: `did you mean "env"?`.
	Suggest string
	// Err, when not nil, is the cause (a *json.SyntaxError, an I/O error);
	// its text follows Msg after ": ", and Unwrap returns it.
	Err error
}

// Error returns "path:line:col: msg: err; suggest", leaving out the parts
// that are zero. The path is shown by quote.Name: quoted with Go escapes
// when it holds a character that is not printable (a control character,
// invalid UTF-8) or a double quote, so that nothing invisible reaches the
// terminal.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(quote.Name(e.Path))
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
		if e.Col > 0 {
			b.WriteString(":" + strconv.Itoa(e.Col))
		}
	}
	b.WriteString(": " + e.Msg)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.Suggest != "" {
		b.WriteString("; " + e.Suggest)
	}
	return b.String()
}

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// Message returns err's text as vx prints it. When err is an *Error (itself,
// not wrapped), its path is shown relative to dir (the current directory,
// absolute) if that is no longer than the absolute path: "vx.json" at the
// root, "../../vx.json" two levels down, an absolute path from elsewhere.
func Message(err error, dir string) string {
	e, ok := err.(*Error)
	if !ok || dir == "" || !filepath.IsAbs(e.Path) {
		return err.Error()
	}
	short := *e
	if rel, rerr := filepath.Rel(dir, e.Path); rerr == nil && len(rel) <= len(e.Path) {
		short.Path = rel
	}
	return short.Error()
}
