package otel

import (
	"encoding/hex"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/otel/wire"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/workspace"
)

func node(project string, deps ...*run.Node) *run.Node {
	return &run.Node{ID: project + "#build", Task: "build", Project: &workspace.Project{Name: project}, Deps: deps}
}

// TestRecorder replays a run: a span per task that started, children of the root, sent as the tasks end; the
// root span at Finish with the outcome, the critical path (as --profile computes it) and links to its spans.
func TestRecorder(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	utils := node("utils")
	ui := node("ui", utils)
	api := node("api", utils)
	dev := node("dev")
	dev.Config = config.Task{Persistent: true}
	skipped := node("web", ui, api)

	pr, pw := io.Pipe()
	defer pr.Close()
	bodies := make(chan []byte, 100)
	go func() {
		wire.ReadHello(pr)
		for {
			b, err := wire.ReadFrame(pr)
			if err != nil {
				close(bodies)
				return
			}
			bodies <- b
		}
	}()
	e := NewExporter(&Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPJSON, Timeout: time.Second}, pw)
	r := NewRecorder(e)
	r.Key = func(n *run.Node) string { return "key-of-" + n.ID }

	r.TaskStarted(utils, at(0))
	r.TaskStarted(dev, at(0))
	r.TaskEnded(run.TaskRun{Node: utils, Status: "succeeded", Cache: "miss", Start: at(0), End: at(100), Attempts: 2, Flaky: true})
	r.TaskStarted(ui, at(100))
	r.TaskStarted(api, at(100))
	r.TaskEnded(run.TaskRun{Node: ui, Status: "cached", Cache: "remote-hit", Start: at(100), End: at(120)})
	r.TaskEnded(run.TaskRun{Node: api, Status: "failed", Cache: "miss", ExitCode: 3, Start: at(100), End: at(300)})
	r.TaskEnded(run.TaskRun{Node: dev, Status: "stopped", Signal: "SIGTERM", ExitCode: 143, Start: at(0), End: at(310)})
	r.TaskEnded(run.TaskRun{Node: skipped, Status: "skipped"}) // never started: no span
	out := run.Outcome{Total: 5, Started: 4, Succeeded: 2, Cached: 1, Remote: 1, Failed: []string{"api#build"}, Skipped: 1, Flaky: []string{"utils#build"},
		Start: t0, Elapsed: 310 * time.Millisecond}
	r.Finish(out, "vx run build")
	e.Close(time.Now().Add(5 * time.Second))
	pw.Close()

	var spans []jsonSpan
	for b := range bodies {
		var req jsonRequest
		strictJSON(t, b, &req)
		spans = append(spans, req.ResourceSpans[0].ScopeSpans[0].Spans...)
	}
	if len(spans) != 5 {
		t.Fatalf("%d spans, want 4 tasks and the root", len(spans))
	}
	trace := hex.EncodeToString(r.trace[:])
	root := spans[4]
	if root.ParentSpanID != "" || root.Name != "vx run build" {
		t.Errorf("root span %+v", root)
	}
	byName := map[string]jsonSpan{}
	for _, s := range spans {
		if s.TraceID != trace {
			t.Errorf("span %s in trace %s, want %s", s.Name, s.TraceID, trace)
		}
		if s.Name != root.Name && s.ParentSpanID != root.SpanID {
			t.Errorf("span %s has parent %s, want the root %s", s.Name, s.ParentSpanID, root.SpanID)
		}
		byName[s.Name] = s
	}
	type summary struct {
		Start, End string
		Attrs      map[string]string
		Status     *jsonStatus
	}
	sum := func(s jsonSpan) summary {
		m := map[string]string{}
		for _, kv := range s.Attributes {
			switch v := kv.Value; {
			case v.StringValue != nil:
				m[kv.Key] = *v.StringValue
			case v.IntValue != nil:
				m[kv.Key] = *v.IntValue
			case v.BoolValue != nil:
				m[kv.Key] = map[bool]string{true: "true", false: "false"}[*v.BoolValue]
			case v.ArrayValue != nil:
				for i, e := range v.ArrayValue.Values {
					if i > 0 {
						m[kv.Key] += ","
					}
					m[kv.Key] += *e.StringValue
				}
			}
		}
		return summary{s.StartTimeUnixNano, s.EndTimeUnixNano, m, s.Status}
	}
	ns := func(ms int) string { return strconv.FormatInt(at(ms).UnixNano(), 10) }
	want := map[string]summary{
		"utils#build": {ns(0), ns(100), map[string]string{"vx.project": "utils", "vx.task": "build", "vx.task.id": "utils#build",
			"vx.status": "succeeded", "vx.cache": "miss", "vx.exit_code": "0", "vx.cache.key": "key-of-utils#build",
			"vx.attempts": "2", "vx.flaky": "true"}, nil},
		"ui#build": {ns(100), ns(120), map[string]string{"vx.project": "ui", "vx.task": "build", "vx.task.id": "ui#build",
			"vx.status": "cached", "vx.cache": "remote-hit", "vx.exit_code": "0", "vx.cache.key": "key-of-ui#build"}, nil},
		"api#build": {ns(100), ns(300), map[string]string{"vx.project": "api", "vx.task": "build", "vx.task.id": "api#build",
			"vx.status": "failed", "vx.cache": "miss", "vx.exit_code": "3", "vx.cache.key": "key-of-api#build"},
			&jsonStatus{Message: "exit code 3", Code: StatusError}},
		"dev#build": {ns(0), ns(310), map[string]string{"vx.project": "dev", "vx.task": "build", "vx.task.id": "dev#build",
			"vx.status": "stopped", "vx.cache": "off", "vx.exit_code": "143", "vx.signal": "SIGTERM", "vx.persistent": "true"}, nil},
		"vx run build": {ns(0), ns(310), map[string]string{"vx.command": "vx run build", "vx.outcome": "failed", "vx.exit_code": "1",
			"vx.tasks.total": "5", "vx.tasks.started": "4", "vx.tasks.succeeded": "2", "vx.tasks.cached": "1", "vx.tasks.remote_hits": "1",
			"vx.tasks.failed": "1", "vx.tasks.skipped": "1", "vx.failed": "api#build", "vx.flaky": "utils#build",
			"vx.critical_path": "utils#build,api#build", "vx.critical_path.ms": "300", "vx.otel.dropped_spans": "0"},
			&jsonStatus{Message: "failed, exit code 1", Code: StatusError}},
	}
	got := map[string]summary{}
	for name, s := range byName {
		got[name] = sum(s)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
	str := func(s string) *string { return &s }
	wantLinks := []jsonLink{
		{trace, byName["utils#build"].SpanID, []jsonKeyValue{{"vx.critical_path.index", jsonAnyValue{IntValue: str("0")}}}},
		{trace, byName["api#build"].SpanID, []jsonKeyValue{{"vx.critical_path.index", jsonAnyValue{IntValue: str("1")}}}},
	}
	if diff := cmp.Diff(wantLinks, root.Links); diff != "" {
		t.Errorf("the root's links to the critical path (-want +got):\n%s", diff)
	}
}

// TestRecorderRounds: vx watch's rounds are traces of their own; a dev server that runs across rounds stays in
// the trace of the round it started in.
func TestRecorderRounds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	build, dev := node("ui"), node("web")
	dev.Config = config.Task{Persistent: true}
	pr, pw := io.Pipe()
	defer pr.Close()
	bodies := make(chan []byte, 100)
	go func() {
		wire.ReadHello(pr)
		for {
			b, err := wire.ReadFrame(pr)
			if err != nil {
				close(bodies)
				return
			}
			bodies <- b
		}
	}()
	e := NewExporter(&Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPJSON, Timeout: time.Second}, pw)
	r := NewRecorder(e)
	r.Command = "vx watch build dev"
	r.TaskStarted(build, at(0))
	r.TaskEnded(run.TaskRun{Node: build, Status: "succeeded", Start: at(0), End: at(100)})
	r.TaskStarted(dev, at(100))
	r.RoundEnded(run.Outcome{Total: 1, Started: 1, Succeeded: 1, Start: t0, Elapsed: 100 * time.Millisecond})
	r.TaskStarted(build, at(1000))
	r.TaskEnded(run.TaskRun{Node: build, Status: "failed", ExitCode: 1, Start: at(1000), End: at(1100)})
	r.RoundEnded(run.Outcome{Total: 1, Started: 1, Failed: []string{"ui#build"}, Start: at(1000), Elapsed: 100 * time.Millisecond})
	r.TaskEnded(run.TaskRun{Node: dev, Status: "stopped", Signal: "SIGINT", ExitCode: 130, Start: at(100), End: at(2000)})
	e.Close(time.Now().Add(5 * time.Second))
	pw.Close()
	type line struct {
		Name, Trace, Parent string
		Round               string
	}
	var got []line
	traces := map[string]string{} // trace id -> its name
	for b := range bodies {
		var req jsonRequest
		strictJSON(t, b, &req)
		for _, s := range req.ResourceSpans[0].ScopeSpans[0].Spans {
			l := line{Name: s.Name, Trace: s.TraceID, Parent: s.ParentSpanID}
			for _, kv := range s.Attributes {
				if kv.Key == "vx.watch.round" {
					l.Round = *kv.Value.IntValue
					traces[s.TraceID] = "round " + l.Round
				}
			}
			got = append(got, l)
		}
	}
	for i := range got {
		got[i].Trace, got[i].Parent = traces[got[i].Trace], ""
	}
	want := []line{
		{Name: "ui#build", Trace: "round 1"},
		{Name: "vx watch build dev", Trace: "round 1", Round: "1"},
		{Name: "ui#build", Trace: "round 2"},
		{Name: "vx watch build dev", Trace: "round 2", Round: "2"},
		{Name: "web#build", Trace: "round 1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}
