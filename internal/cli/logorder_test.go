package cli

import (
	"testing"

	"github.com/vxrun/vx/internal/run"
)

func TestLogLayout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		flag       string
		env        []string
		terminal   bool
		want       run.LogOrder
		wantGitHub bool
		wantErr    string
	}{
		{name: "a terminal, no CI: stream", terminal: true, want: run.LogStream},
		{name: "a pipe, no CI: stream", want: run.LogStream},
		{name: "CI, a pipe: grouped", env: []string{"CI=true"}, want: run.LogGrouped},
		{name: "CI=1", env: []string{"CI=1"}, want: run.LogGrouped},
		{name: "CI, a terminal: stream", env: []string{"CI=true"}, terminal: true, want: run.LogStream},
		{name: "CI=false", env: []string{"CI=false"}, want: run.LogStream},
		{name: "CI=0", env: []string{"CI=0"}, want: run.LogStream},
		{name: "CI empty", env: []string{"CI="}, want: run.LogStream},
		{name: "GitHub Actions", env: []string{"CI=true", "GITHUB_ACTIONS=true"}, want: run.LogGrouped, wantGitHub: true},
		{name: "the flag wins over CI", flag: "stream", env: []string{"CI=true", "GITHUB_ACTIONS=true"}, want: run.LogStream, wantGitHub: true},
		{name: "the flag wins on a terminal", flag: "grouped", terminal: true, want: run.LogGrouped},
		{name: "a bad value", flag: "interleaved", wantErr: `--log-order takes grouped or stream, not "interleaved"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := &Process{Environ: tt.env, StdoutTerminal: tt.terminal, GOOS: "linux"}
			got, github, err := logLayout(p, tt.flag)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want || github != tt.wantGitHub {
				t.Errorf("logLayout = %q, %v, %v; want %q, %v", got, github, err, tt.want, tt.wantGitHub)
			}
		})
	}
}
