package run

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
)

// TestPolicyOf: a task's entry wins over the flags, also when it says 0;
// a persistent task has no timeout and is never retried.
func TestPolicyOf(t *testing.T) {
	t.Parallel()
	d := func(d time.Duration) *time.Duration { return &d }
	n := func(i int) *int { return &i }
	tests := []struct {
		name    string
		task    config.Task
		timeout time.Duration // the flags'
		retries int
		want    attemptPolicy
	}{
		{"nothing", config.Task{}, 0, 0, attemptPolicy{}},
		{"the flags", config.Task{}, time.Minute, 2, attemptPolicy{timeout: time.Minute, retries: 2}},
		{"the entry", config.Task{Timeout: d(time.Hour), Retries: n(1)}, 0, 0, attemptPolicy{timeout: time.Hour, retries: 1}},
		{"the entry over the flags", config.Task{Timeout: d(time.Hour), Retries: n(1)}, time.Minute, 3, attemptPolicy{timeout: time.Hour, retries: 1}},
		{"the entry's 0 over the flags", config.Task{Timeout: d(0), Retries: n(0)}, time.Minute, 3, attemptPolicy{}},
		{"one of each", config.Task{Retries: n(4)}, time.Minute, 3, attemptPolicy{timeout: time.Minute, retries: 4}},
		{"persistent", config.Task{Persistent: true}, time.Minute, 3, attemptPolicy{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := policyOf(&Node{ID: "web#test", Config: tt.task}, tt.timeout, tt.retries)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(attemptPolicy{})); diff != "" {
				t.Errorf("policyOf (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSummaryFlaky: the summary line counts the flaky tasks.
func TestSummaryFlaky(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Outcome
		want string
	}{
		{"none", Outcome{Total: 2, Started: 2, Succeeded: 2}, "vx: 2 tasks: 2 succeeded in 0s"},
		{"one", Outcome{Total: 2, Started: 2, Succeeded: 2, Flaky: []string{"web#test"}}, "vx: 2 tasks: 2 succeeded, 1 flaky (web#test) in 0s"},
		{"with a failure", Outcome{Total: 3, Started: 3, Succeeded: 2, Flaky: []string{"b#test", "c#test"}, Failed: []string{"a#test"}},
			"vx: 3 tasks: 2 succeeded, 1 failed (a#test), 2 flaky (b#test, c#test) in 0s"},
		{"with the cache", Outcome{Total: 3, Started: 3, Succeeded: 3, Cached: 2, Flaky: []string{"web#test"}},
			"vx: 3 tasks: 2 cached, 1 ran, 0 failed, 1 flaky (web#test) in 0s"},
		{"a name vx did not choose", Outcome{Total: 1, Started: 1, Succeeded: 1, Flaky: []string{"evil\x1b[2K#test"}},
			`vx: 1 task: 1 succeeded, 1 flaky ("evil\x1b[2K#test") in 0s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summary(tt.o, false)); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTimeoutError: the message names the limit as it was written, and
// how the stopped tree ended.
func TestTimeoutError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  TimeoutError
		want string
	}{
		{TimeoutError{After: 10 * time.Minute, Result: exec.Result{ExitCode: 137, Signal: "SIGKILL"}}, "timed out after 10m: killed by SIGKILL (exit code 137)"},
		{TimeoutError{After: 1500 * time.Millisecond, Result: exec.Result{ExitCode: 0}}, "timed out after 1.5s: exit code 0"},
	} {
		if diff := cmp.Diff(tt.want, tt.err.Error()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
}
