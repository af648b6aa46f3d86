package run

import "time"

// A RoundObserver is an [Observer] that vx watch also tells when a round ends: o counts the tasks run since the
// tasks were last idle, as the round's summary line does; the last round, cut short when vx watch is stopped,
// ends too (o.Signal set). vx run never calls RoundEnded: its one round is [Execute]'s Outcome.
type RoundObserver interface {
	Observer
	RoundEnded(o Outcome)
}

// observeStart tells the observer, if any, that n started at at.
func (w *watchRun) observeStart(n *Node, at time.Time) {
	if w.o.Observer != nil {
		w.o.Observer.TaskStarted(n, at)
	}
}

// observeEnd tells the observer, if any, what became of n's run r: stopped (to run again, or because vx watch is
// stopping or replanning), failed, cached (a hit of the local store or the remote), or succeeded. It is called
// before ended forgets n's cache of this run.
func (w *watchRun) observeEnd(n *Node, r result, failed bool) {
	if w.o.Observer == nil {
		return
	}
	st := &w.state[n.index]
	tr := TaskRun{Node: n, Start: st.start, End: r.end, ExitCode: r.res.ExitCode, Signal: r.res.Signal, Err: r.err}
	switch {
	case st.again || failed && (w.ctx.Err() != nil || w.replan != nil):
		tr.Status = "stopped"
	case failed:
		tr.Status = "failed"
	case r.cached:
		tr.Status, tr.Cache = "cached", "hit"
	default:
		tr.Status = "succeeded"
	}
	if tr.Cache == "" && st.runTC != nil && n.Cacheable {
		tr.Cache = "miss"
	}
	w.o.Observer.TaskEnded(tr)
}

// observeRound tells a [RoundObserver] that a round ended with o.
func (w *watchRun) observeRound(o Outcome) {
	if ro, ok := w.o.Observer.(RoundObserver); ok {
		ro.RoundEnded(o)
	}
}
