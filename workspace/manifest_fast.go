package workspace

import (
	"strings"
	"unicode/utf8"
)

// parseManifestFast reads a package.json without reflection or maps of
// raw values: about ten times faster than encoding/json on a typical
// manifest, which matters when a workspace has thousands. It is
// deliberately partial: it reports ok only for valid JSON whose fields vx
// reads have the expected types, with no NUL where parseManifestJSON
// forbids one, and whose strings hold plain UTF-8 (no invalid bytes, no
// escaped surrogates), with no top-level field vx reads given twice. Everything else, errors included, is left to
// parseManifestJSON, whose result it must equal when ok.
func parseManifestFast(data []byte) (m *manifest, ok bool) {
	s := &scan{data: data}
	s.space()
	if !s.consume('{') {
		return nil, false
	}
	m = &manifest{scripts: map[string]string{}}
	var seen uint16 // bits: the fields below already read
	const (
		seenName = 1 << iota
		seenVersion
		seenScripts
		seenWorkspaces
		seenPackageManager
		seenDeps // one bit per dependency field, from here
	)
	var deps []rawDep
	s.space()
	if !s.consume('}') {
		for {
			s.space()
			key, ok := s.str()
			if !ok {
				return nil, false
			}
			s.space()
			if !s.consume(':') {
				return nil, false
			}
			s.space()
			var bit uint16
			switch key {
			case "packageManager":
				bit = seenPackageManager
			case "name":
				bit = seenName
			case "version":
				bit = seenVersion
			case "scripts":
				bit = seenScripts
			case "workspaces":
				bit = seenWorkspaces
			default:
				for i, f := range depFields {
					if key == f {
						bit = seenDeps << i
					}
				}
			}
			if seen&bit != 0 {
				return nil, false // last one wins: leave it to encoding/json
			}
			seen |= bit
			switch {
			case bit == 0:
				if !s.value(0) {
					return nil, false
				}
			case s.null():
			case bit == seenName:
				if m.name, ok = s.str(); !ok || checkName(m.name) != nil {
					return nil, false
				}
			case bit == seenPackageManager:
				if m.packageManager, ok = s.str(); !ok {
					return nil, false
				}
			case bit == seenVersion:
				if m.version, ok = s.str(); !ok || strings.IndexByte(m.version, 0) >= 0 {
					return nil, false
				}
			case bit == seenScripts:
				if !s.object(func(k string) bool {
					v, ok := s.str()
					m.scripts[k] = v
					return ok && strings.IndexByte(k, 0) < 0 && strings.IndexByte(v, 0) < 0
				}) {
					return nil, false
				}
			case bit == seenWorkspaces:
				m.hasWorkspaces = true
				if s.peek('[') {
					if m.workspaces, ok = s.strings(); !ok {
						return nil, false
					}
					break
				}
				packages := false
				if !s.object(func(k string) bool {
					if k != "packages" {
						return s.value(1)
					}
					if packages {
						return false
					}
					packages = true
					if s.null() {
						return true
					}
					m.workspaces, ok = s.strings()
					return ok
				}) {
					return nil, false
				}
			default: // a dependency field
				rank := uint8(0)
				for i := range depFields {
					if bit == seenDeps<<i {
						rank = depRank[i]
					}
				}
				if !s.object(func(k string) bool {
					v, ok := s.str()
					deps = append(deps, rawDep{dep: dep{k, v}, rank: rank, seq: len(deps)})
					return ok
				}) {
					return nil, false
				}
			}
			s.space()
			if s.consume(',') {
				continue
			}
			if s.consume('}') {
				break
			}
			return nil, false
		}
	}
	s.space()
	if s.i != len(s.data) {
		return nil, false
	}
	m.deps = mergeDeps(deps)
	return m, true
}

// scan is a cursor over JSON text. Its methods report false on anything
// they do not accept, leaving the cursor anywhere.
type scan struct {
	data []byte
	i    int
}

// maxFastDepth bounds nesting in the fast path; deeper input goes to
// encoding/json.
const maxFastDepth = 64

func (s *scan) space() {
	for s.i < len(s.data) {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scan) peek(c byte) bool { return s.i < len(s.data) && s.data[s.i] == c }

func (s *scan) consume(c byte) bool {
	if s.peek(c) {
		s.i++
		return true
	}
	return false
}

func (s *scan) literal(lit string) bool {
	if len(s.data)-s.i >= len(lit) && string(s.data[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

// null consumes a null literal if one is next.
func (s *scan) null() bool { return s.literal("null") }

// str reads a string, decoding escapes.
func (s *scan) str() (string, bool) {
	if !s.consume('"') {
		return "", false
	}
	start := s.i
	// Fast path: no escapes, ASCII or valid UTF-8.
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			v := string(s.data[start:s.i])
			s.i++
			return v, true
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, size := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			s.i += size
		}
	}
	return "", false
}

// escaped finishes reading a string that has escapes, from its start.
func (s *scan) escaped(start int) (string, bool) {
	buf := append([]byte(nil), s.data[start:s.i]...)
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return string(buf), true
		case c == '\\':
			if s.i+1 >= len(s.data) {
				return "", false
			}
			e := s.data[s.i+1]
			s.i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				if len(s.data)-s.i < 4 {
					return "", false
				}
				var r rune
				for _, h := range s.data[s.i : s.i+4] {
					var d byte
					switch {
					case '0' <= h && h <= '9':
						d = h - '0'
					case 'a' <= h && h <= 'f':
						d = h - 'a' + 10
					case 'A' <= h && h <= 'F':
						d = h - 'A' + 10
					default:
						return "", false
					}
					r = r<<4 | rune(d)
				}
				if 0xD800 <= r && r <= 0xDFFF {
					return "", false // surrogates: leave the pairing rules to encoding/json
				}
				s.i += 4
				buf = utf8.AppendRune(buf, r)
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			s.i++
		default:
			r, size := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			buf = append(buf, s.data[s.i:s.i+size]...)
			s.i += size
		}
	}
	return "", false
}

// strings reads an array of strings; [] gives an empty, non-nil slice, as
// encoding/json does.
func (s *scan) strings() ([]string, bool) {
	if !s.consume('[') {
		return nil, false
	}
	out := []string{}
	s.space()
	if s.consume(']') {
		return out, true
	}
	for {
		s.space()
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		s.space()
		if s.consume(',') {
			continue
		}
		return out, s.consume(']')
	}
}

// object reads an object, calling member with the cursor on each value
// (after the colon and any space); member must consume the value.
func (s *scan) object(member func(key string) bool) bool {
	if !s.consume('{') {
		return false
	}
	s.space()
	if s.consume('}') {
		return true
	}
	for {
		s.space()
		k, ok := s.str()
		if !ok {
			return false
		}
		s.space()
		if !s.consume(':') {
			return false
		}
		s.space()
		if !member(k) {
			return false
		}
		s.space()
		if s.consume(',') {
			continue
		}
		return s.consume('}')
	}
}

// value checks and skips any JSON value, nested depth levels down.
func (s *scan) value(depth int) bool {
	if depth > maxFastDepth || s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		return s.object(func(string) bool { return s.value(depth + 1) })
	case c == '[':
		s.i++
		s.space()
		if s.consume(']') {
			return true
		}
		for {
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.consume(',') {
				continue
			}
			return s.consume(']')
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	}
	return false
}

// number checks and skips a JSON number.
func (s *scan) number() bool {
	s.consume('-')
	switch {
	case s.consume('0'):
	case s.digits() == 0:
		return false
	}
	if s.consume('.') && s.digits() == 0 {
		return false
	}
	if s.consume('e') || s.consume('E') {
		if !s.consume('+') {
			s.consume('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scan) digits() int {
	n := 0
	for s.i < len(s.data) && '0' <= s.data[s.i] && s.data[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// PackageBin reads the "name", "version" and "bin" of a package.json's
// bytes without reflection, for a short-lived vx that reads one installed
// package (its package manager's), where encoding/json's first use costs
// more than the file: bin is "bin"'s string, or its object's entry for
// binName. It agrees with encoding/json decoding into string fields and,
// for "bin", a map of strings or else a string; ok is false for what it
// leaves to encoding/json (invalid JSON, other types, a key given twice or
// in another case, escapes it cannot decode), and the caller then decodes
// data itself.
func PackageBin(data []byte, binName string) (name, version, bin string, ok bool) {
	s := &scan{data: data}
	s.space()
	seen := map[string]bool{}
	field := func(key string) bool {
		for _, f := range [...]string{"name", "version", "bin"} {
			if strings.EqualFold(key, f) {
				if key != f || seen[f] {
					return false // another case, or given twice: encoding/json's rules
				}
				seen[f] = true
				switch {
				case s.null():
					return true
				case f == "name":
					name, ok = s.str()
				case f == "version":
					version, ok = s.str()
				case s.peek('"'):
					bin, ok = s.str()
				default:
					ok = s.object(func(k string) bool {
						v, ok := s.str()
						if ok && k == binName {
							bin = v
						}
						return ok
					})
				}
				return ok
			}
		}
		return s.value(1)
	}
	if !s.object(field) {
		return "", "", "", false
	}
	s.space()
	if s.i != len(s.data) {
		return "", "", "", false
	}
	return name, version, bin, true
}
