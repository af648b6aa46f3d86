package config

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The errors of "timeout" and "retries" join parseErrorCases, so that
// vx.json (TestParseErrors) and vx.config.ts (TestDecodeValueErrors) are
// checked alike.
func init() {
	parseErrorCases = append(parseErrorCases, []struct {
		name string
		in   string
		want string
	}{
		{"timeout a number", `{"tasks": {"test": {"timeout": 600}}}`,
			`vx.json:1:32: "timeout" of task "test" must be a string, found a number; did you mean "600s"? (a duration needs a unit)`},
		{"timeout without unit", `{"tasks": {"test": {"timeout": "10"}}}`,
			`vx.json:1:32: invalid "timeout" of task "test": found "10"; a duration needs a unit: write "10s" or "10m"`},
		{"timeout not a duration", `{"tasks": {"test": {"timeout": "ten minutes"}}}`,
			`vx.json:1:32: invalid "timeout" of task "test": found "ten minutes"; it takes a duration such as "90s", "10m" or "1h30m" (0 for no limit)`},
		{"timeout negative", `{"tasks": {"test": {"timeout": "-1s"}}}`,
			`vx.json:1:32: invalid "timeout" of task "test": found "-1s"; a timeout cannot be negative (0 for no limit)`},
		{"retries a string", `{"tasks": {"test": {"retries": "2"}}}`,
			`vx.json:1:32: "retries" of task "test" must be a number, found a string; did you mean 2?`},
		{"retries too many", `{"tasks": {"test": {"retries": 11}}}`,
			`vx.json:1:32: invalid "retries" of task "test": found 11; it takes a whole number from 0 to 10: how many more times a failed attempt runs`},
		{"retries negative", `{"tasks": {"test": {"retries": -1}}}`,
			`vx.json:1:32: invalid "retries" of task "test": found -1; it takes a whole number from 0 to 10: how many more times a failed attempt runs`},
		{"retries a fraction", `{"tasks": {"test": {"retries": 1.5}}}`,
			`vx.json:1:32: invalid "retries" of task "test": found 1.5; it takes a whole number from 0 to 10: how many more times a failed attempt runs`},
		{"retries true", `{"tasks": {"test": {"retries": true}}}`,
			`vx.json:1:32: invalid "retries" of task "test": found a boolean; it takes a whole number from 0 to 10: how many more times a failed attempt runs`},
		{"retries of a persistent task", `{"tasks": {"dev": {"retries": 1, "persistent": true}}}`,
			`vx.json:1:20: task "dev" is persistent: it runs until stopped and is never retried; remove it, or "persistent"`},
		{"timeout of a persistent task", `{"tasks": {"dev": {"persistent": true, "timeout": "1m"}}}`,
			`vx.json:1:40: task "dev" is persistent: it runs until stopped and takes no "timeout"; remove it, or "persistent"; how long a server may take to be ready goes in "readyWhen": {..., "timeout": "60s"}`},
		{"timeout misspelt", `{"tasks": {"test": {"timout": "1m"}}}`,
			`vx.json:1:21: unknown key "timout" in task "test"; did you mean "timeout"?`},
		{"retries misspelt", `{"tasks": {"test": {"retires": 2}}}`,
			`vx.json:1:21: unknown key "retires" in task "test"; did you mean "retries"?`},
	}...)
}

func TestParseAttempts(t *testing.T) {
	t.Parallel()
	ptr := func(d time.Duration) *time.Duration { return &d }
	n := func(i int) *int { return &i }
	tests := []struct {
		name string
		in   string
		want map[string]Task
	}{
		{"absent: the flags decide", `{"tasks": {"test": {}}}`, map[string]Task{"test": {}}},
		{"both", `{"tasks": {"test": {"timeout": "10m", "retries": 2}}}`,
			map[string]Task{"test": {Timeout: ptr(10 * time.Minute), Retries: n(2)}}},
		{"compound duration", `{"tasks": {"e2e": {"timeout": "1h30m"}}}`,
			map[string]Task{"e2e": {Timeout: ptr(90 * time.Minute)}}},
		{"fractions", `{"tasks": {"e2e": {"timeout": "1.5s"}}}`,
			map[string]Task{"e2e": {Timeout: ptr(1500 * time.Millisecond)}}},
		{"zero: no limit, no retries, over the flags", `{"tasks": {"lint": {"timeout": "0", "retries": 0}}}`,
			map[string]Task{"lint": {Timeout: ptr(0), Retries: n(0)}}},
		{"the most retries", `{"tasks": {"test": {"retries": 10}}}`, map[string]Task{"test": {Retries: n(10)}}},
		{"not persistent", `{"tasks": {"test": {"persistent": false, "retries": 1}}}`, map[string]Task{"test": {Retries: n(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := Parse("vx.json", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Tasks); diff != "" {
				t.Errorf("vx.json (-want +got):\n%s", diff)
			}
			v, verr := DecodeValue("vx.config.ts", []byte(tt.in), false)
			if verr != nil {
				t.Fatal(verr)
			}
			if diff := cmp.Diff(tt.want, v.Tasks); diff != "" {
				t.Errorf("vx.config.ts (-want +got):\n%s", diff)
			}
			// vx config writes what reads back the same.
			data, err := c.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse("vx.json", data)
			if err != nil {
				t.Fatalf("%s: %v", data, err)
			}
			if diff := cmp.Diff(tt.want, back.Tasks); diff != "" {
				t.Errorf("written and read back (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 10 * time.Minute: "10m", time.Hour: "1h", 90 * time.Minute: "1h30m",
		1500 * time.Millisecond: "1.5s", 2*time.Hour + 5*time.Second: "2h0m5s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestTaskForCopiesAttempts: the pointers TaskFor returns are the
// caller's.
func TestTaskForCopiesAttempts(t *testing.T) {
	t.Parallel()
	c, err := Parse("vx.json", []byte(`{"tasks": {"test": {"timeout": "1m", "retries": 1}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.TaskFor("web", "test")
	*got.Timeout, *got.Retries = 0, 5
	if again := c.TaskFor("api", "test"); *again.Timeout != time.Minute || *again.Retries != 1 {
		t.Errorf("TaskFor after changing an earlier result: timeout %v, retries %d", *again.Timeout, *again.Retries)
	}
}
