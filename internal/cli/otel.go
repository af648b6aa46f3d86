package cli

import (
	"fmt"
	"io"
	osexec "os/exec"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/otel"
	"github.com/vxrun/vx/internal/otel/wire"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
)

// otelRun is a run's OpenTelemetry export (vx run --otel, or OTEL_EXPORTER_OTLP_* variables): the recorder the
// run reports its tasks to, and the helper ("vx-remote otel") that sends them. It never changes what the run
// does or its exit code: a configuration it cannot use or a helper it cannot start is one warning, and the run
// goes on without a trace.
type otelRun struct {
	rec   *otel.Recorder
	exp   *otel.Exporter
	stdin io.WriteCloser
	cmd   *osexec.Cmd
	done  chan struct{} // closed once the helper has exited
	// warned is the helper's stderr: whether it said anything (its one
	// warning), so that vx says why when it stops a helper that had not.
	warned *seenWriter
	url    string // the collector's, redacted
	stderr io.Writer
}

// seenWriter passes what is written on to w and remembers that something was.
type seenWriter struct {
	w    io.Writer
	seen atomic.Bool
}

func (s *seenWriter) Write(b []byte) (int, error) {
	if len(b) > 0 {
		s.seen.Store(true)
	}
	return s.w.Write(b)
}

// startOtel starts the export when --otel or the variables ask for one; nil otherwise.
func startOtel(p *Process, a *parsed, tc *run.TaskCache) *otelRun {
	getenv := func(name string) string {
		v, _ := exec.LookupEnv(p.Environ, name, p.GOOS)
		return v
	}
	cfg, err := otel.FromEnv(a.set["otel"], a.str("otel"), getenv)
	if err != nil {
		fmt.Fprintf(p.Stderr, "vx: warning: %v; the run goes on without a trace\n", err)
		return nil
	}
	if cfg == nil {
		return nil
	}
	helper, err := findHelper(p)
	if err != nil {
		msg := strings.Replace(strings.TrimPrefix(err.Error(), "remote: "), "a remote cache is configured", "the trace is exported (--otel or OTEL_EXPORTER_OTLP_*)", 1)
		fmt.Fprintf(p.Stderr, "vx: warning: otel: %s; the run goes on without a trace\n", msg)
		return nil
	}
	cmd := osexec.Command(helper, "otel")
	cmd.Env = helperEnv(p.Environ, p.GOOS)
	warned := &seenWriter{w: p.Stderr}
	cmd.Stderr = warned // its one warning
	cmd.WaitDelay = 100 * time.Millisecond
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(p.Stderr, "vx: warning: otel: cannot start %s: %v; the run goes on without a trace\n", quote.Q(helper), err)
		return nil
	}
	o := &otelRun{stdin: stdin, cmd: cmd, done: make(chan struct{}), warned: warned, url: wire.Redact(cfg.URL), stderr: p.Stderr}
	go func() {
		cmd.Wait()
		close(o.done)
	}()
	o.exp = otel.NewExporter(cfg, stdin)
	o.rec = otel.NewRecorder(o.exp)
	o.rec.Command = commandLine(p)
	if tc != nil {
		o.rec.Key = func(n *run.Node) string {
			if k, err := tc.Key(n); err == nil {
				return k.Action.Hash
			}
			return ""
		}
	}
	return o
}

// observer is what the run reports its tasks to; nil without an export.
func (o *otelRun) observer() run.Observer {
	if o == nil {
		return nil
	}
	return o.rec
}

// commandLine is how vx was called, for the root span: the arguments after -- hidden, as --profile does.
func commandLine(p *Process) string {
	command := "vx"
	for _, arg := range hideAfterDashes(p.Args, nil) {
		command += " " + quote.Name(arg)
	}
	return command
}

// finish sends the root span of vx run's run and ends the export ([otelRun.stop]).
func (o *otelRun) finish(p *Process, out run.Outcome) {
	if o == nil {
		return
	}
	o.rec.Finish(out, commandLine(p))
	o.stop()
}

// stop sends what is left and ends the helper: it waits at most [otel.FlushBound] in all.
func (o *otelRun) stop() {
	if o == nil {
		return
	}
	deadline := time.Now().Add(otel.FlushBound)
	o.exp.Close(deadline)
	o.stdin.Close()
	t := time.NewTimer(time.Until(deadline) + 100*time.Millisecond)
	defer t.Stop()
	select {
	case <-o.done:
	case <-t.C:
		// The helper's own bound starts when it reads the pipe's end, which
		// a loaded machine may deliver late: vx says what the helper had no
		// time to say.
		o.cmd.Process.Kill()
		<-o.done
		if !o.warned.seen.Load() {
			fmt.Fprintf(o.stderr, "vx: warning: otel: cannot export the trace to %s: no answer within the %s vx waits for the collector at the end of a run; the run goes on, and spans that cannot be sent are dropped\n", o.url, otel.FlushBound)
		}
	}
}

// observers reports to each of obs that is not nil.
type observers []run.Observer

func (os observers) TaskStarted(n *run.Node, at time.Time) {
	for _, o := range os {
		o.TaskStarted(n, at)
	}
}

func (os observers) TaskEnded(tr run.TaskRun) {
	for _, o := range os {
		o.TaskEnded(tr)
	}
}

// RoundEnded tells each of os that is a [run.RoundObserver] (vx watch).
func (os observers) RoundEnded(o run.Outcome) {
	for _, x := range os {
		if r, ok := x.(run.RoundObserver); ok {
			r.RoundEnded(o)
		}
	}
}

// joinObservers returns the one observer of obs that is not nil, one that reports to all of them, or nil.
func joinObservers(obs ...run.Observer) run.Observer {
	var out observers
	for _, o := range obs {
		if o != nil {
			out = append(out, o)
		}
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}
