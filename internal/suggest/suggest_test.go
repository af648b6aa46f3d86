package suggest

import "testing"

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"tasks", "tasks", 0},
		{"task", "tasks", 1},
		{"kitten", "sitting", 3},
		{"depends-on", "dependson", 1},
		{"défine", "define", 1}, // one character, two bytes
		{"biuld", "build", 1},   // adjacent characters swapped
		{"ab", "ba", 1},
		{"abc", "ca", 3}, // no substring edited twice
		{"runn", "run", 1},
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	flags := []string{"filter", "concurrency", "continue", "dry-run"}
	tests := []struct {
		word   string
		want   string
		wantOK bool
	}{
		{"concurency", "concurrency", true},
		{"Filter", "filter", true},
		{"dryrun", "dry-run", true},
		{"contnue", "continue", true},
		{"cnocurrency", "concurrency", true},
		{"parallel", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := Closest(tt.word, flags)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("Closest(%q) = %q, %v, want %q, %v", tt.word, got, ok, tt.want, tt.wantOK)
		}
	}
}
