package view

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/vxrun/vx/internal/run"
)

// Profile records a run for `vx run --profile`: it is the run's
// [run.Observer], and [Profile.Write] writes what it saw as a Chrome
// trace-event file, which Perfetto (ui.perfetto.dev) and chrome://tracing
// open.
//
// Each task is a slice on a lane: a task that starts takes the lowest lane
// no running task holds, so a lane holds one task at a time and there are
// as many lanes as tasks ever ran at once (persistent tasks included).
type Profile struct {
	busy  []bool // lanes held by a running task
	spans []span
	open  map[*run.Node]int // the span of each running task
}

type span struct {
	n          *run.Node
	lane       int
	start, end time.Time
	tr         run.TaskRun
	ended      bool
}

// TaskStarted implements [run.Observer].
func (p *Profile) TaskStarted(n *run.Node, at time.Time) {
	lane := 0
	for lane < len(p.busy) && p.busy[lane] {
		lane++
	}
	if lane == len(p.busy) {
		p.busy = append(p.busy, false)
	}
	p.busy[lane] = true
	if p.open == nil {
		p.open = map[*run.Node]int{}
	}
	p.open[n] = len(p.spans)
	p.spans = append(p.spans, span{n: n, lane: lane, start: at})
}

// TaskEnded implements [run.Observer].
func (p *Profile) TaskEnded(tr run.TaskRun) {
	i, ok := p.open[tr.Node]
	if !ok {
		return
	}
	delete(p.open, tr.Node)
	s := &p.spans[i]
	s.end, s.tr, s.ended = tr.End, tr, true
	p.busy[s.lane] = false
}

// CriticalPath returns the ids of the chain of tasks, each depending on
// the one before, whose durations in this run add up to the most: the
// time the run could not have been shorter than, however many tasks ran
// at once. Only tasks that started and ended count; persistent tasks,
// which run until stopped, do not.
func (p *Profile) CriticalPath() ([]string, time.Duration) {
	path, total := p.critical()
	ids := make([]string, len(path))
	for i, s := range path {
		ids[i] = p.spans[s].n.ID
	}
	return ids, total
}

// critical returns the critical path as indices into p.spans, first task
// first, and its length.
func (p *Profile) critical() ([]int, time.Duration) {
	byNode := make(map[*run.Node]int, len(p.spans))
	for i, s := range p.spans {
		if s.ended && !s.n.Config.Persistent {
			byNode[s.n] = i
		}
	}
	// Spans are in start order, so a task's dependencies come before it.
	length := make([]time.Duration, len(p.spans))
	prev := make([]int, len(p.spans))
	last, best := -1, time.Duration(-1)
	for i, s := range p.spans {
		prev[i] = -1
		if _, ok := byNode[s.n]; !ok {
			continue
		}
		for _, d := range s.n.Deps {
			j, ok := byNode[d]
			if ok && (prev[i] < 0 || length[j] > length[prev[i]]) {
				prev[i] = j
			}
		}
		length[i] = s.end.Sub(s.start)
		if prev[i] >= 0 {
			length[i] += length[prev[i]]
		}
		if length[i] > best {
			last, best = i, length[i]
		}
	}
	var path []int
	for i := last; i >= 0; i = prev[i] {
		path = append(path, i)
	}
	for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
		path[a], path[b] = path[b], path[a]
	}
	return path, max(best, 0)
}

// traceEvent is one event of the Trace Event Format (the JSON object form
// chrome://tracing and Perfetto read).
type traceEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"` // microseconds since the run started
	Dur   *float64       `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	ID    int            `json:"id,omitempty"`
	Bp    string         `json:"bp,omitempty"`
	Cname string         `json:"cname,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

// Write writes the trace of the run that ended with out: one process
// named by command, a thread per lane ("lane 1", ...), each task a
// complete event ("X") on its lane named by its id, with its cache state
// as category and in args its project, task, status, cache state, exit
// code and whether it is on the critical path. The critical path is shown
// twice: on a track of its own ("critical path", below the lanes) and by
// flow arrows from each of its tasks to the next. otherData holds the
// command, vx's version and the critical path (ids and milliseconds).
func (p *Profile) Write(w io.Writer, out run.Outcome, command, version string) error {
	origin := out.Start
	us := func(t time.Time) float64 { return math.Round(float64(t.Sub(origin).Nanoseconds())) / 1e3 }
	lanes := len(p.busy)
	path, total := p.critical()
	onPath := make(map[int]bool, len(path))
	for _, i := range path {
		onPath[i] = true
	}
	const pid = 1
	events := []traceEvent{{Name: "process_name", Ph: "M", Pid: pid, Args: map[string]any{"name": command}}}
	for lane := range lanes {
		events = append(events,
			traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: lane + 1, Args: map[string]any{"name": "lane " + strconv.Itoa(lane+1)}},
			traceEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: lane + 1, Args: map[string]any{"sort_index": lane + 1}})
	}
	critTid := lanes + 1
	events = append(events,
		traceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: critTid, Args: map[string]any{"name": "critical path"}},
		traceEvent{Name: "thread_sort_index", Ph: "M", Pid: pid, Tid: critTid, Args: map[string]any{"sort_index": critTid}})
	for i, s := range p.spans {
		end := s.end
		if !s.ended {
			end = origin.Add(out.Elapsed) // not reported ended: draw it to the end of the run
		}
		dur := math.Round(float64(end.Sub(s.start).Nanoseconds())) / 1e3
		cache := s.tr.Cache
		if cache == "" {
			cache = "off"
		}
		args := map[string]any{"project": s.n.Project.Name, "task": s.n.Task, "status": s.tr.Status, "cache": cache,
			"exitCode": s.tr.ExitCode, "critical": onPath[i]}
		if s.tr.Signal != "" {
			args["signal"] = s.tr.Signal
		}
		if s.tr.Attempts > 1 {
			args["attempts"], args["flaky"] = s.tr.Attempts, s.tr.Flaky
		}
		e := traceEvent{Name: s.n.ID, Cat: cache, Ph: "X", Ts: us(s.start), Dur: &dur, Pid: pid, Tid: s.lane + 1, Args: args}
		switch {
		case s.tr.Status == "failed":
			e.Cname = "terrible"
		case cache == "hit" || cache == "remote-hit":
			e.Cname = "good"
		}
		events = append(events, e)
		if onPath[i] {
			c := e
			c.Tid, c.Cat, c.Cname = critTid, "critical", ""
			events = append(events, c)
		}
	}
	for k := 1; k < len(path); k++ {
		a, b := p.spans[path[k-1]], p.spans[path[k]]
		// The arrow leaves a just before it ends, so that it binds to a's
		// slice and not to what follows on its lane.
		from := max(us(a.start), us(a.end)-0.001)
		events = append(events,
			traceEvent{Name: "critical path", Cat: "critical", Ph: "s", Ts: from, Pid: pid, Tid: a.lane + 1, ID: k},
			traceEvent{Name: "critical path", Cat: "critical", Ph: "f", Bp: "e", Ts: us(b.start), Pid: pid, Tid: b.lane + 1, ID: k})
	}
	ids := make([]string, len(path))
	for k, i := range path {
		ids[k] = p.spans[i].n.ID
	}
	doc := struct {
		TraceEvents     []traceEvent   `json:"traceEvents"`
		DisplayTimeUnit string         `json:"displayTimeUnit"`
		OtherData       map[string]any `json:"otherData"`
	}{events, "ms", map[string]any{"command": command, "vx": version, "criticalPath": ids,
		"criticalPathMs": math.Round(float64(total.Microseconds())) / 1e3}}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	return bw.Flush()
}
