package run

import (
	"context"
	"fmt"
	"regexp"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/quote"
)

// vx watch and servers others wait for (see ready.go): a task that
// depends on a persistent task starts once the server is ready, at its
// first start and after each restart; when the server restarts (the
// outputs of one of its dependencies changed), the tasks that depend on
// it run again once it is ready. A server not ready in time holds its
// dependents back, and vx keeps waiting: when it becomes ready later (it
// reloaded a fix of yours), they run. In vx watch a server is not stopped
// when its dependents are done: they run again at the next change.

// watchServing follows the servers of a vx watch that others wait for.
type watchServing struct {
	servers map[*Node]*watchServer
	events  chan watchReadyEvent
}

type watchServer struct {
	rw      *readyWatch // the current run's; nil before the first start
	gen     int         // counts the starts, so that a late event of an old run is ignored
	ready   bool
	timedUp bool // the current run was not ready in time
}

type watchReadyEvent struct {
	n   *Node
	gen int
	err error
}

func newWatchServing(g *Graph, dependents [][]*Node) *watchServing {
	sv := &watchServing{servers: map[*Node]*watchServer{}, events: make(chan watchReadyEvent)}
	for _, n := range g.Nodes {
		if n.Config.Persistent && len(dependents[n.index]) > 0 {
			sv.servers[n] = &watchServer{}
		}
	}
	return sv
}

// wrap prepares the wait for n's readiness before n starts: its output
// goes through the line matcher and the tail.
func (sv *watchServing) wrap(n *Node, spec *exec.Spec) {
	s := sv.servers[n]
	if s == nil {
		return
	}
	s.gen++
	s.ready, s.timedUp = false, false
	s.rw = &readyWatch{n: n, cond: n.Config.ReadyWhen}
	if s.rw.cond != nil && s.rw.cond.LineMatches != "" {
		s.rw.re = regexp.MustCompile(s.rw.cond.LineMatches) // checked when the configuration was read
	}
	s.rw.lines = &lineTail{re: s.rw.re, matched: make(chan struct{})}
	spec.Stdout = &tailWriter{t: s.rw.lines, w: spec.Stdout}
	spec.Stderr = &tailWriter{t: s.rw.lines, w: spec.Stderr}
}

// begin starts the wait for n, started with ctx: an event when it is
// ready; when it is not ready in time, one event saying so, then the wait
// goes on without a limit and a last event comes if it becomes ready.
func (sv *watchServing) begin(n *Node, ctx context.Context) {
	s := sv.servers[n]
	if s == nil || s.rw == nil {
		return
	}
	rw, gen := s.rw, s.gen
	rw.ctx = ctx
	send := func(err error) bool {
		select {
		case sv.events <- watchReadyEvent{n, gen, err}:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		err := rw.wait()
		if err == nil || ctx.Err() != nil || !send(err) {
			if err == nil {
				send(nil)
			}
			return
		}
		if rw.waitLonger() == nil {
			send(nil)
		}
	}()
}

// serverState says, for a task that waits for server d, whether the
// wait is over (settled), and if so whether d failed it (blocked: d is
// not running, or was not ready in time), so the task does not run now.
func (w *watchRun) serverState(d *Node) (settled, blocked bool) {
	s := w.srv.servers[d]
	_, running := w.running[d]
	switch {
	case w.state[d.index].waiting || w.state[d.index].again:
		return false, false
	case !running:
		return true, true // it ended (a failure, or it exited): nothing serves
	case s == nil || s.rw == nil:
		return true, false
	case s.ready:
		return true, false
	case s.timedUp:
		return true, true
	}
	return false, false
}

// serverReady handles the end of a server's wait.
func (w *watchRun) serverReady(ev watchReadyEvent) {
	s := w.srv.servers[ev.n]
	if s == nil || ev.gen != s.gen {
		return
	}
	if _, running := w.running[ev.n]; !running {
		return
	}
	if ev.err != nil {
		s.timedUp = true
		fmt.Fprintf(w.stderr, "vx: %s: %v%s; the tasks that depend on it run once it is ready\n", quote.Name(ev.n.ID), ev.err, s.rw.lines.show())
		return
	}
	s.ready, s.timedUp = true, false
	// Dependents skipped while it was not ready (late, or it had ended and
	// started again) run now.
	var again []*Node
	for _, d := range w.dependents[ev.n.index] {
		st := &w.state[d.index]
		if _, running := w.running[d]; !running && !st.waiting && !st.ok {
			again = append(again, d)
		}
	}
	if len(again) > 0 {
		w.later(again)
	}
}

// restartDependents are the tasks that run again with server p when it
// restarts: those that depend on it and are not persistent themselves.
func (w *watchRun) restartDependents(p *Node) []*Node {
	if w.srv.servers[p] == nil {
		return nil
	}
	var out []*Node
	for _, d := range w.dependents[p.index] {
		if !d.Config.Persistent {
			out = append(out, d)
		}
	}
	return out
}

// waitLonger waits, after the timeout, until the server is ready or its
// context is done.
func (w *readyWatch) waitLonger() error {
	if w.re != nil {
		select {
		case <-w.lines.matched:
			return nil
		case <-w.ctx.Done():
			return w.ctx.Err()
		}
	}
	c := *w
	cond := *w.cond
	cond.Timeout = 1<<63 - 1
	c.cond = &cond
	return c.wait()
}

// serverEnded makes a server that ended before it was ready, unless vx
// stopped it, a failure that says so, with its last lines.
func (w *watchRun) serverEnded(r *result) {
	s := w.srv.servers[r.n]
	if s == nil || s.rw == nil || s.ready || r.err != nil || w.state[r.n.index].again || w.ctx.Err() != nil || w.replan != nil {
		return
	}
	cond := "it had started"
	if s.rw.cond != nil {
		cond = "readyWhen " + s.rw.cond.String()
	}
	what := describe(r.res)
	r.err = fmt.Errorf("ended (%s) before it was ready (%s)%s", what, cond, s.rw.lines.show())
}
