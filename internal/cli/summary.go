package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/run"
)

// summaryOut is where `vx run --summary` writes: a file opened before the
// run (so a path that cannot be written fails before anything runs), or
// stdout after the run, when the value is "json". vx watch rewrites the
// file after each round (keep: it stays open).
type summaryOut struct {
	file     *os.File
	path     string
	toStdout bool
	keep     bool
}

func openSummary(p *Process, v string) (*summaryOut, error) {
	if v == "" {
		return nil, usagef("--summary takes a file name, or json for stdout")
	}
	if v == "json" {
		return &summaryOut{toStdout: true}, nil
	}
	path := v
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Dir, path)
	}
	f, err := createOwn(path)
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		return nil, fmt.Errorf("--summary: cannot write %q: %w", v, err)
	}
	return &summaryOut{file: f, path: v}, nil
}

// runSummary is the JSON document of --summary; docs/cli.md describes it.
type runSummary struct {
	Version    string        `json:"vx"`
	Args       []string      `json:"args"` // vx's command line, after "vx"
	Root       string        `json:"root"` // the workspace root
	Start      time.Time     `json:"start"`
	End        time.Time     `json:"end"`
	DurationMs float64       `json:"durationMs"`
	ExitCode   int           `json:"exitCode"` // vx's own exit code
	Signal     string        `json:"signal,omitempty"`
	Tasks      []taskSummary `json:"tasks"`
}

type taskSummary struct {
	ID         string     `json:"id"`
	Project    string     `json:"project"`
	Task       string     `json:"task"`
	Dir        string     `json:"dir"`
	Command    string     `json:"command"` // the package.json script
	Args       []string   `json:"args"`    // appended to it (after --)
	Argv       []string   `json:"argv"`    // what was started
	DependsOn  []string   `json:"dependsOn"`
	Persistent bool       `json:"persistent"`
	Status     string     `json:"status"` // succeeded, cached, failed, stopped, skipped
	Start      *time.Time `json:"start"`
	End        *time.Time `json:"end"`
	DurationMs *float64   `json:"durationMs"`
	ExitCode   *int       `json:"exitCode"`
	Signal     string     `json:"signal,omitempty"`
	Error      string     `json:"error,omitempty"`
	Cache      string     `json:"cache"` // hit, remote-hit, miss, or off (not asked)
	// MissReason: why a task missed the cache, what changed since its last
	// entry (as vx why says it, without following dependencies).
	MissReason *missReason `json:"missReason,omitempty"`
	// Attempts: how many times the task ran (absent when it did not run);
	// Flaky: it passed after a failed attempt; TimedOut: its last attempt
	// ran longer than its timeout.
	Attempts int  `json:"attempts,omitempty"`
	Flaky    bool `json:"flaky"`
	TimedOut bool `json:"timedOut,omitempty"`
}

type missReason struct {
	Text     string          `json:"text"`
	Previous *cache.Previous `json:"previous"`
	Changes  []cache.Change  `json:"changes"`
}

// hideAfterDashes returns vx's command line args with the arguments after
// "--" hidden as tc hides them ([run.HideArgs]).
func hideAfterDashes(args []string, tc *run.TaskCache) []string {
	out := append([]string{}, args...)
	if i := slices.Index(out, "--"); i >= 0 {
		out = append(out[:i+1], run.HideArgs(tc, out[i+1:])...)
	}
	return out
}

func (s *summaryOut) write(p *Process, root string, o run.Outcome, args []string, tc *run.TaskCache) error {
	start, end := o.Start, o.Start.Add(o.Elapsed)
	// The arguments after -- are hidden, in vx's command line too.
	shown := run.HideArgs(tc, args)
	doc := runSummary{Version: Version, Args: hideAfterDashes(p.Args, tc), Root: root, Start: start, End: end, DurationMs: ms(o.Elapsed),
		ExitCode: o.Code(), Tasks: make([]taskSummary, 0, len(o.Tasks))}
	if o.Signal != nil {
		doc.Signal = run.SignalName(o.Signal)
	}
	for _, tr := range o.Tasks {
		n := tr.Node
		t := taskSummary{ID: n.ID, Project: n.Project.Name, Task: n.Task, Dir: n.Project.Dir, Command: n.Script,
			Args: []string{}, Argv: tr.Argv, DependsOn: []string{}, Persistent: n.Config.Persistent,
			Status: tr.Status, Signal: tr.Signal, Cache: tr.Cache, Attempts: tr.Attempts, Flaky: tr.Flaky, TimedOut: tr.TimedOut}
		if n.Target {
			t.Args = append(t.Args, shown...)
		}
		if t.Argv == nil {
			t.Argv = []string{}
		}
		for _, d := range n.Deps {
			t.DependsOn = append(t.DependsOn, d.ID)
		}
		if !tr.Start.IsZero() {
			st, en, code := tr.Start, tr.End, tr.ExitCode
			d := ms(en.Sub(st))
			t.Start, t.End, t.DurationMs, t.ExitCode = &st, &en, &d, &code
		}
		if tr.Err != nil {
			t.Error = tr.Err.Error()
		}
		if t.Cache == "" {
			t.Cache = "off"
		}
		if tc != nil && t.Cache == "miss" {
			if w := tc.MissReason(n); w != nil {
				t.MissReason = &missReason{Text: w.Reason, Previous: w.Previous, Changes: w.Changes}
			}
		}
		doc.Tasks = append(doc.Tasks, t)
	}
	if s.file == nil {
		return writeJSON(p.Stdout, doc)
	}
	err := rewrite(s.file, func(w io.Writer) error { return writeJSON(w, doc) })
	if !s.keep {
		if cerr := s.file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("--summary: cannot write %q: %w", s.path, err)
	}
	return nil
}

// rewrite replaces what f holds with what write writes.
func rewrite(f *os.File, write func(io.Writer) error) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	return write(f)
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond)) / float64(time.Millisecond)
}
