package config

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExpandPassThrough turns passThrough entries into the exact variable names
// to hand to the environment builder.
//
//   - A plain name is returned as written, whether or not source holds it:
//     the builder drops names the parent environment lacks, so "unset" stays
//     unset.
//   - An entry ending in "*" is a prefix: it becomes every name in source
//     (a list of "KEY=VALUE" entries) that starts with the prefix, spelled as
//     in source. A prefix that matches nothing adds nothing. "*" anywhere
//     else is an ordinary character. A bare "*" (an empty prefix) matches
//     every name; [Parse] refuses it in vx.json because it would undo the
//     isolation.
//   - Empty entries are ignored, and so are source entries without "=" or
//     whose name is empty or starts with "=" (Windows keeps per-drive current
//     directories in such hidden entries, like "=C:=C:\work").
//
// When goos is "windows", prefixes match case-insensitively (each character
// upper-cased, as Windows and the exec package compare names) and names that
// differ only in case count as one: a plain name keeps the spelling written
// in vx.json, otherwise the first in sorted order is kept. Elsewhere case
// matters.
//
// The result is sorted (byte order) and holds each name once; it is nil when
// empty.
func ExpandPassThrough(patterns []string, source []string, goos string) []string {
	fold := goos == "windows"
	var plain, matched []string
	for _, p := range patterns {
		prefix, isPattern := strings.CutSuffix(p, "*")
		if !isPattern {
			if p != "" {
				plain = append(plain, p)
			}
			continue
		}
		for _, kv := range source {
			name, _, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				continue
			}
			if hasPrefix(name, prefix, fold) {
				matched = append(matched, name)
			}
		}
	}
	slices.Sort(plain)
	slices.Sort(matched)
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]string{plain, matched} {
		for _, name := range list {
			key := name
			if fold {
				key = foldKey(name)
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// hasPrefix reports whether s starts with prefix. With fold set, characters
// are compared upper-cased one by one ([unicode.ToUpper]), as Windows
// compares variable names and as the exec package does.
func hasPrefix(s, prefix string, fold bool) bool {
	if !fold {
		return strings.HasPrefix(s, prefix)
	}
	for prefix != "" {
		if s == "" {
			return false
		}
		pr, pn := utf8.DecodeRuneInString(prefix)
		sr, sn := utf8.DecodeRuneInString(s)
		if pr == utf8.RuneError || sr == utf8.RuneError {
			// Invalid UTF-8 matches only itself, byte for byte.
			if prefix[:pn] != s[:sn] {
				return false
			}
		} else if unicode.ToUpper(pr) != unicode.ToUpper(sr) {
			return false
		}
		prefix, s = prefix[pn:], s[sn:]
	}
	return true
}

// foldKey maps names that Windows treats as one variable to one key. Invalid
// UTF-8 bytes are kept as they are, so they stay distinct.
func foldKey(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError {
			b.WriteString(s[:n])
		} else {
			b.WriteRune(unicode.ToUpper(r))
		}
		s = s[n:]
	}
	return b.String()
}
