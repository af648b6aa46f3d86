package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlags(t *testing.T) {
	type result struct {
		Set   map[string]bool
		Vals  map[string][]string
		Pos   []string
		After []string
		Help  bool
	}
	tests := []struct {
		name    string
		args    []string
		want    result
		wantErr string
	}{
		{
			name: "flags anywhere, both forms",
			args: []string{"build", "--filter", "web", "test", "--concurrency=2", "--filter=api"},
			want: result{Set: map[string]bool{"filter": true, "concurrency": true},
				Vals: map[string][]string{"filter": {"web", "api"}, "concurrency": {"2"}}, Pos: []string{"build", "test"}},
		},
		{
			name: "-- ends the flags",
			args: []string{"dev", "--", "--port", "3000", "--continue"},
			want: result{Set: map[string]bool{}, Vals: map[string][]string{}, Pos: []string{"dev"}, After: []string{"--port", "3000", "--continue"}},
		},
		{
			name: "optional value never takes the next argument",
			args: []string{"--dry-run", "build", "--dry-run=json"},
			want: result{Set: map[string]bool{"dry-run": true}, Vals: map[string][]string{"dry-run": {"json"}}, Pos: []string{"build"}},
		},
		{
			name: "bool with value",
			args: []string{"--continue=false", "x"},
			want: result{Set: map[string]bool{}, Vals: map[string][]string{}, Pos: []string{"x"}},
		},
		{
			name: "help",
			args: []string{"build", "-h"},
			want: result{Set: map[string]bool{}, Vals: map[string][]string{}, Pos: []string{"build"}, Help: true},
		},
		{name: "missing value", args: []string{"build", "--filter"}, wantErr: "--filter needs a value: --filter <selector>"},
		{name: "typo", args: []string{"--concurency", "2"}, wantErr: `unknown flag "--concurency"; did you mean --concurrency? (vx help run lists the flags)`},
		{name: "single dash long flag", args: []string{"-filter", "x"}, wantErr: `unknown flag "-filter"; did you mean --filter? (vx help run lists the flags)`},
		{name: "unknown", args: []string{"--parallel"}, wantErr: `unknown flag "--parallel"; vx help run lists the flags`},
		{name: "bad bool", args: []string{"--continue=maybe"}, wantErr: `--continue takes true or false, not "maybe"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := parseFlags("run", runCmd.flags, tt.args)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("parseFlags() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseFlags() error = %v", err)
			}
			got := result{Set: p.set, Vals: p.vals, Pos: p.pos, After: p.after, Help: p.help}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseFlags() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
