package otel

import (
	"fmt"
	"time"

	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/internal/view"
)

// Recorder turns a run into spans: it is the run's [run.Observer]. Each task's span goes to the exporter when
// the task ends, as a child of the run's root span, which [Recorder.Finish] sends once the run's outcome is
// known.
//
// A task's span: named by the task's id ("web#build"), with the attributes vx.project, vx.task, vx.task.id,
// vx.status, vx.cache (hit, remote-hit, miss, or off when the cache was not asked), vx.exit_code, vx.signal (when
// killed by one), vx.cache.key (the action's hash, when the cache was asked), vx.persistent, vx.attempts (when it
// ran), vx.flaky (passed after a failed attempt) and vx.timed_out; status error when the task failed.
//
// The root span: named by the command ("vx run build"), with vx.command, the counts of the run, vx.exit_code,
// vx.failed, vx.flaky, vx.critical_path (the ids on the critical path, first first), vx.critical_path.ms and
// vx.otel.dropped_spans; a link to each span on the critical path (attribute vx.critical_path.index); status
// error when the run failed or was stopped. A span cannot change once sent, and whether a task is on the critical
// path is known only when the run ends: the path is marked on the root span and by its links.
type Recorder struct {
	exp   *Exporter
	trace TraceID
	root  SpanID
	// Key returns the cache key (the action's hash) of a task the cache was asked for, or "".
	Key func(*run.Node) string
	// Command names the root spans of vx watch's rounds ([Recorder.RoundEnded]).
	Command string

	prof  view.Profile // the critical path, as --profile computes it
	open  map[*run.Node]openSpan
	byID  map[string]SpanID // this round's spans, by task id
	round int
}

// openSpan is a task that started: its span's ids, in the trace of the round it started in.
type openSpan struct {
	trace      TraceID
	id, parent SpanID
	start      time.Time
}

// NewRecorder records a run into exp with a new random trace id.
func NewRecorder(exp *Exporter) *Recorder {
	return &Recorder{exp: exp, trace: NewTraceID(), root: NewSpanID(), open: map[*run.Node]openSpan{}, byID: map[string]SpanID{}, round: 1}
}

// TraceID is the run's trace id.
func (r *Recorder) TraceID() TraceID { return r.trace }

// TaskStarted implements [run.Observer].
func (r *Recorder) TaskStarted(n *run.Node, at time.Time) {
	r.prof.TaskStarted(n, at)
	o := openSpan{trace: r.trace, id: NewSpanID(), parent: r.root, start: at}
	r.open[n], r.byID[n.ID] = o, o.id
}

// TaskEnded implements [run.Observer].
func (r *Recorder) TaskEnded(tr run.TaskRun) {
	r.prof.TaskEnded(tr)
	o, ok := r.open[tr.Node]
	if !ok {
		return
	}
	delete(r.open, tr.Node)
	if !tr.Start.IsZero() {
		o.start = tr.Start
	}
	r.exp.Add(r.taskSpan(tr, o))
}

func (r *Recorder) taskSpan(tr run.TaskRun, o openSpan) Span {
	n := tr.Node
	cache := tr.Cache
	if cache == "" {
		cache = "off"
	}
	s := Span{Trace: o.trace, ID: o.id, Parent: o.parent, Name: n.ID, Start: o.start, End: tr.End,
		Attrs: []KeyValue{String("vx.project", n.Project.Name), String("vx.task", n.Task), String("vx.task.id", n.ID),
			String("vx.status", tr.Status), String("vx.cache", cache), Int("vx.exit_code", int64(tr.ExitCode))}}
	if tr.Signal != "" {
		s.Attrs = append(s.Attrs, String("vx.signal", tr.Signal))
	}
	if tr.Cache != "" && r.Key != nil {
		if k := r.Key(n); k != "" {
			s.Attrs = append(s.Attrs, String("vx.cache.key", k))
		}
	}
	if n.Config.Persistent {
		s.Attrs = append(s.Attrs, Bool("vx.persistent", true))
	}
	if tr.Attempts > 0 {
		s.Attrs = append(s.Attrs, Int("vx.attempts", int64(tr.Attempts)))
	}
	if tr.Flaky {
		s.Attrs = append(s.Attrs, Bool("vx.flaky", true))
	}
	if tr.TimedOut {
		s.Attrs = append(s.Attrs, Bool("vx.timed_out", true))
	}
	if tr.Status == "failed" {
		s.Status = StatusError
		switch {
		case tr.Err != nil:
			s.Message = tr.Err.Error()
		case tr.TimedOut:
			s.Message = "timed out"
		case tr.Signal != "":
			s.Message = fmt.Sprintf("killed by %s", tr.Signal)
		default:
			s.Message = fmt.Sprintf("exit code %d", tr.ExitCode)
		}
	}
	return s
}

// Finish sends the root span of the run that ended with out; command is how vx was called ("vx run build").
func (r *Recorder) Finish(out run.Outcome, command string) { r.finish(out, command) }

func (r *Recorder) finish(out run.Outcome, command string, extra ...KeyValue) {
	path, total := r.prof.CriticalPath()
	code := out.Code()
	outcome := "succeeded"
	switch {
	case out.Signal != nil:
		outcome = "stopped"
	case code != 0:
		outcome = "failed"
	}
	s := Span{Trace: r.trace, ID: r.root, Name: command, Start: out.Start, End: out.Start.Add(out.Elapsed),
		Attrs: []KeyValue{String("vx.command", command), String("vx.outcome", outcome), Int("vx.exit_code", int64(code)),
			Int("vx.tasks.total", int64(out.Total)), Int("vx.tasks.started", int64(out.Started)),
			Int("vx.tasks.succeeded", int64(out.Succeeded)), Int("vx.tasks.cached", int64(out.Cached)),
			Int("vx.tasks.remote_hits", int64(out.Remote)), Int("vx.tasks.failed", int64(len(out.Failed))),
			Int("vx.tasks.skipped", int64(out.Skipped)), Strings("vx.critical_path", path),
			Int("vx.critical_path.ms", total.Milliseconds()), Int("vx.otel.dropped_spans", r.exp.Dropped())}}
	if len(out.Failed) > 0 {
		s.Attrs = append(s.Attrs, Strings("vx.failed", out.Failed))
	}
	if len(out.Flaky) > 0 {
		s.Attrs = append(s.Attrs, Strings("vx.flaky", out.Flaky))
	}
	s.Attrs = append(s.Attrs, extra...)
	for i, id := range path {
		if sid, ok := r.byID[id]; ok {
			s.Links = append(s.Links, Link{Trace: r.trace, Span: sid, Attrs: []KeyValue{Int("vx.critical_path.index", int64(i))}})
		}
	}
	if outcome != "succeeded" {
		s.Status = StatusError
		s.Message = fmt.Sprintf("%s, exit code %d", outcome, code)
	}
	r.exp.Add(s)
}

// RoundEnded implements [run.RoundObserver]: vx watch's round ended with o. Its root span is sent, named by
// Command, with vx.watch.round (1 first), and the next round is a new trace. A task still running (a dev server)
// stays in the trace of the round it started in.
func (r *Recorder) RoundEnded(o run.Outcome) {
	r.finish(o, r.Command, Int("vx.watch.round", int64(r.round)))
	r.round++
	r.trace, r.root = NewTraceID(), NewSpanID()
	r.prof = view.Profile{}
	r.byID = map[string]SpanID{}
	for n := range r.open {
		r.prof.TaskStarted(n, r.open[n].start) // so that the profile hears of its end
	}
}
