package run

import (
	"fmt"
	"io"

	"github.com/vxrun/vx/exec"
)

// This file holds what --output-logs (and a task's "outputLogs") change in
// what a run shows, as turbo defines the modes:
//
//   - full: the task's output, and for a task restored from the cache the
//     line saying so ("cache hit, replaying logs <key>") before its
//     replayed output;
//   - new-only: a cached task's line only ("cache hit, logs not shown"),
//     the output of the tasks that ran;
//   - hash-only: one line per task, whether it came from the cache and its
//     key, and no output;
//   - errors-only: the output of the tasks that failed, once they ended;
//   - none: no output.
//
// The cache keeps every task's logs whatever the mode, so a later run
// with full shows them. A task's own mode comes from its configuration;
// Options.OutputLogs, when set, wins.

// Output log modes.
const (
	LogsFull       = "full"
	LogsHashOnly   = "hash-only"
	LogsNewOnly    = "new-only"
	LogsErrorsOnly = "errors-only"
	LogsNone       = "none"
)

// taskLogs is how one task's output is shown.
type taskLogs struct {
	mode     string
	label    string    // in front of vx's lines: "vx: web#build: " in a run of one task, "" behind a prefix
	shownOut io.Writer // where the task's output is shown
	shownErr io.Writer
	held     *block // errors-only: the output, until the task ends
}

// logMode is the mode n's output is shown in.
func (s *scheduler) logMode(n *Node) string { return logMode(s.opts.OutputLogs, n) }

// logMode is the mode n's output is shown in, by vx run and vx watch alike:
// --output-logs (flag), else the task's "outputLogs", else full.
func logMode(flag string, n *Node) string {
	switch {
	case flag != "":
		return flag
	case n.Config.OutputLogs != "":
		return n.Config.OutputLogs
	}
	return LogsFull
}

// limitLogs applies n's mode to spec's streams, which show n's output:
// they are kept for vx's own lines (label in front of them: "vx: web#build: "
// in a run of one task, "" behind a prefix), and the task gets what its
// mode lets through.
func (s *scheduler) limitLogs(n *Node, spec *exec.Spec, label string) {
	l := taskLogs{mode: s.logMode(n), label: label, shownOut: spec.Stdout, shownErr: spec.Stderr}
	switch l.mode {
	case LogsHashOnly, LogsNone:
		spec.Stdout, spec.Stderr = io.Discard, io.Discard
		spec.Foreground = false
		if l.mode == LogsHashOnly && (s.cacheOf(n) == nil || !n.Cacheable) {
			fmt.Fprintf(l.shownErr, "%snot cached, running\n", label)
		}
	case LogsErrorsOnly:
		if !n.Config.Persistent {
			l.held = &block{}
			spec.Stdout, spec.Stderr = blockStream{l.held, false}, blockStream{l.held, true}
			spec.Foreground = false
		}
	}
	s.logs[n.index] = l
}

// cacheLine says what the cache answered for the task, before its logs
// are replayed, and returns where to replay them.
func (l *taskLogs) cacheLine(status, key string) (io.Writer, io.Writer) {
	remote := ""
	if status == "remote-hit" {
		remote = " (remote)"
	}
	switch {
	case status == "miss":
		if l.mode == LogsHashOnly {
			fmt.Fprintf(l.shownErr, "%scache miss, running %s\n", l.label, key)
		}
		return nil, nil
	case l.mode == LogsFull:
		fmt.Fprintf(l.shownErr, "%scache hit%s, replaying logs %s\n", l.label, remote, key)
		return l.shownOut, l.shownErr
	case l.mode == LogsNewOnly || l.mode == LogsHashOnly:
		fmt.Fprintf(l.shownErr, "%scache hit%s, logs not shown %s\n", l.label, remote, key)
	}
	// errors-only, none: a cached task succeeded; nothing to show.
	return io.Discard, io.Discard
}

// end shows a task's held output when it failed (errors-only), and
// forgets it otherwise.
func (l *taskLogs) end(failed bool) {
	b := l.held
	if b == nil {
		return
	}
	l.held = nil
	if failed {
		b.replay(func(stderr bool, p []byte) error {
			w := l.shownOut
			if stderr {
				w = l.shownErr
			}
			_, err := w.Write(p)
			return err
		})
	}
	b.discard()
}
