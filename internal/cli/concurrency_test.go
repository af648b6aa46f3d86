package cli

import "testing"

// TestParseConcurrency: a whole number, or a percentage of the CPUs as
// turbo accepts it; anything else is a usage error.
func TestParseConcurrency(t *testing.T) {
	tests := []struct {
		in   string
		cpus int
		want int // 0: an error
	}{
		{"1", 8, 1},
		{"12", 2, 12},
		{"50%", 8, 4},
		{"50%", 3, 1},
		{"10%", 2, 1},
		{"100%", 6, 6},
		{"200%", 2, 4},
		{"0", 4, 0},
		{"-1", 4, 0},
		{"0%", 4, 0},
		{"%", 4, 0},
		{"1.5", 4, 0},
		{"x%", 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseConcurrency(tt.in, tt.cpus)
			if tt.want == 0 {
				if err == nil {
					t.Fatalf("parseConcurrency(%q) = %d, want an error", tt.in, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("parseConcurrency(%q, %d CPUs) = %d, %v; want %d", tt.in, tt.cpus, got, err, tt.want)
			}
		})
	}
}
