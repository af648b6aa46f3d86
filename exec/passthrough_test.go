package exec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpandPassThrough(t *testing.T) {
	t.Parallel()
	source := []string{
		"PATH=/usr/bin",
		"NODE_ENV=production",
		"NEXT_PUBLIC_API=https://api",
		"NEXT_PUBLIC_SITE=https://site",
		"NEXT_PUBLIC_=empty suffix",
		"next_public_lower=1",
		"NEXT_PRIVATE_KEY=secret",
		"VITE_A=1",
		"EMPTY=",
		"NOEQUALS",
		"=C:=C:\\work",
		"=ExitCode=00000000",
	}
	tests := []struct {
		name     string
		patterns []string
		source   []string
		goos     string
		want     []string
	}{
		{name: "nothing declared", patterns: nil, source: source, goos: "linux", want: nil},
		{name: "windows: dotless i is not I, as in the exec package", patterns: []string{"I*", "S*"},
			source: []string{"ıX=1", "IY=2", "ſZ=3", "sW=4"}, goos: "windows", want: []string{"IY", "sW"}},
		{name: "plain names are kept as written", patterns: []string{"NODE_ENV", "SENTRY_DSN"}, source: source,
			goos: "linux", want: []string{"NODE_ENV", "SENTRY_DSN"}},
		{name: "plain names are kept even with no source", patterns: []string{"B", "A"}, source: nil,
			goos: "linux", want: []string{"A", "B"}},
		{name: "star anywhere, as turbo's patterns", patterns: []string{"*_API", "NEXT_*_KEY", "V*_A"}, source: source,
			goos: "linux", want: []string{"NEXT_PRIVATE_KEY", "NEXT_PUBLIC_API", "VITE_A"}},
		{name: "an exclusion wins over a pattern", patterns: []string{"NEXT_PUBLIC_*", "!NEXT_PUBLIC_SITE"}, source: source,
			goos: "linux", want: []string{"NEXT_PUBLIC_", "NEXT_PUBLIC_API"}},
		{name: "an exclusion wins whatever the order", patterns: []string{"!NEXT_*", "NODE_ENV", "NEXT_PUBLIC_*"}, source: source,
			goos: "linux", want: []string{"NODE_ENV"}},
		{name: "an exclusion removes a plain name", patterns: []string{"NODE_ENV", "SENTRY_DSN", "!SENTRY_*"}, source: source,
			goos: "linux", want: []string{"NODE_ENV"}},
		{name: "exclusions compare without case on windows", patterns: []string{"NEXT_*", "!next_public_*"}, source: source,
			goos: "windows", want: []string{"NEXT_PRIVATE_KEY"}},
		{name: "plain name keeps its case on windows", patterns: []string{"node_env"}, source: source,
			goos: "windows", want: []string{"node_env"}},
		{name: "prefix is case-sensitive on linux", patterns: []string{"NEXT_PUBLIC_*"}, source: source,
			goos: "linux", want: []string{"NEXT_PUBLIC_", "NEXT_PUBLIC_API", "NEXT_PUBLIC_SITE"}},
		{name: "prefix is case-insensitive on windows, spelled as in source", patterns: []string{"Next_Public_*"},
			source: source, goos: "windows",
			want: []string{"NEXT_PUBLIC_", "NEXT_PUBLIC_API", "NEXT_PUBLIC_SITE", "next_public_lower"}},
		{name: "other systems are case-sensitive", patterns: []string{"next_public_*"}, source: source,
			goos: "darwin", want: []string{"next_public_lower"}},
		{name: "prefix matching nothing adds nothing", patterns: []string{"REACT_APP_*"}, source: source,
			goos: "linux", want: nil},
		{name: "prefix matching nothing beside a plain name", patterns: []string{"REACT_APP_*", "NODE_ENV"},
			source: source, goos: "linux", want: []string{"NODE_ENV"}},
		{name: "prefix matches a variable set to empty", patterns: []string{"EMP*"}, source: source,
			goos: "linux", want: []string{"EMPTY"}},
		{name: "whole name with a star matches itself", patterns: []string{"VITE_A*"}, source: source,
			goos: "linux", want: []string{"VITE_A"}},
		{name: "star alone matches every name", patterns: []string{"*"}, source: source, goos: "linux",
			want: []string{"EMPTY", "NEXT_PRIVATE_KEY", "NEXT_PUBLIC_", "NEXT_PUBLIC_API", "NEXT_PUBLIC_SITE",
				"NODE_ENV", "PATH", "VITE_A", "next_public_lower"}},
		{name: "hidden windows entries and entries without = are never matched", patterns: []string{"*", "NOEQ*"},
			source: []string{"=C:=C:\\work", "NOEQUALS", "=ExitCode=0"}, goos: "windows", want: nil},
		{name: "star in the middle is a wildcard too", patterns: []string{"A*B"},
			source: []string{"AXB=1", "A*B=2", "AXBC=3"}, goos: "linux", want: []string{"A*B", "AXB"}},
		{name: "empty entries are ignored", patterns: []string{"", "X"}, source: source, goos: "linux",
			want: []string{"X"}},
		{name: "sorted and unique", patterns: []string{"NODE_ENV", "NEXT_PUBLIC_S*", "NODE_ENV", "NEXT_PUBLIC_*", "N*"},
			source: source, goos: "linux",
			want: []string{"NEXT_PRIVATE_KEY", "NEXT_PUBLIC_", "NEXT_PUBLIC_API", "NEXT_PUBLIC_SITE", "NODE_ENV"}},
		{name: "plain and matched name are one", patterns: []string{"NODE_ENV", "NODE_*"}, source: source,
			goos: "linux", want: []string{"NODE_ENV"}},
		{name: "names differing in case are two on linux",
			patterns: []string{"Path", "PA*"}, source: source, goos: "linux", want: []string{"PATH", "Path"}},
		{name: "names differing in case are one on windows, as written",
			patterns: []string{"Path", "PA*"}, source: source, goos: "windows", want: []string{"Path"}},
		{name: "repeated source names differing in case on windows keep the first in order",
			patterns: []string{"FOO_*"}, source: []string{"foo_a=1", "FOO_A=2"}, goos: "windows",
			want: []string{"FOO_A"}},
		{name: "repeated source names are one", patterns: []string{"FOO_*"},
			source: []string{"FOO_A=1", "FOO_A=2"}, goos: "linux", want: []string{"FOO_A"}},
		{name: "windows folds beyond ASCII", patterns: []string{"ÜBER_*"},
			source: []string{"über_x=1", "UBER_Y=2"}, goos: "windows", want: []string{"über_x"}},
		{name: "windows upper-cases, it does not fold: the Kelvin sign is not k", patterns: []string{"k*"},
			source: []string{"\u212AELVIN=1", "KILO=2"}, goos: "windows", want: []string{"KILO"}},
		{name: "linux does not fold beyond ASCII", patterns: []string{"ÜBER_*"},
			source: []string{"über_x=1"}, goos: "linux", want: nil},
		{name: "prefix longer than the name", patterns: []string{"VITE_ABC*"}, source: source,
			goos: "windows", want: nil},
		{name: "distinct invalid bytes stay distinct on windows", patterns: []string{"A*"},
			source: []string{"A\xff=1", "A\xfe=2"}, goos: "windows", want: []string{"A\xfe", "A\xff"}},
		{name: "invalid UTF-8 matches itself only", patterns: []string{"A\xff*"},
			source: []string{"A\xffB=1", "A\xfeB=2", "a\xffC=3"}, goos: "windows", want: []string{"A\xffB", "a\xffC"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := ExpandPassThrough(tt.patterns, tt.source, tt.goos)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExpandPassThrough(%q, source, %q) mismatch (-want +got):\n%s", tt.patterns, tt.goos, diff)
			}
		})
	}
}

// TestExpandPassThroughLeavesInputs checks that the caller's slices are not
// reordered.
func TestExpandPassThroughLeavesInputs(t *testing.T) {
	t.Parallel()
	patterns := []string{"Z", "A_*", "M"}
	source := []string{"A_2=x", "A_1=y"}
	ExpandPassThrough(patterns, source, "linux")
	if diff := cmp.Diff([]string{"Z", "A_*", "M"}, patterns); diff != "" {
		t.Errorf("patterns changed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A_2=x", "A_1=y"}, source); diff != "" {
		t.Errorf("source changed (-want +got):\n%s", diff)
	}
}
