package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/quote"
)

// A task may depend on a persistent task (a dev server): the server
// starts, and its dependents start once it is ready, as its "readyWhen"
// says (a line of its output matches, a port accepts, a URL answers), or
// as soon as it has started without one. A server that is not ready in
// time, or that ends first, fails, and its dependents do not run. Once no
// dependent runs or may still start, the server's tree is stopped, unless
// the user asked for the server itself.

// tailLines is how many of a server's last lines of output a readiness
// failure shows.
const tailLines = 10

// serving follows the persistent tasks of a run that others depend on.
// Its methods are called by the scheduler's goroutine only, but for
// the probes' sends on events.
type serving struct {
	watches map[*Node]*readyWatch
	events  chan readyEvent
}

// readyWatch is one persistent task that others wait for.
type readyWatch struct {
	n      *Node
	cond   *config.ReadyWhen // nil: ready once started
	re     *regexp.Regexp    // cond.LineMatches, compiled
	lines  *lineTail         // its output, for the matcher and for failures
	ctx    context.Context   // the task's own: cancelled to stop its tree
	cancel context.CancelCauseFunc

	released bool  // the dependents were let go: ready, or not ready in time
	notReady error // why it did not become ready, once it is known
	stopped  bool  // vx stopped it: its dependents are done
}

type readyEvent struct {
	w   *readyWatch
	err error // nil: ready
}

// newServing finds the persistent tasks of g that tasks of g wait for.
func newServing(g *Graph, dependents [][]*Node) *serving {
	sv := &serving{events: make(chan readyEvent)}
	for _, n := range g.Nodes {
		if !n.Config.Persistent || len(dependents[n.index]) == 0 {
			continue
		}
		if sv.watches == nil {
			sv.watches = map[*Node]*readyWatch{}
		}
		w := &readyWatch{n: n, cond: n.Config.ReadyWhen}
		if w.cond != nil && w.cond.LineMatches != "" {
			w.re = regexp.MustCompile(w.cond.LineMatches) // checked when the configuration was read
		}
		sv.watches[n] = w
	}
	return sv
}

// taskCtx is the context n's process is started with: the run's, or for
// a server others wait for, its own below it, which vx cancels to stop it.
func (sv *serving) taskCtx(ctx context.Context, n *Node) context.Context {
	w := sv.watches[n]
	if w == nil {
		return ctx
	}
	w.ctx, w.cancel = context.WithCancelCause(ctx)
	return w.ctx
}

// wrap makes n's output, both streams, go through the line matcher and
// the tail that failures show.
func (sv *serving) wrap(n *Node, spec *exec.Spec) {
	w := sv.watches[n]
	if w == nil {
		return
	}
	w.lines = &lineTail{re: w.re, matched: make(chan struct{})}
	spec.Stdout = &tailWriter{t: w.lines, w: spec.Stdout}
	spec.Stderr = &tailWriter{t: w.lines, w: spec.Stderr}
}

// beginReady starts the wait for n to be ready, once its process has started.
func (s *scheduler) beginReady(n *Node) {
	sv := s.serve
	w := sv.watches[n]
	if w == nil || s.running[n] == nil || w.ctx == nil {
		return
	}
	go func() {
		err := w.wait()
		select {
		case sv.events <- readyEvent{w, err}:
		case <-w.ctx.Done():
		}
	}()
	// With --continue, a server may start after what waits for it was
	// blocked by another failure: nobody needs it.
	s.stopIdleServers()
}

// wait waits until the server is ready, its time is up or its context is
// done (it ended, was stopped, or the run was).
func (w *readyWatch) wait() error {
	if w.cond == nil {
		return nil
	}
	timeout := w.cond.Wait()
	ctx, cancel := context.WithTimeout(w.ctx, timeout)
	defer cancel()
	var probe func(context.Context) error
	switch {
	case w.re != nil:
		select {
		case <-w.lines.matched:
			return nil
		case <-ctx.Done():
			return w.timeoutErr(timeout, nil)
		}
	case w.cond.Port != 0:
		probe = func(ctx context.Context) error { return probePort(ctx, w.cond.Port) }
	default:
		probe = func(ctx context.Context) error { return probeURL(ctx, w.cond.URL) }
	}
	t := time.NewTicker(probeInterval)
	defer t.Stop()
	var last error // what the last try that was not cut short found
	for {
		err := probe(ctx)
		if err == nil {
			return nil
		}
		last = lastTry(last, err, ctx.Err() != nil)
		select {
		case <-t.C:
		case <-ctx.Done():
			return w.timeoutErr(timeout, last)
		}
	}
}

// lastTry is what a failed readiness wait reports as its last try, given
// the one it kept (last, nil at first) and the try that just failed (err):
// err, unless the wait's own end cut it short (cut) or it only timed out
// after the server had answered: an answer ("answered 404") says more of
// the server than a try that a loaded machine did not finish in time.
func lastTry(last, err error, cut bool) error {
	if last == nil {
		return err
	}
	var answered statusError
	var ne net.Error
	if cut || errors.As(last, &answered) && errors.As(err, &ne) && ne.Timeout() {
		return last
	}
	return err
}

// timeoutErr says that the server was not ready in time, with the last
// probe's failure.
func (w *readyWatch) timeoutErr(timeout time.Duration, last error) error {
	msg := fmt.Sprintf("was not ready within %s (readyWhen %s)", config.FormatDuration(timeout), w.cond)
	if last != nil {
		msg += "; last try: " + oneLine(last)
	}
	return errors.New(msg)
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}

// readyEvent handles the end of a wait: a ready server lets its
// dependents start; one not ready in time is stopped, and fails with
// that reason when it ends.
func (s *scheduler) readyEvent(ev readyEvent) {
	w := ev.w
	if w.released || s.running[w.n] == nil || w.ctx.Err() != nil {
		return // it ended, or was stopped, meanwhile
	}
	if ev.err != nil && w.n.Target {
		// Asked for itself (vx run dev e2e): it keeps running, but what
		// waits for it does not run.
		fmt.Fprintf(s.stderr, "vx: %s: %v%s\n", quote.Name(w.n.ID), ev.err, w.lines.show())
		w.released = true
		s.release(w.n, true)
		s.notRun(w.n)
		return
	}
	if ev.err != nil {
		// Its dependents are let go, as failed, once its tree has ended
		// and its failure is reported (after the grace at most).
		w.notReady = ev.err
		w.cancel(&exec.Interrupt{Signal: syscall.SIGTERM})
		return
	}
	w.released = true
	s.release(w.n, false)
}

// endedServer adjusts the end of a server others wait for, before it is
// recorded: one that ends before it was ready failed (whatever its exit
// code), with its last lines; one vx stopped, or that the run's stop
// ended, did not. It reports whether its dependents were let go
// already.
func (s *scheduler) endedServer(r *result) (released bool) {
	w := s.serve.watches[r.n]
	if w == nil {
		return false
	}
	if w.cancel != nil {
		defer w.cancel(nil)
	}
	switch {
	case w.notReady != nil:
		r.err = fmt.Errorf("%w%s", w.notReady, w.lines.show())
	case w.stopped || s.ctx.Err() != nil || r.err != nil:
	case !w.released:
		what := describe(r.res)
		if r.res.ExitCode == 0 && r.res.Signal == "" {
			what = "exit code 0"
		}
		cond := "it had started"
		if w.cond != nil {
			cond = "readyWhen " + w.cond.String()
		}
		r.err = fmt.Errorf("ended (%s) before it was ready (%s)%s", what, cond, w.lines.show())
	}
	was := w.released
	w.released = true
	return was
}

// stoppedByVx reports whether n is a server vx stopped once its
// dependents were done.
func (s *scheduler) stoppedByVx(n *Node) bool {
	w := s.serve.watches[n]
	return w != nil && w.stopped
}

// afterEnd follows the end of n: when n is a server that failed before it
// was ready, it names the dependents that will not run for it; then it
// stops the servers nobody waits for any more.
func (s *scheduler) afterEnd(n *Node, failed bool) {
	if w := s.serve.watches[n]; w != nil && failed && !w.stopped && s.ctx.Err() == nil {
		s.notRun(n)
	}
	s.stopIdleServers()
}

// notRun names the tasks that will not run because server n was not
// ready.
func (s *scheduler) notRun(n *Node) {
	var ids []string
	for _, d := range s.dependents[n.index] {
		if s.blocked[d.index] && s.out.Tasks[d.index].Start.IsZero() {
			ids = append(ids, quote.Name(d.ID))
		}
	}
	if len(ids) > 0 {
		fmt.Fprintf(s.stderr, "vx: not run, as %s was not ready: %s\n", quote.Name(n.ID), listSome(ids, 8))
	}
}

// stopIdleServers stops each running server no task waits for any more:
// its dependents ended, or will not start. A server the user asked for
// itself (vx run dev e2e) keeps running until the run is stopped.
func (s *scheduler) stopIdleServers() {
	for n, w := range s.serve.watches {
		if n.Target || w.stopped || w.cancel == nil || s.running[n] == nil || w.ctx.Err() != nil {
			continue
		}
		if s.waitedFor(n) {
			continue
		}
		w.stopped = true
		w.cancel(&exec.Interrupt{Signal: syscall.SIGTERM})
	}
}

// waitedFor reports whether a dependent of n runs or may still start.
func (s *scheduler) waitedFor(n *Node) bool {
	for _, d := range s.dependents[n.index] {
		if _, ok := s.running[d]; ok {
			return true
		}
		if !s.stopping && !s.blocked[d.index] && s.out.Tasks[d.index].End.IsZero() {
			return true
		}
	}
	return false
}

// lineTail keeps the last lines of a server's output and matches each
// complete line against re; both streams write to it, from their own
// goroutines.
type lineTail struct {
	re      *regexp.Regexp
	matched chan struct{} // closed at the first match

	mu      sync.Mutex
	partial map[*tailWriter][]byte // each stream's unfinished line
	last    []string
	found   bool
}

// line takes one complete line, without its end, and without the
// terminal's escape sequences (colours): dev servers colour parts of
// their "ready" line, and a pattern is written for the text.
func (t *lineTail) line(b []byte) {
	b = stripEscapes(bytes.TrimSuffix(b, []byte("\r")))
	if len(t.last) == tailLines {
		t.last = append(t.last[:0], t.last[1:]...)
	}
	t.last = append(t.last, string(b))
	if t.re != nil && !t.found && t.re.Match(b) {
		t.found = true
		close(t.matched)
	}
}

// show writes the last lines for an error: "; its last lines:" and each
// line indented, or "; it printed nothing".
func (t *lineTail) show() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	last := t.last
	for _, p := range t.partial {
		if len(p) > 0 {
			last = append(last[:len(last):len(last)], string(p))
		}
	}
	if len(last) > tailLines {
		last = last[len(last)-tailLines:]
	}
	if len(last) == 0 {
		return "; it printed nothing"
	}
	var b strings.Builder
	b.WriteString("; its last lines:")
	for _, l := range last {
		b.WriteString("\n    ")
		b.WriteString(strings.Map(func(r rune) rune {
			if r < 0x20 && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, l))
	}
	return b.String()
}

// maxTailLine bounds a line kept whole: longer ones are cut (a server that
// prints megabytes without a line break is matched on its first part).
const maxTailLine = 4096

// tailWriter passes a stream on to w and its lines to t.
type tailWriter struct {
	t *lineTail
	w io.Writer
}

func (tw *tailWriter) Write(p []byte) (int, error) {
	t := tw.t
	t.mu.Lock()
	if t.partial == nil {
		t.partial = map[*tailWriter][]byte{}
	}
	buf := t.partial[tw]
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			room := max(maxTailLine-len(buf), 0)
			buf = append(buf, rest[:min(room, len(rest))]...)
			break
		}
		seg := rest[:i]
		if len(buf) > 0 {
			room := max(maxTailLine-len(buf), 0)
			buf = append(buf, seg[:min(room, len(seg))]...)
			t.line(buf)
			buf = buf[:0]
		} else {
			t.line(seg[:min(maxTailLine, len(seg))])
		}
		rest = rest[i+1:]
	}
	t.partial[tw] = buf
	t.mu.Unlock()
	return tw.w.Write(p)
}

// stripEscapes returns b without ANSI escape sequences: CSI (ESC [ ...
// a final byte from @ to ~: colours, cursor moves), OSC (ESC ] ... ended
// by BEL or ESC \: titles, links) and the others (ESC 7, ESC ( B). A bare
// \r (a line drawn over) keeps what follows it.
func stripEscapes(b []byte) []byte {
	if bytes.IndexByte(b, 0x1b) < 0 && bytes.IndexByte(b, '\r') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			out = out[:0]
		case c != 0x1b:
			out = append(out, c)
		case i+1 < len(b) && b[i+1] == '[':
			i += 2
			for i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
				i++
			}
		case i+1 < len(b) && b[i+1] == ']':
			i += 2
			for i < len(b) && b[i] != 0x07 && !(b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\') {
				i++
			}
			if i < len(b) && b[i] == 0x1b {
				i++
			}
		default:
			// ESC, intermediate bytes (ESC ( B), the final byte.
			i++
			for i < len(b) && b[i] >= 0x20 && b[i] <= 0x2f {
				i++
			}
		}
	}
	return out
}
