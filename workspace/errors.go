package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// ErrNoPackageJSON is wrapped by the error Discover returns when neither the
// start directory nor any directory above it holds a package.json.
var ErrNoPackageJSON = errors.New("no package.json found")

// A FileError reports a problem in a package.json or pnpm-workspace.yaml that
// Discover read: malformed JSON or YAML, a field of the wrong type, an invalid
// project name or workspace pattern.
//
// Its message reads
//
//	workspace: "packages/web/package.json": invalid JSON at line 3, column 9: invalid character ...
type FileError struct {
	// Path names the file: relative to the workspace root and slash-separated
	// for the projects' manifests, absolute for the files Discover read while
	// it was still looking for the root.
	Path string
	// Line and Column locate the problem, both 1-based; Column counts
	// characters, not bytes. Zero when unknown (YAML syntax errors carry a
	// line only).
	Line, Column int
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any (a *json.SyntaxError for malformed
	// JSON); its text follows Msg.
	Err error
}

func (e *FileError) Error() string {
	var b bytes.Buffer
	b.WriteString("workspace: ")
	b.WriteString(strconv.Quote(e.Path))
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ", column %d", e.Column)
		}
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *FileError) Unwrap() error { return e.Err }

// posError is a problem found while parsing a file's bytes, before the
// caller knows how to name the file. The caller turns it into a *FileError.
type posError struct {
	line, col int
	msg       string
	err       error
}

func (e *posError) Error() string {
	// Only seen if a posError escapes unnamed, which the callers prevent;
	// kept readable anyway.
	return (&FileError{Path: "?", Line: e.line, Column: e.col, Msg: e.msg, Err: e.err}).Error()
}

// fileError names the file a parse error came from. Other errors pass through.
func fileError(path string, err error) error {
	var pe *posError
	if errors.As(err, &pe) {
		return &FileError{Path: path, Line: pe.line, Column: pe.col, Msg: pe.msg, Err: pe.err}
	}
	return err
}

// lineCol converts a byte offset in data into a 1-based line and a 1-based
// column counted in characters. Offsets out of range are clamped.
func lineCol(data []byte, off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	if off > len(data) {
		off = len(data)
	}
	head := data[:off]
	line = 1 + bytes.Count(head, []byte{'\n'})
	start := bytes.LastIndexByte(head, '\n') + 1
	col = 1 + utf8.RuneCount(head[start:])
	return line, col
}
