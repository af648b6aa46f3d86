package workspace

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Limits that keep a hostile pattern from costing more than a sane one.
const (
	maxAlternatives = 256 // brace expansions per pattern
	maxSegments     = 63  // path segments per pattern (one bit each, plus one, in a uint64)
)

// A patternSet holds a workspace's patterns, compiled, in declaration order.
// A directory is a member when the last pattern matching its path is a
// positive one (npm's rule: a later pattern re-includes what an earlier
// "!pattern" excluded).
type patternSet struct {
	alts []alternative // every brace alternative of every pattern, in order
}

// An alternative is one brace expansion of one pattern, split into segments.
type alternative struct {
	neg  bool
	segs []segment
}

// A segment matches one path element, or any number of them ("**").
type segment struct {
	globstar bool
	literal  bool   // glob holds no metacharacter: compare names directly
	glob     string // a path.Match pattern ("[!" already rewritten to "[^")
	dot      bool   // starts with a literal ".", so it may match hidden names
}

// matchState is where each alternative stands after the path elements seen
// so far: bit i set means segments[:i] matched them; bit len(segs) means the
// whole alternative did. It is built element by element as the tree walk
// descends, so matching a directory costs one step, not a whole path.
type matchState []uint64

var errOutside = errors.New("must stay inside the workspace root (no leading \"/\", no \"..\")")

// compilePatterns compiles workspace patterns. Each is a slash-separated glob
// relative to the root with "*", "?", "[...]" classes ("[!...]" and
// "[^...]" negate), "{a,b}" alternatives, "**" for any number of
// directories, "\" escaping the next character, and a leading "!" negating
// the whole pattern. "./" prefixes, trailing and doubled slashes are
// ignored; "" and "." name the root.
func compilePatterns(patterns []string) (*patternSet, error) {
	ps := &patternSet{}
	for _, p := range patterns {
		if err := ps.add(p); err != nil {
			return nil, fmt.Errorf("invalid workspace pattern %q: %w", p, err)
		}
	}
	return ps, nil
}

func (ps *patternSet) add(p string) error {
	neg := strings.HasPrefix(p, "!")
	if neg {
		p = p[1:]
	}
	if strings.HasPrefix(p, "/") {
		return errOutside
	}
	expanded, err := expandBraces(p)
	if err != nil {
		return err
	}
	for _, e := range expanded {
		var segs []segment
		for _, el := range strings.Split(e, "/") {
			switch el {
			case "", ".":
				continue
			case "..":
				return errOutside
			}
			s, err := compileSegment(el)
			if err != nil {
				return err
			}
			if s.globstar && len(segs) > 0 && segs[len(segs)-1].globstar {
				continue // "**/**" is "**"
			}
			segs = append(segs, s)
		}
		if len(segs) > maxSegments {
			return fmt.Errorf("more than %d path segments", maxSegments)
		}
		ps.alts = append(ps.alts, alternative{neg: neg, segs: segs})
	}
	return nil
}

func compileSegment(el string) (segment, error) {
	if el == "**" {
		return segment{globstar: true}, nil
	}
	s := segment{dot: el[0] == '.'}
	if !strings.ContainsAny(el, `*?[\`) {
		s.literal, s.glob = true, el
		return s, nil
	}
	s.glob = rewriteBang(el)
	if _, err := path.Match(s.glob, ""); err != nil {
		return s, errors.New("syntax error in pattern")
	}
	return s, nil
}

// rewriteBang turns the glob class negation "[!...]" into path.Match's
// "[^...]".
func rewriteBang(el string) string {
	b := []byte(el)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '[':
			if i+1 < len(b) && b[i+1] == '!' {
				b[i+1] = '^'
			}
			// Skip to the class's end so a "[" inside it is not a new class.
			j := i + 1
			if j < len(b) && b[j] == '^' {
				j++
			}
			if j < len(b) && b[j] == ']' {
				j++
			}
			for j < len(b) && b[j] != ']' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		}
	}
	return string(b)
}

// expandBraces expands "{a,b}" alternatives, nested ones included. A brace
// with no top-level comma, or no closing brace, is literal. Expansion stops
// with an error past maxAlternatives results.
func expandBraces(p string) ([]string, error) {
	out := []string{}
	var expand func(s string, from int) error
	expand = func(s string, from int) error {
		open, closing, commas := findBrace(s, from)
		if open < 0 {
			if len(out) >= maxAlternatives {
				return fmt.Errorf("more than %d alternatives", maxAlternatives)
			}
			out = append(out, s)
			return nil
		}
		prefix, suffix := s[:open], s[closing+1:]
		start := open + 1
		for _, c := range append(commas, closing) {
			if err := expand(prefix+s[start:c]+suffix, len(prefix)); err != nil {
				return err
			}
			start = c + 1
		}
		return nil
	}
	if err := expand(p, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// findBrace finds the first expandable brace group at or after from: the
// index of "{", of its matching "}", and of the commas at its top level.
// open is -1 when there is none.
func findBrace(s string, from int) (open, closing int, commas []int) {
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(s, i)
		case '{':
			depth := 0
			commas = commas[:0]
			for j := i; j < len(s); j++ {
				switch s[j] {
				case '\\':
					j++
				case '[':
					j = classEnd(s, j)
				case '{':
					depth++
				case '}':
					depth--
					if depth == 0 {
						if len(commas) > 0 {
							return i, j, commas
						}
						j = len(s) // "{a}" is literal: look for the next group
					}
				case ',':
					if depth == 1 {
						commas = append(commas, j)
					}
				}
			}
		}
	}
	return -1, -1, nil
}

// classEnd returns the index of the "]" closing the class opened at s[i], or
// i itself when the "[" opens no class.
func classEnd(s string, i int) int {
	j := i + 1
	if j < len(s) && (s[j] == '!' || s[j] == '^') {
		j++
	}
	if j < len(s) && s[j] == ']' {
		j++
	}
	for ; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case ']':
			return j
		}
	}
	return i
}

// start returns the state for the root directory, before any element.
func (ps *patternSet) start() matchState {
	st := make(matchState, len(ps.alts))
	for i, a := range ps.alts {
		st[i] = closure(a.segs, 1)
	}
	return st
}

// step returns the state for the child named name of the directory whose
// state is st, or nil when no alternative can match the child or anything
// below it.
func (ps *patternSet) step(st matchState, name string) matchState {
	var next matchState
	for i, a := range ps.alts {
		bits := st[i]
		if bits == 0 {
			continue
		}
		var nb uint64
		hidden := name[0] == '.'
		for j, s := range a.segs {
			if bits&(1<<j) == 0 {
				continue
			}
			if s.globstar {
				if !hidden {
					nb |= 1 << j
				}
			} else if s.match(name, hidden) {
				nb |= 1 << (j + 1)
			}
		}
		if nb == 0 {
			continue
		}
		if next == nil {
			next = make(matchState, len(ps.alts))
		}
		next[i] = closure(a.segs, nb)
	}
	return next
}

// closure adds the states reachable by letting "**" match no element.
func closure(segs []segment, bits uint64) uint64 {
	for j, s := range segs {
		if s.globstar && bits&(1<<j) != 0 {
			bits |= 1 << (j + 1)
		}
	}
	return bits
}

func (s *segment) match(name string, hidden bool) bool {
	if hidden && !s.dot {
		return false // "*", "?" and classes never match a leading "."
	}
	if s.literal {
		return s.glob == name
	}
	ok, _ := path.Match(s.glob, name)
	return ok
}

// eval reports whether the directory in state st is a member (the last
// alternative matching it is positive) and whether any positive alternative
// could match something below it.
func (ps *patternSet) eval(st matchState) (member, descend bool) {
	if st == nil {
		return false, false
	}
	for i, a := range ps.alts {
		bits := st[i]
		if bits == 0 {
			continue
		}
		n := len(a.segs)
		if bits&(1<<n) != 0 {
			member = !a.neg
		}
		if !a.neg && bits&(1<<n-1) != 0 {
			descend = true
		}
	}
	return member, descend
}

// match reports whether rel, a slash-separated path relative to the root,
// is a member. It is the tree walk's rule applied to a single path (tests and
// fuzzing use it).
func (ps *patternSet) match(rel string) bool {
	st := ps.start()
	if rel != "." && rel != "" {
		for _, el := range strings.Split(rel, "/") {
			if el == "" {
				return false
			}
			st = ps.step(st, el)
			if st == nil {
				return false
			}
		}
	}
	m, _ := ps.eval(st)
	return m
}
