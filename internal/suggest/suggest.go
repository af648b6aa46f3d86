// Package suggest finds the name a user probably meant, for "did you mean"
// hints in vx's error messages.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate closest to word by edit distance, ignoring
// case, and whether one is close enough: at most a third of the
// candidate's characters (and at least one) must change. On a tie the
// earlier candidate wins.
func Closest(word string, candidates []string) (string, bool) {
	best, bestDist := "", -1
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := Distance(w, strings.ToLower(c))
		limit := max(1, utf8.RuneCountInString(c)/3)
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best, bestDist >= 0
}

// Distance is the optimal string alignment distance between a and b, in
// characters: the Levenshtein distance (insertions, deletions,
// substitutions) where swapping two adjacent characters also counts one,
// the commonest typo ("biuld" is one edit from "build").
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// three rows: i-2, i-1 and i
	prev2 := make([]int, len(rb)+1)
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
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
