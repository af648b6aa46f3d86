package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// suggest returns `; did you mean "<candidate>"?` for the candidate closest
// to key, or "" when none is close. Case is ignored when measuring, so
// "passthrough" finds "passThrough"; a candidate is close when at most a third
// of its characters (and at least one) must change.
func suggest(key string, candidates []string) string {
	best, bestDist := "", -1
	k := strings.ToLower(key)
	for _, c := range candidates {
		d := editDistance(k, strings.ToLower(c))
		limit := max(1, utf8.RuneCountInString(c)/3)
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	if bestDist < 0 {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b, in characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
