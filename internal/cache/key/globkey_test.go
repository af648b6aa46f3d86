package key

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCanonicalGlobsKeepMeaning: the output globs enter the key in
// canonical form. A list and its form match the same paths; two lists of
// one form match the same paths (so an entry stored under one is restored
// under the other exactly as it was stored); random reorders that keep the
// form keep the key, and a list whose reorder matches other paths gets
// another key.
func TestCanonicalGlobsKeepMeaning(t *testing.T) {
	globs := []string{"dist/**", "!dist/keep.txt", "dist/*.js", "!dist/**/*.map", "dist/keep.txt", "lib/**",
		"!lib/x/**", "**/*.d.ts", "!**/*.d.ts", "dist", "!dist/a.js"}
	paths := []string{"dist/a.js", "dist/a.js.map", "dist/keep.txt", "dist/x/b.d.ts", "lib/x/y.js", "lib/z.js",
		"lib/z.d.ts", "dist", "src/a.ts", "a.d.ts"}
	meaning := func(list []string) []bool {
		m := make([]bool, len(paths))
		for i, p := range paths {
			m[i] = matchGlobs(list, "", p, true)
		}
		return m
	}
	key := func(outputs []string) string {
		ts := TaskSpec{RelDir: "p", Argv: []string{"build"}, Outputs: outputs}
		return makeKey(newSnapshot(map[string]fileState{"p/package.json": {id: "a"}}), &ts, nil, nil, nil).Action.Hash
	}
	r := rand.New(rand.NewPCG(6, 21))
	sameKeyOtherMeaning, reordersKept, reordersChanged := 0, 0, 0
	for range 3000 {
		list := make([]string, 1+r.IntN(5))
		for i := range list {
			list[i] = globs[r.IntN(len(globs))]
		}
		if diff := cmp.Diff(meaning(list), meaning(canonicalGlobs(list))); diff != "" {
			t.Fatalf("%q and its canonical form %q match differently:\n%s", list, canonicalGlobs(list), diff)
		}
		other := slices.Clone(list)
		r.Shuffle(len(other), func(i, j int) { other[i], other[j] = other[j], other[i] })
		sameForm := slices.Equal(canonicalGlobs(list), canonicalGlobs(other))
		sameMeaning := slices.Equal(meaning(list), meaning(other))
		if sameForm && !sameMeaning {
			sameKeyOtherMeaning++
			t.Errorf("%q and %q have one canonical form but match differently", list, other)
		}
		if sameForm != (key(list) == key(other)) {
			t.Errorf("%q and %q: same form %v, same key %v", list, other, sameForm, key(list) == key(other))
		}
		if !slices.Equal(list, other) {
			if sameForm {
				reordersKept++
			} else if !sameMeaning {
				reordersChanged++
			}
		}
	}
	if reordersKept == 0 || reordersChanged == 0 {
		t.Errorf("the random lists tried %d reorders that keep the form and %d that change the meaning: too few", reordersKept, reordersChanged)
	}

	// The cases a user writes.
	for _, tt := range []struct {
		a, b []string
		same bool
	}{
		{[]string{"dist/**", "lib/**"}, []string{"lib/**", "dist/**"}, true},
		{[]string{"dist/**", "!dist/**/*.map", "!dist/keep.txt"}, []string{"dist/**", "!dist/keep.txt", "!dist/**/*.map"}, true},
		{[]string{"dist/**", "dist/**"}, []string{"dist/**"}, true},
		{[]string{"!dist/keep.txt", "dist/**"}, []string{"dist/**"}, true}, // a leading "!" excludes from nothing
		{[]string{"dist/**", "!dist/keep.txt"}, []string{"!dist/keep.txt", "dist/**"}, false},
		{[]string{"dist/**", "!dist/x/**", "dist/x/keep"}, []string{"dist/**", "dist/x/keep", "!dist/x/**"}, false},
	} {
		if got := key(tt.a) == key(tt.b); got != tt.same {
			t.Errorf("outputs %q and %q: same key %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}
