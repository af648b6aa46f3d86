package watch

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDebouncer drives a Debouncer with made-up times: a burst is one
// batch, a pause longer than Quiet ends it, and changes that never pause
// make a batch every Max.
func TestDebouncer(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	type take struct {
		at   int // ms
		want []string
	}
	// Each take says the first and the last path of the batch due then.
	tests := []struct {
		name  string
		adds  []add
		takes []take
	}{
		{"nothing is never due", nil, []take{{0, nil}, {10000, nil}}},
		{"one change is due after the quiet time", []add{{"a", 0}},
			[]take{{99, nil}, {100, []string{"a", "a"}}, {200, nil}}},
		{"an atomic save (temp file, rename) is one batch of both names",
			[]add{{"src/.a.ts.swp", 0}, {"src/a.ts", 2}, {"src/.a.ts.swp", 3}},
			[]take{{102, nil}, {103, []string{"src/.a.ts.swp", "src/a.ts"}}}},
		{"a checkout of 1000 files, a millisecond apart, is one batch", checkout(1000),
			[]take{{1000, nil}, {1099, []string{"f0000", "f0999"}}}},
		{"a pause longer than the quiet time makes two batches", []add{{"a", 0}, {"b", 150}},
			[]take{{100, []string{"a", "a"}}, {249, nil}, {250, []string{"b", "b"}}}},
		{"changes without a pause are cut every Max", steady(5000, 50),
			[]take{{1999, nil}, {2000, []string{"f0000", "f0040"}}, {4049, nil}, {4050, []string{"f0041", "f0081"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Debouncer{Quiet: 100 * time.Millisecond, Max: 2 * time.Second}
			i := 0
			for _, tk := range tt.takes {
				for ; i < len(tt.adds) && tt.adds[i].at <= tk.at; i++ {
					d.Add(tt.adds[i].path, ms(tt.adds[i].at))
				}
				var got []string
				if b := d.Take(ms(tk.at)); b != nil {
					got = []string{b[0].Path, b[len(b)-1].Path}
				}
				if diff := cmp.Diff(tk.want, got); diff != "" {
					t.Errorf("Take at %dms: first and last path (-want +got):\n%s", tk.at, diff)
				}
			}
		})
	}
}

// TestDebouncerLatestTime: a path changed twice in a batch carries the
// time of its latest change, which says whether a task started since.
func TestDebouncerLatestTime(t *testing.T) {
	t0 := time.Now()
	d := &Debouncer{Quiet: time.Second, Max: time.Minute}
	d.Add("a", t0.Add(5))
	d.Add("a", t0.Add(3))
	d.Add("b", t0)
	got := d.Take(t0.Add(time.Hour))
	want := []Change{{Path: "a", Time: t0.Add(5)}, {Path: "b", Time: t0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Take (-want +got):\n%s", diff)
	}
}

// add is a change of path at a time in ms.
type add struct {
	path string
	at   int
}

// checkout is n files written a millisecond apart.
func checkout(n int) []add { return steady(n, 1) }

// steady is n files written every step ms.
func steady(n, step int) []add {
	out := make([]add, n)
	for i := range out {
		out[i].path = fmtPath(i)
		out[i].at = i * step
	}
	return out
}

func fmtPath(i int) string {
	const digits = "0123456789"
	return "f" + string([]byte{digits[i/1000%10], digits[i/100%10], digits[i/10%10], digits[i%10]})
}
