package jsconfig

import (
	"strconv"
	"strings"
)

// This file finds where, in the source of a config file, a key path of its
// default export was written: the object literal given to defineConfig or
// defineProject (or exported as it is, or through a const), read with a
// small tokenizer that knows strings, template literals, comments and
// regular expressions well enough to match brackets. What was not written
// out (a spread, a computed key, a value a function returned) is not found;
// the caller then points at the closest enclosing part that was.

// literal is a value written out in the source: an object or array
// literal with its parts, or any other expression (its start only).
type literal struct {
	start   int // offset of the value's first character
	keyAt   map[string]int
	members map[string]*literal
	elems   []*literal
}

// located is where a key path leads in the source.
type located struct {
	off   int  // offset in the source
	exact bool // the whole path was found
}

// locate returns where the key (key set) or value at path is written in
// src, or the closest enclosing value that is; ok is false when not even
// the exported object was found.
func locate(src []byte, path []any, key bool) (located, bool) {
	toks := tokenize(src)
	root := findRoot(toks)
	if root < 0 {
		return located{}, false
	}
	p := &litParser{toks: toks}
	p.i = root
	lit := p.value()
	cur := lit
	for i, k := range path {
		var next *literal
		switch k := k.(type) {
		case string:
			if cur.members != nil {
				next = cur.members[k]
				if next != nil && key && i == len(path)-1 {
					return located{off: cur.keyAt[k], exact: true}, true
				}
			}
		case int:
			if k >= 0 && k < len(cur.elems) {
				next = cur.elems[k]
			}
		}
		if next == nil || next.start < 0 { // absent, or a value cut off at the end of the source
			return located{off: cur.start}, true
		}
		cur = next
	}
	return located{off: cur.start, exact: true}, true
}

type tokKind int

const (
	tokPunct  tokKind = iota // one of {}[](),:;=. and the like
	tokIdent                 // identifiers and keywords
	tokString                // '...' or "..."
	tokOther                 // numbers, templates, regular expressions, operators
)

type token struct {
	kind tokKind
	text string // the punctuator, the identifier, or the string's value
	off  int
}

// tokenize splits JavaScript or TypeScript source into tokens, leaving out
// comments. It does not reject bad input: esbuild has read the file.
func tokenize(src []byte) []token {
	s := string(src)
	var toks []token
	// braces counts the open braces of each template substitution being
	// read, innermost last.
	var braces []int
	regexOK := func() bool {
		if len(toks) == 0 {
			return true
		}
		t := toks[len(toks)-1]
		switch t.kind {
		case tokIdent:
			switch t.text {
			case "return", "typeof", "case", "do", "else", "in", "instanceof", "new", "delete", "void", "throw", "yield", "await", "of":
				return true
			}
			return false
		case tokPunct:
			return t.text != ")" && t.text != "]" && t.text != "}"
		case tokString:
			return false
		}
		return false
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
			} else {
				i += j
			}
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += j + 4
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			toks = append(toks, token{tokString, unquote(s[i+1 : min(j, len(s))]), i})
			i = min(j+1, len(s))
		case c == '`' || c == '}' && len(braces) > 0 && braces[len(braces)-1] == 0:
			// A template, or the rest of one after a substitution.
			start := i
			if c == '}' {
				braces = braces[:len(braces)-1]
			}
			j, sub := i+1, false
			for j < len(s) && s[j] != '`' {
				if s[j] == '\\' {
					j += 2
					continue
				}
				if strings.HasPrefix(s[j:], "${") {
					braces = append(braces, 0)
					j, sub = j+2, true
					break
				}
				j++
			}
			if !sub && j < len(s) {
				j++ // the closing backquote
			}
			toks = append(toks, token{tokOther, "`", start})
			i = j
		case c == '/' && regexOK():
			j, class := i+1, false
			for j < len(s) && s[j] != '\n' {
				if s[j] == '\\' {
					j += 2
					continue
				}
				if s[j] == '[' {
					class = true
				} else if s[j] == ']' {
					class = false
				} else if s[j] == '/' && !class {
					break
				}
				j++
			}
			j++
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			toks = append(toks, token{tokOther, "/re/", i})
			i = min(j, len(s))
		case isIdentStart(c) || c >= 0x80:
			j := i
			for j < len(s) && (isIdentChar(s[j]) || s[j] >= 0x80) {
				j++
			}
			toks = append(toks, token{tokIdent, s[i:j], i})
			i = j
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && (isIdentChar(s[j]) || s[j] == '.') {
				j++
			}
			toks = append(toks, token{tokOther, s[i:j], i})
			i = j
		case strings.HasPrefix(s[i:], "..."):
			toks = append(toks, token{tokPunct, "...", i})
			i += 3
		case strings.HasPrefix(s[i:], "=>"):
			toks = append(toks, token{tokPunct, "=>", i})
			i += 2
		default:
			if len(braces) > 0 {
				switch c {
				case '{':
					braces[len(braces)-1]++
				case '}':
					braces[len(braces)-1]--
				}
			}
			toks = append(toks, token{tokPunct, string(c), i})
			i++
		}
	}
	return toks
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || '0' <= c && c <= '9' }

// unquote decodes the common escapes of a string literal's body.
func unquote(body string) string {
	if !strings.Contains(body, `\`) {
		return body
	}
	if s, err := strconv.Unquote(`"` + strings.ReplaceAll(body, `"`, `\"`) + `"`); err == nil {
		return s
	}
	return body
}

// findRoot returns the index of the "{" of the exported object: the
// argument of defineConfig( or defineProject(, the object after "export
// default", or the object a const exported by name was set to. -1 when
// there is none.
func findRoot(toks []token) int {
	at := func(i int, kind tokKind, text string) bool {
		return i < len(toks) && toks[i].kind == kind && toks[i].text == text
	}
	var objectAfter func(i int) int
	objectAfter = func(i int) int { // "{", "define...({", "({"
		for at(i, tokPunct, "(") {
			i++
		}
		if at(i, tokPunct, "{") {
			return i
		}
		if i < len(toks) && toks[i].kind == tokIdent && (toks[i].text == "defineConfig" || toks[i].text == "defineProject") {
			return objectAfter(i + 1)
		}
		return -1
	}
	for i := range toks {
		if !at(i, tokIdent, "export") || !at(i+1, tokIdent, "default") {
			continue
		}
		if r := objectAfter(i + 2); r >= 0 {
			return r
		}
		if i+2 < len(toks) && toks[i+2].kind == tokIdent {
			name := toks[i+2].text
			for j := range toks {
				if (at(j, tokIdent, "const") || at(j, tokIdent, "let") || at(j, tokIdent, "var")) && at(j+1, tokIdent, name) {
					k := j + 2
					if at(k, tokPunct, ":") { // a type annotation: skip to "="
						for k < len(toks) && !at(k, tokPunct, "=") {
							k++
						}
					}
					if at(k, tokPunct, "=") {
						if r := objectAfter(k + 1); r >= 0 {
							return r
						}
					}
				}
			}
		}
	}
	// No export default found by shape: the first defineConfig({ or
	// defineProject({.
	for i, t := range toks {
		if t.kind == tokIdent && (t.text == "defineConfig" || t.text == "defineProject") {
			if r := objectAfter(i + 1); r >= 0 {
				return r
			}
		}
	}
	return -1
}

type litParser struct {
	toks []token
	i    int
}

func (p *litParser) peek(text string) bool {
	return p.i < len(p.toks) && p.toks[p.i].kind == tokPunct && p.toks[p.i].text == text
}

// value reads the value at p.i: an object or array literal, or any other
// expression, skipped up to the "," or closing bracket that ends it.
func (p *litParser) value() *literal {
	if p.i >= len(p.toks) {
		return &literal{start: -1}
	}
	start := p.toks[p.i].off
	switch {
	case p.peek("{"):
		return p.object()
	case p.peek("["):
		return p.array()
	}
	p.skipExpr()
	return &literal{start: start}
}

func (p *litParser) object() *literal {
	lit := &literal{start: p.toks[p.i].off, keyAt: map[string]int{}, members: map[string]*literal{}}
	p.i++ // {
	for p.i < len(p.toks) && !p.peek("}") {
		at := p.i
		t := p.toks[p.i]
		switch {
		case p.peek("..."):
			p.i++
			p.skipExpr() // its keys are not written here; the ones that are stay the best guess
		case p.peek("["): // a computed key
			p.skipBalanced()
			p.skipMember()
		case t.kind == tokIdent || t.kind == tokString || t.kind == tokOther:
			p.i++
			if p.peek(":") {
				p.i++
				v := p.value()
				lit.keyAt[t.text], lit.members[t.text] = t.off, v
			} else if p.peek(",") || p.peek("}") { // shorthand: {tasks}
				lit.keyAt[t.text], lit.members[t.text] = t.off, &literal{start: t.off}
			} else {
				p.skipMember() // a method, a getter
			}
		default:
			p.skipMember()
		}
		if p.peek(",") {
			p.i++
		}
		if p.i == at { // a stray "]" or ")": step over it, or this never ends
			p.i++
		}
	}
	p.i++ // }
	return lit
}

func (p *litParser) array() *literal {
	lit := &literal{start: p.toks[p.i].off}
	p.i++ // [
	for p.i < len(p.toks) && !p.peek("]") {
		at := p.i
		if p.peek("...") {
			// Elements after a spread are at unknown indexes.
			p.skipExpr()
			for p.i < len(p.toks) && !p.peek("]") {
				if p.peek(",") {
					p.i++
					continue
				}
				from := p.i
				p.skipExpr()
				if p.i == from { // a stray "}" or ")"
					p.i++
				}
			}
			break
		}
		lit.elems = append(lit.elems, p.value())
		if p.peek(",") {
			p.i++
		}
		if p.i == at { // a stray "}" or ")": step over it, or this never ends
			p.i++
		}
	}
	p.i++ // ]
	return lit
}

// skipExpr skips tokens up to a "," or a closing bracket at depth 0.
func (p *litParser) skipExpr() {
	for p.i < len(p.toks) {
		if p.peek(",") || p.peek("}") || p.peek("]") || p.peek(")") {
			return
		}
		if p.peek("{") || p.peek("[") || p.peek("(") {
			p.skipBalanced()
			continue
		}
		p.i++
	}
}

// skipMember skips a member that is not "key: value".
func (p *litParser) skipMember() {
	p.skipExpr()
}

// skipBalanced skips a bracketed group starting at p.i.
func (p *litParser) skipBalanced() {
	depth := 0
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		p.i++
		if t.kind != tokPunct {
			continue
		}
		switch t.text {
		case "{", "[", "(":
			depth++
		case "}", "]", ")":
			depth--
			if depth == 0 {
				return
			}
		}
	}
}
