package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReport(t *testing.T) {
	hyperfine := `{"results": [
  {"command": "floor -c 2", "times": [0.020, 0.010, 0.030], "exit_codes": [0, 0, 0]},
  {"command": "vx run noop", "times": [0.040, 0.020, 0.999], "exit_codes": [0, 0, 1]},
  {"command": "vx --version", "times": [0.005], "exit_codes": [0]}
]}`
	tests := []struct {
		name  string
		files map[string]string
		want  []string // the table's rows, header excluded
	}{
		{
			name: "hyperfine rounds, failed runs dropped, vx first",
			files: map[string]string{
				"time-1-1.json": hyperfine,
				"time-1-2.tsv":  "vx run noop\t0.030\nfloor -c 2\t0.040\n",
				"rss-1.tsv":     "vx run noop\t8192\nvx run noop\t10240\nfloor -c 2\t2048\n",
			},
			want: []string{
				"| `vx run noop` | 1 | 3 | 30.0 ms | 10.0 MiB | 1.00× | 1.00× |",
				"| `floor -c 2` | 1 | 4 | 25.0 ms | 2.0 MiB | 0.83× | 0.20× |",
				"| `vx --version` | 1 | 1 | 5.0 ms | — | 0.17× | — |",
			},
		},
		{
			name: "sizes in numeric order, no vx",
			files: map[string]string{
				"time-100-1.tsv": "npm run noop\t1.5\n",
				"time-10-1.tsv":  "npm run noop\t0.5\n",
			},
			want: []string{
				"| `npm run noop` | 10 | 1 | 500.0 ms | — | — | — |",
				"| `npm run noop` | 100 | 1 | 1.50 s | — | — | — |",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tab, err := load(dir, "vx run noop", "floor -c 2")
			if err != nil {
				t.Fatalf("load() error = %v", err)
			}
			var b strings.Builder
			write(&b, tab)
			var got []string
			for _, line := range strings.Split(b.String(), "\n") {
				if strings.HasPrefix(line, "| `") {
					got = append(got, line)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("report rows mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, body, wantErr string
	}{
		{"bad tsv line", "time-1-1.tsv", "vx run noop 0.1\n", `line 1: want "label<TAB>number"`},
		{"bad json", "time-1-1.json", "{", "unexpected end of JSON input"},
		{"bad name", "time-x-1.tsv", "", "name is not time-<N>-<round>.tsv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := load(dir, "vx", "floor")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("load() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

// TestGoals: the goals name each ratio the issue sets, from the rows of
// one run.
func TestGoals(t *testing.T) {
	dir := t.TempDir()
	rows := "vx run noop\t0.0150\nfloor -c 2\t0.0125\nvx --version\t0.0090\nGo hello world\t0.0060\nbun run noop\t0.0200\n"
	if err := os.WriteFile(filepath.Join(dir, "time-1-1.tsv"), []byte(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	tab, err := load(dir, "vx run noop", "floor -c 2")
	if err != nil {
		t.Fatal(err)
	}
	tab.versionLabel, tab.helloLabel = "vx --version", "Go hello world"
	var b strings.Builder
	write(&b, tab)
	for _, want := range []string{
		"- start: `vx --version` ÷ `Go hello world` = 1.50× (goal ≤ 1.80)",
		"- 1 task: vx ÷ floor = 1.20× (goal ≤ 1.25); vx ÷ `bun run noop` = 0.75× (goal ≤ 1.00)",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("the report has no line %q:\n%s", want, b.String())
		}
	}
}
