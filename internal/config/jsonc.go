package config

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/vxrun/vx/internal/diag"
)

// This file holds a small parser for JSON with comments and trailing commas.
// It builds a tree of nodes that remember the byte offset where they start,
// so that the schema checks in decode.go can point at the exact line and
// column of a bad value. Offsets are turned into line and column only when an
// error is reported.

// maxDepth bounds the nesting of objects and arrays. vx.json needs four
// levels; the bound keeps deeply nested input from exhausting the stack.
const maxDepth = 64

// bom is the UTF-8 byte order mark some Windows editors put at the start.
var bom = []byte("\uFEFF")

type kind int

const (
	kindObject kind = iota
	kindArray
	kindString
	kindNumber
	kindBool
	kindNull
)

// node is one JSON value.
type node struct {
	kind    kind
	off     int      // byte offset of the value's first character
	str     string   // kindString: the decoded string; kindNumber: the literal
	boolean bool     // kindBool
	members []member // kindObject, in document order
	elems   []*node  // kindArray
}

// member is one key/value pair of an object.
type member struct {
	key    string
	keyOff int // byte offset of the key's opening quote
	val    *node
}

// describe names a node's kind with its article, for "found a string".
func (n *node) describe() string {
	switch n.kind {
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindBool:
		return "a boolean"
	default:
		return "null"
	}
}

// syntaxError is an error at a byte offset, before the file name and the line
// and column are known.
type syntaxError struct {
	off  int
	msg  string
	hint string // what to do instead, or ""
}

func errAt(off int, format string, args ...any) *syntaxError {
	return &syntaxError{off: off, msg: fmt.Sprintf(format, args...)}
}

func errHint(off int, hint, format string, args ...any) *syntaxError {
	return &syntaxError{off: off, msg: fmt.Sprintf(format, args...), hint: hint}
}

type parser struct {
	data  []byte
	i     int
	depth int
}

// parseJSONC parses data. It returns a nil node and no error when data holds
// nothing but whitespace and comments.
func parseJSONC(data []byte) (*node, *syntaxError) {
	if off := invalidUTF8(data); off >= 0 {
		return nil, errAt(off, "invalid UTF-8 byte 0x%02x; the file must be UTF-8", data[off])
	}
	p := &parser{data: data}
	if bytes.HasPrefix(data, bom) {
		p.i = len(bom)
	}
	if err := p.skipSpace(); err != nil {
		return nil, err
	}
	if p.i == len(p.data) {
		return nil, nil
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.skipSpace(); err != nil {
		return nil, err
	}
	if p.i < len(p.data) {
		return nil, errAt(p.i, "unexpected %s after the end of the top-level value", p.describeNext())
	}
	return n, nil
}

// invalidUTF8 returns the offset of the first byte that is not valid UTF-8,
// or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// skipSpace skips JSON whitespace and comments.
func (p *parser) skipSpace() *syntaxError {
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.data) && p.data[p.i+1] == '/':
			end := bytes.IndexByte(p.data[p.i:], '\n')
			if end < 0 {
				p.i = len(p.data)
			} else {
				p.i += end + 1
			}
		case c == '/' && p.i+1 < len(p.data) && p.data[p.i+1] == '*':
			end := bytes.Index(p.data[p.i+2:], []byte("*/"))
			if end < 0 {
				return errAt(p.i, "unterminated /* comment")
			}
			p.i += 2 + end + 2
		default:
			return nil
		}
	}
	return nil
}

// describeNext names what is at the current offset, for "unexpected ..."
// messages.
func (p *parser) describeNext() string {
	if p.i >= len(p.data) {
		return "end of file"
	}
	c := p.data[p.i]
	switch {
	case c == '"':
		return "string"
	case c == '-' || isDigit(c):
		return "number"
	case isWordByte(c):
		w := p.word()
		if len(w) > 24 {
			w = w[:24] + "..."
		}
		return strconv.Quote(w)
	}
	r, _ := utf8.DecodeRune(p.data[p.i:])
	return strconv.Quote(string(r))
}

// word returns the run of identifier-like bytes at the current offset.
func (p *parser) word() string {
	j := p.i
	for j < len(p.data) && isWordByte(p.data[j]) {
		j++
	}
	return string(p.data[p.i:j])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || c == '$'
}

// value parses one value at the current offset; leading space is already
// skipped.
func (p *parser) value() (*node, *syntaxError) {
	if p.i >= len(p.data) {
		return nil, errAt(p.i, "unexpected end of file; expected a value")
	}
	start := p.i
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &node{kind: kindString, off: start, str: s}, nil
	case c == '-' || isDigit(c):
		return p.number()
	case c == '\'':
		return nil, errAt(p.i, `unexpected "'"; strings must be in double quotes`)
	case isWordByte(c):
		switch w := p.word(); w {
		case "true", "false":
			p.i += len(w)
			return &node{kind: kindBool, off: start, boolean: w == "true"}, nil
		case "null":
			p.i += len(w)
			return &node{kind: kindNull, off: start}, nil
		}
		return nil, errAt(p.i, "unexpected %s; strings must be in double quotes", p.describeNext())
	}
	return nil, errAt(p.i, "unexpected %s; expected a value", p.describeNext())
}

func (p *parser) enter() *syntaxError {
	p.depth++
	if p.depth > maxDepth {
		return errAt(p.i, "values nested deeper than %d levels", maxDepth)
	}
	return nil
}

func (p *parser) object() (*node, *syntaxError) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &node{kind: kindObject, off: p.i}
	p.i++ // {
	seen := map[string]int{}
	for {
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return n, nil
		}
		if p.i >= len(p.data) {
			return nil, errAt(p.i, `unexpected end of file; expected a key or "}"`)
		}
		if c := p.data[p.i]; c != '"' {
			if isWordByte(c) || c == '\'' {
				return nil, errAt(p.i, "unexpected %s; keys must be strings in double quotes", p.describeNext())
			}
			return nil, errAt(p.i, `unexpected %s; expected a key or "}"`, p.describeNext())
		}
		keyOff := p.i
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if first, dup := seen[key]; dup {
			line, col := diag.Position(p.data, first)
			return nil, errAt(keyOff, "duplicate key %q (first at %d:%d)", key, line, col)
		}
		seen[key] = keyOff
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, errAt(p.i, `unexpected %s; expected ":" after key %q`, p.describeNext(), key)
		}
		p.i++
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{key: key, keyOff: keyOff, val: val})
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.i >= len(p.data) {
			return nil, errAt(p.i, `unexpected end of file; expected "," or "}"`)
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return n, nil
		default:
			return nil, errAt(p.i, `unexpected %s; expected "," or "}"`, p.describeNext())
		}
	}
}

func (p *parser) array() (*node, *syntaxError) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	n := &node{kind: kindArray, off: p.i}
	p.i++ // [
	for {
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return n, nil
		}
		if p.i < len(p.data) && p.data[p.i] == ',' {
			return nil, errAt(p.i, `unexpected ","; expected a value or "]"`)
		}
		val, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, val)
		if err := p.skipSpace(); err != nil {
			return nil, err
		}
		if p.i >= len(p.data) {
			return nil, errAt(p.i, `unexpected end of file; expected "," or "]"`)
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return n, nil
		default:
			return nil, errAt(p.i, `unexpected %s; expected "," or "]"`, p.describeNext())
		}
	}
}

// number checks the JSON number grammar and keeps the literal.
func (p *parser) number() (*node, *syntaxError) {
	start := p.i
	bad := func() *syntaxError {
		j := p.i
		for j < len(p.data) && (isWordByte(p.data[j]) || strings.IndexByte("+-.", p.data[j]) >= 0) {
			j++
		}
		return errAt(start, "invalid number %q", string(p.data[start:max(j, p.i)]))
	}
	digits := func() int {
		j := p.i
		for p.i < len(p.data) && isDigit(p.data[p.i]) {
			p.i++
		}
		return p.i - j
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.data) && p.data[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, bad()
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, bad()
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, bad()
		}
	}
	if p.i < len(p.data) && (isWordByte(p.data[p.i]) || p.data[p.i] == '.') {
		return nil, bad()
	}
	return &node{kind: kindNumber, off: start, str: string(p.data[start:p.i])}, nil
}

// str decodes the string whose opening quote is at the current offset.
func (p *parser) str() (string, *syntaxError) {
	start := p.i
	p.i++ // "
	var b strings.Builder
	for {
		if p.i >= len(p.data) {
			return "", errAt(start, "unterminated string")
		}
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\n' || c == '\r':
			return "", errAt(start, "unterminated string")
		case c < 0x20:
			return "", errAt(p.i, `control character U+%04X in a string; write it as an escape such as "\u%04x"`, c, c)
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

// escape decodes the escape sequence at the current offset (a backslash).
func (p *parser) escape() (rune, *syntaxError) {
	start := p.i
	if p.i+1 >= len(p.data) {
		return 0, errAt(start, "unterminated string")
	}
	c := p.data[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return 0, errAt(start, `invalid escape; "\u" needs four hexadecimal digits`)
		}
		if !utf16.IsSurrogate(r) {
			return r, nil
		}
		if r < 0xDC00 && p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
			save := p.i
			p.i += 2
			if r2, ok := p.hex4(); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return dec, nil
				}
			}
			p.i = save
		}
		return 0, errAt(start, `invalid escape; "\u%04x" is half of a UTF-16 surrogate pair`, r)
	}
	if c >= utf8.RuneSelf || c < 0x20 {
		return 0, errAt(start, `invalid escape "\"; valid escapes are \" \\ \/ \b \f \n \r \t \uXXXX`)
	}
	return 0, errAt(start, `invalid escape "\%c"; valid escapes are \" \\ \/ \b \f \n \r \t \uXXXX`, c)
}

// hex4 reads four hexadecimal digits.
func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.data) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}
