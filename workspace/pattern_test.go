package workspace

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
)

func TestPatternMatch(t *testing.T) {
	tests := []struct {
		patterns []string
		path     string
		want     bool
	}{
		{[]string{"packages/*"}, "packages/a", true},
		{[]string{"packages/*"}, "packages", false},
		{[]string{"packages/*"}, "packages/a/b", false},
		{[]string{"packages/*"}, "other/a", false},
		{[]string{"packages/*"}, "packages/.hidden", false},
		{[]string{"packages/.*"}, "packages/.hidden", true},
		{[]string{"packages/.hidden"}, "packages/.hidden", true},
		{[]string{"packages/**"}, "packages", true},
		{[]string{"packages/**"}, "packages/a/b/c", true},
		{[]string{"packages/**"}, "packages/a/.git/c", false},
		{[]string{"**"}, "a/b", true},
		{[]string{"**/test"}, "a/b/test", true},
		{[]string{"**/test"}, "test", true},
		{[]string{"a/**/b"}, "a/b", true},
		{[]string{"a/**/b"}, "a/x/y/b", true},
		{[]string{"a/**/**/b"}, "a/x/b", true},
		{[]string{"p?"}, "p1", true},
		{[]string{"p?"}, "p12", false},
		{[]string{"p[0-9]"}, "p7", true},
		{[]string{"p[!0-9]"}, "p7", false},
		{[]string{"p[!0-9]"}, "px", true},
		{[]string{"p[^0-9]"}, "px", true},
		{[]string{`p\*`}, "p*", true},
		{[]string{`p\*`}, "px", false},
		{[]string{"{apps,libs}/*"}, "libs/x", true},
		{[]string{"{apps,libs}/*"}, "tools/x", false},
		{[]string{"{apps/*,libs/**}"}, "libs/x/y", true},
		{[]string{"{apps/*,libs/**}"}, "apps/x/y", false},
		{[]string{"a{b,{c,d}}"}, "ad", true},
		{[]string{"{a}"}, "{a}", true}, // no comma: literal
		{[]string{"[{]a,b}"}, "{a,b}", true},
		{[]string{"./packages/*/"}, "packages/a", true},
		{[]string{"packages//*"}, "packages/a", true},
		{[]string{"Packages/*"}, "packages/a", false}, // case-sensitive everywhere
		{[]string{""}, ".", true},
		{[]string{"."}, ".", true},
		{[]string{"packages/*", "!packages/b"}, "packages/b", false},
		{[]string{"packages/*", "!packages/b"}, "packages/a", true},
		{[]string{"packages/*", "!packages/b*", "packages/b2"}, "packages/b2", true},
		{[]string{"packages/*", "!packages/b*", "packages/b2"}, "packages/b1", false},
		{[]string{"!packages/b", "packages/*"}, "packages/b", true}, // order matters
		{[]string{"packages/**", "!packages/x"}, "packages/x/y", true},
		{[]string{"packages/**", "!packages/x/**"}, "packages/x/y", false},
		{[]string{"packages/**", "!**/test/**"}, "packages/a/test/b", false},
		{[]string{"!packages/a"}, "packages/a", false},
		{nil, "packages/a", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.patterns, ",")+"~"+tt.path, func(t *testing.T) {
			ps, err := compilePatterns(tt.patterns)
			if err != nil {
				t.Fatalf("compilePatterns(%q) error: %v", tt.patterns, err)
			}
			if got := ps.match(tt.path); got != tt.want {
				t.Errorf("match(%q, %q) = %v, want %v", tt.patterns, tt.path, got, tt.want)
			}
		})
	}
}

func TestPatternDescend(t *testing.T) {
	tests := []struct {
		patterns []string
		path     string
		want     bool // whether the walk enters path
	}{
		{[]string{"packages/*"}, "packages", true},
		{[]string{"packages/*"}, "packages/a", false},
		{[]string{"packages/*"}, "src", false},
		{[]string{"packages/**"}, "packages/a/b", true},
		{[]string{"**/x"}, "a/b", true},
		{[]string{"!packages/*"}, "packages", false}, // negations never pull the walk in
		{[]string{"a/*/c"}, "a/b", true},
		{[]string{"a/*/c"}, "a/b/c", false},
		{[]string{"{a,b}/*"}, "b", true},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.patterns, ",")+"~"+tt.path, func(t *testing.T) {
			ps, err := compilePatterns(tt.patterns)
			if err != nil {
				t.Fatal(err)
			}
			st := ps.start()
			for _, el := range strings.Split(tt.path, "/") {
				st = ps.step(st, el)
			}
			if _, got := ps.eval(st); got != tt.want {
				t.Errorf("descend(%q, %q) = %v, want %v", tt.patterns, tt.path, got, tt.want)
			}
		})
	}
}

func TestCompilePatternErrors(t *testing.T) {
	tests := []struct {
		pattern, want string
	}{
		{"packages/[", `invalid workspace pattern "packages/[": syntax error in pattern`},
		{"p[a-]", `invalid workspace pattern "p[a-]": syntax error in pattern`},
		{`p\`, `invalid workspace pattern "p\\": syntax error in pattern`},
		{"../x", `invalid workspace pattern "../x": must stay inside the workspace root (no leading "/", no "..")`},
		{"a/../../x", `invalid workspace pattern "a/../../x": must stay inside the workspace root (no leading "/", no "..")`},
		{"/abs/*", `invalid workspace pattern "/abs/*": must stay inside the workspace root (no leading "/", no "..")`},
		{"!/abs", `invalid workspace pattern "!/abs": must stay inside the workspace root (no leading "/", no "..")`},
		{strings.Repeat("{a,b}", 9), `invalid workspace pattern "` + strings.Repeat("{a,b}", 9) + `": more than 256 alternatives`},
		{strings.Repeat("a/", 64), `invalid workspace pattern "` + strings.Repeat("a/", 64) + `": more than 63 path segments`},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := compilePatterns([]string{"ok/*", tt.pattern})
			if err == nil {
				t.Fatalf("compilePatterns(%q) succeeded, want an error", tt.pattern)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("compilePatterns() error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandBraces(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"a", []string{"a"}},
		{"{a,b}", []string{"a", "b"}},
		{"x{a,b}y{1,2}", []string{"xay1", "xay2", "xby1", "xby2"}},
		{"{a,{b,c}}", []string{"a", "b", "c"}},
		{"{a,}", []string{"a", ""}},
		{"{a}", []string{"{a}"}},
		{"{a", []string{"{a"}},
		{"a}", []string{"a}"}},
		{`\{a,b}`, []string{`\{a,b}`}},
		{"[{]a,b}", []string{"[{]a,b}"}},
		{"{a}{b,c}", []string{"{a}b", "{a}c"}},
	}
	for _, tt := range tests {
		got, err := expandBraces(tt.in)
		if err != nil {
			t.Errorf("expandBraces(%q) error: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("expandBraces(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestPatternMatchesDoublestar compares the matcher with doublestar's on
// every pattern and path built from a small alphabet, where the two agree by
// design (no hidden names, no negation), but for one doublestar quirk.
func TestPatternMatchesDoublestar(t *testing.T) {
	segs := []string{"a", "b", "*", "?", "**", "[ab]", "a*", "{a,b}", "*b"}
	names := []string{"a", "b", "ab", "ba", "bb"}
	var patterns, paths []string
	var gen func(prefix string, depth int, parts []string, out *[]string)
	gen = func(prefix string, depth int, parts []string, out *[]string) {
		if depth == 0 {
			return
		}
		for _, p := range parts {
			s := p
			if prefix != "" {
				s = prefix + "/" + p
			}
			*out = append(*out, s)
			gen(s, depth-1, parts, out)
		}
	}
	gen("", 3, segs, &patterns)
	gen("", 3, names, &paths)
	n := 0
	for _, pat := range patterns {
		ps, err := compilePatterns([]string{pat})
		if err != nil {
			t.Fatalf("compilePatterns(%q) error: %v", pat, err)
		}
		for _, p := range paths {
			want, err := doublestar.Match(pat, p)
			if err != nil {
				t.Fatalf("doublestar.Match(%q, %q) error: %v", pat, p, err)
			}
			if !want && strings.HasSuffix(pat, "/**") {
				// doublestar lets a trailing "/**" match no element only
				// after a literal ("a/**" matches "a", "a*/**" does not);
				// vx, like glob, always lets it.
				trimmed := pat
				for strings.HasSuffix(trimmed, "/**") {
					trimmed = strings.TrimSuffix(trimmed, "/**")
				}
				want, _ = doublestar.Match(trimmed, p)
			}
			if got := ps.match(p); got != want {
				t.Errorf("match(%q, %q) = %v, doublestar says %v", pat, p, got, want)
				if n++; n > 20 {
					t.FailNow()
				}
			}
		}
	}
}

// checkPruning fails if the walk would not enter a directory above a path
// that the patterns match: pruning must never lose a project.
func checkPruning(t *testing.T, ps *patternSet, path string) {
	t.Helper()
	if !ps.match(path) || path == "." || path == "" {
		return
	}
	st := ps.start()
	els := strings.Split(path, "/")
	for i, el := range els {
		if _, descend := ps.eval(st); !descend {
			t.Fatalf("the walk would not enter %q on its way to %q, which matches", strings.Join(els[:i], "/"), path)
		}
		st = ps.step(st, el)
	}
}

func TestPatternPruning(t *testing.T) {
	ps, err := compilePatterns([]string{"apps/*", "!apps/x", "libs/**/pkg", "{tools,scripts}/*/[a-c]*", "**/.config/*"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"apps/a", "apps/x", "libs/pkg", "libs/a/b/pkg", "tools/q/b1", "scripts/z/c", "a/.config/z", ".config/y"} {
		checkPruning(t, ps, p)
	}
}
