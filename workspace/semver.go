package workspace

import (
	"strconv"
	"strings"
)

// This file holds the part of node-semver that deciding a dependency edge
// needs: parsing a version, parsing a range, and asking whether one
// satisfies the other, with node-semver's rules (its "loose" parsing, and
// pre-release versions matching only comparators that name the same
// major.minor.patch). Nothing here is exported: it serves dependency
// resolution, not users.

// semVersion is a parsed version; build metadata is dropped, as node-semver
// ignores it in comparisons.
type semVersion struct {
	major, minor, patch int
	pre                 []string // pre-release identifiers; nil for a release
}

// parseVersion parses a full version "1.2.3", "v1.2.3", "=1.2.3",
// "1.2.3-beta.1+build". It reports false for anything else.
func parseVersion(s string) (semVersion, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimLeft(s, "=v")
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	var v semVersion
	core, pre, ok := splitPrerelease(s)
	if !ok {
		return v, false
	}
	v.pre = pre
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, false
	}
	nums := [3]*int{&v.major, &v.minor, &v.patch}
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return v, false
		}
		*nums[i] = n
	}
	return v, true
}

func isIdent(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-') {
			return false
		}
	}
	return true
}

// number parses a non-negative decimal of at most 15 digits.
func number(s string) (int, bool) {
	if s == "" || len(s) > 15 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func compareVersions(a, b semVersion) int {
	for _, d := range [3]int{a.major - b.major, a.minor - b.minor, a.patch - b.patch} {
		if d != 0 {
			if d < 0 {
				return -1
			}
			return 1
		}
	}
	switch {
	case a.pre == nil && b.pre == nil:
		return 0
	case a.pre == nil:
		return 1
	case b.pre == nil:
		return -1
	}
	for i := 0; i < len(a.pre) && i < len(b.pre); i++ {
		x, y := a.pre[i], b.pre[i]
		xn, xnum := number(x)
		yn, ynum := number(y)
		switch {
		case xnum && ynum:
			if xn != yn {
				if xn < yn {
					return -1
				}
				return 1
			}
		case xnum:
			return -1
		case ynum:
			return 1
		case x != y:
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a.pre) < len(b.pre):
		return -1
	case len(a.pre) > len(b.pre):
		return 1
	}
	return 0
}

// comparator is one "<op><version>" test; op is one of <, <=, >, >=, =.
type comparator struct {
	op string
	v  semVersion
}

func (c comparator) test(v semVersion) bool {
	d := compareVersions(v, c.v)
	switch c.op {
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	}
	return d == 0
}

// semRange is a parsed range: comparator sets joined by "||"; an empty set
// matches every version.
type semRange [][]comparator

// parseRange parses a node-semver range: "||" alternatives of
// space-separated comparators, hyphen ranges "1.2 - 2", the operators <,
// <=, >, >=, =, ~ (and ~>), ^, and x-ranges ("1.x", "1.*", "1", "*", "x",
// ""). It reports false when s is not a range (a dist-tag such as
// "latest", a URL, a path).
func parseRange(s string) (semRange, bool) {
	var r semRange
	for _, alt := range strings.Split(s, "||") {
		set, ok := parseComparatorSet(alt)
		if !ok {
			return nil, false
		}
		r = append(r, set)
	}
	return r, true
}

// partial is a version with possibly missing or wildcard parts: -1 for a
// missing part or "x", "X", "*".
type partial struct {
	major, minor, patch int
	pre                 []string
}

func parsePartial(s string) (partial, bool) {
	p := partial{major: -1, minor: -1, patch: -1}
	s = strings.TrimLeft(s, "=v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return p, true
	}
	core, pre, ok := splitPrerelease(s)
	if !ok {
		return p, false
	}
	p.pre = pre
	parts := strings.Split(core, ".")
	if len(parts) > 3 {
		return p, false
	}
	nums := [3]*int{&p.major, &p.minor, &p.patch}
	wild := false
	for i, part := range parts {
		if part == "x" || part == "X" || part == "*" {
			wild = true
			continue
		}
		if wild { // "1.x.3": node-semver rejects a number after a wildcard
			return p, false
		}
		n, ok := number(part)
		if !ok {
			return p, false
		}
		*nums[i] = n
	}
	if p.pre != nil && p.patch < 0 {
		return p, false
	}
	return p, true
}

func (p partial) version() semVersion {
	return semVersion{major: max(p.major, 0), minor: max(p.minor, 0), patch: max(p.patch, 0), pre: p.pre}
}

func parseComparatorSet(s string) ([]comparator, bool) {
	fields := strings.Fields(s)
	// Join an operator written apart from its version ("> 1.2", loose).
	var toks []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if isOperator(f) && i+1 < len(fields) {
			f += fields[i+1]
			i++
		}
		toks = append(toks, f)
	}
	if len(toks) == 3 && toks[1] == "-" {
		lo, ok1 := parsePartial(toks[0])
		hi, ok2 := parsePartial(toks[2])
		if !ok1 || !ok2 {
			return nil, false
		}
		var set []comparator
		if lo.major >= 0 {
			set = append(set, comparator{">=", lo.version()})
		}
		switch {
		case hi.major < 0:
		case hi.minor < 0:
			set = append(set, comparator{"<", semVersion{major: hi.major + 1, pre: []string{"0"}}})
		case hi.patch < 0:
			set = append(set, comparator{"<", semVersion{major: hi.major, minor: hi.minor + 1, pre: []string{"0"}}})
		default:
			set = append(set, comparator{"<=", hi.version()})
		}
		return set, true
	}
	var set []comparator
	for _, t := range toks {
		cs, ok := parseSimple(t)
		if !ok {
			return nil, false
		}
		set = append(set, cs...)
	}
	return set, true
}

func isOperator(s string) bool {
	switch s {
	case "<", "<=", ">", ">=", "=", "~", "~>", "^":
		return true
	}
	return false
}

// parseSimple expands one operator-and-partial token into comparators,
// as node-semver desugars ~, ^ and x-ranges.
func parseSimple(t string) ([]comparator, bool) {
	op := ""
	for _, o := range []string{"<=", ">=", "~>", "<", ">", "=", "~", "^"} {
		if strings.HasPrefix(t, o) {
			op, t = o, t[len(o):]
			break
		}
	}
	p, ok := parsePartial(t)
	if !ok {
		return nil, false
	}
	upper := func(v semVersion) comparator { v.pre = []string{"0"}; return comparator{"<", v} }
	switch op {
	case "~", "~>":
		switch {
		case p.major < 0:
			return nil, true
		case p.minor < 0:
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major + 1})}, true
		default:
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major, minor: p.minor + 1})}, true
		}
	case "^":
		switch {
		case p.major < 0:
			return nil, true
		case p.minor < 0:
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major + 1})}, true
		case p.patch < 0:
			if p.major == 0 {
				return []comparator{{">=", p.version()}, upper(semVersion{minor: p.minor + 1})}, true
			}
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major + 1})}, true
		case p.major > 0:
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major + 1})}, true
		case p.minor > 0:
			return []comparator{{">=", p.version()}, upper(semVersion{minor: p.minor + 1})}, true
		default:
			return []comparator{{">=", p.version()}, upper(semVersion{patch: p.patch + 1})}, true
		}
	case "", "=":
		switch {
		case p.major < 0:
			return nil, true
		case p.minor < 0:
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major + 1})}, true
		case p.patch < 0:
			return []comparator{{">=", p.version()}, upper(semVersion{major: p.major, minor: p.minor + 1})}, true
		}
		return []comparator{{"=", p.version()}}, true
	}
	// <, <=, >, >= with a partial version.
	if p.major < 0 {
		if op == "<" || op == ">" {
			return []comparator{{"<", semVersion{pre: []string{"0"}}}}, true // matches nothing
		}
		return nil, true
	}
	if p.minor >= 0 && p.patch >= 0 {
		return []comparator{{op, p.version()}}, true
	}
	v := p.version()
	switch op {
	case ">":
		if p.minor < 0 {
			v = semVersion{major: p.major + 1}
		} else {
			v = semVersion{major: p.major, minor: p.minor + 1}
		}
		return []comparator{{">=", v}}, true
	case "<=":
		if p.minor < 0 {
			v = semVersion{major: p.major + 1}
		} else {
			v = semVersion{major: p.major, minor: p.minor + 1}
		}
		return []comparator{upper(v)}, true
	case "<":
		return []comparator{upper(v)}, true
	}
	return []comparator{{op, v}}, true
}

// satisfies reports whether v is in r. A pre-release version satisfies a
// comparator set only when one of its comparators names a pre-release of
// the same major.minor.patch, unless includePrerelease is set.
func (r semRange) satisfies(v semVersion, includePrerelease bool) bool {
	for _, set := range r {
		if setSatisfies(set, v, includePrerelease) {
			return true
		}
	}
	return false
}

func setSatisfies(set []comparator, v semVersion, includePrerelease bool) bool {
	for _, c := range set {
		if !c.test(v) {
			return false
		}
	}
	if v.pre == nil || includePrerelease {
		return true
	}
	for _, c := range set {
		if c.v.pre != nil && c.v.major == v.major && c.v.minor == v.minor && c.v.patch == v.patch {
			// A "<X.Y.Z-0" bound made by desugaring ~ or ^ does not count
			// unless it names v's own tuple; node-semver's test is the same.
			return true
		}
	}
	return false
}

// splitPrerelease splits "1.2.3-rc.1" into its core "1.2.3" and its
// prerelease identifiers ["rc", "1"]; ok is false when an identifier is
// empty or holds a character semver does not allow.
func splitPrerelease(s string) (core string, pre []string, ok bool) {
	i := strings.IndexByte(s, '-')
	if i < 0 {
		return s, nil, true
	}
	pre = strings.Split(s[i+1:], ".")
	for _, id := range pre {
		if id == "" || !isIdent(id) {
			return "", nil, false
		}
	}
	return s[:i], pre, true
}
