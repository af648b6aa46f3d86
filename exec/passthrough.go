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
//   - An entry holding "*" is a pattern, "*" standing for any run of
//     characters ("NEXT_PUBLIC_*", "*_TOKEN", "APP_*_URL"): it becomes every
//     name in source that it matches as a whole, spelled as in source. A
//     pattern that matches nothing adds nothing. A bare "*" matches every
//     name; vx.json's parser (internal/config) refuses it because it would
//     undo the isolation.
//   - An entry starting with "!" excludes the names its rest matches (a
//     name or a pattern), whatever entry added them, as turbo's "!"
//     does: exclusions are applied after the other entries, in any order.
//   - Empty entries are ignored, and so are source entries without "=" or
//     whose name is empty or starts with "=" (Windows keeps per-drive current
//     directories in such hidden entries, like "=C:=C:\work").
//
// When goos is "windows", names and patterns match case-insensitively (each
// character upper-cased, as Windows and the exec package compare names) and
// names that differ only in case count as one: a plain name keeps the
// spelling written in vx.json, otherwise the first in sorted order is kept.
// Elsewhere case matters.
//
// The result is sorted (byte order) and holds each name once; it is nil when
// empty.
func ExpandPassThrough(patterns []string, source []string, goos string) []string {
	var plain, matched, excluded []string
	for _, p := range patterns {
		if rest, ok := strings.CutPrefix(p, "!"); ok {
			if rest != "" {
				excluded = append(excluded, EnvNameKey(rest, goos))
			}
			continue
		}
		if !strings.Contains(p, "*") {
			if p != "" {
				plain = append(plain, p)
			}
			continue
		}
		key := EnvNameKey(p, goos)
		for _, kv := range source {
			name, _, ok := strings.Cut(kv, "=")
			if !ok || name == "" {
				continue
			}
			if wildcardMatch(key, EnvNameKey(name, goos)) {
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
			if seen[key] {
				continue
			}
			seen[key] = true
			if slices.ContainsFunc(excluded, func(x string) bool { return wildcardMatch(x, key) }) {
				continue
			}
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// wildcardMatch reports whether name matches pattern as a whole, "*" in
// pattern standing for any run of characters (none included).
func wildcardMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(name, mid)
		if i < 0 {
			return false
		}
		name = name[i+len(mid):]
	}
	return len(name) >= len(last) && strings.HasSuffix(name, last)
}
