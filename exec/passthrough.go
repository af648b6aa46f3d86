package exec

import (
	"slices"
	"strings"
)

// ExpandPassThrough turns passThrough entries into the exact variable names
// to hand to the environment builder
// ([EnvOptions.PassThrough]). The entries are vx.json's "passThrough"
// list; source is vx's own environment.
//
//   - A plain name is returned as written, whether or not source holds it:
//     the builder drops names the parent environment lacks, so "unset" stays
//     unset.
//   - An entry ending in "*" is a prefix: it becomes every name in source
//     (a list of "KEY=VALUE" entries) that starts with the prefix, spelled as
//     in source. A prefix that matches nothing adds nothing. "*" anywhere
//     else is an ordinary character. A bare "*" (an empty prefix) matches
//     every name; vx.json's parser (internal/config) refuses it because it would undo the
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
	var plain, matched []string
	for _, p := range patterns {
		prefix, isPattern := strings.CutSuffix(p, "*")
		if !isPattern {
			if p != "" {
				plain = append(plain, p)
			}
			continue
		}
		key := EnvNameKey(prefix, goos)
		for _, kv := range source {
			name, _, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				continue
			}
			if strings.HasPrefix(EnvNameKey(name, goos), key) {
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
			key := EnvNameKey(name, goos)
			if !seen[key] {
				seen[key] = true
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}
