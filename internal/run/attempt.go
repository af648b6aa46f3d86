package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/quote"
)

// This file runs one task's attempts, for vx run ([Execute]) and vx watch
// ([Watch]) alike: each attempt is the task's scripts ([startScripts]),
// stopped when it runs longer than the task's timeout, and a failed
// attempt runs again while retries remain.
//
//   - The timeout and the retries are the task's entry's ("timeout",
//     "retries") when it has them, else [Options.Timeout] and
//     [Options.Retries] (vx run's --timeout, --retries): the entry wins
//     over the flag, also when it says 0. A persistent task has neither.
//   - A timed-out attempt's tree is stopped as Ctrl-C stops it (SIGTERM,
//     then killed after [Options.Grace]); the attempt fails with
//     [*TimeoutError], and is retried when retries remain.
//   - An attempt ended because the task was stopped (Ctrl-C, SIGTERM, vx
//     watch stopping it to run again, a second signal's kill) is never
//     retried, nor is one whose scripts could not start.
//   - Each retry is announced in the task's own output ("vx: web#test
//     failed (exit 1), retrying (attempt 2 of 3)"), and so is a pass
//     after a failure: the task is flaky. The cache keeps the passing
//     attempt's logs and outputs only (TaskCache.retry).

// TimeoutError is why a task failed when its last attempt ran longer than
// its timeout.
type TimeoutError struct {
	After  time.Duration
	Result exec.Result // how its tree ended once stopped
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("timed out after %s: %s", config.FormatDuration(e.After), describe(e.Result))
}

// errTimedOut is the cause of an attempt's context when its time is up.
var errTimedOut = errors.New("run: the attempt timed out")

// attemptPolicy is how n's attempts run.
type attemptPolicy struct {
	timeout time.Duration // 0: no limit
	retries int           // attempts after the first, at most
}

// policyOf returns n's timeout and retries: its entry's, else the run's
// (the flags').
func policyOf(n *Node, timeout time.Duration, retries int) attemptPolicy {
	if n.Config.Persistent {
		return attemptPolicy{}
	}
	p := attemptPolicy{timeout: timeout, retries: retries}
	if n.Config.Timeout != nil {
		p.timeout = *n.Config.Timeout
	}
	if n.Config.Retries != nil {
		p.retries = *n.Config.Retries
	}
	return p
}

// AttemptsOf returns n's timeout (0: none) and retries, from its entry or
// else from timeout and retries (the flags'): what a run gives it.
func AttemptsOf(n *Node, timeout time.Duration, retries int) (time.Duration, int) {
	p := policyOf(n, timeout, retries)
	return p.timeout, p.retries
}

// attemptInfo is what became of a task's attempts.
type attemptInfo struct {
	n        int  // attempts started (0: none ran: a cache hit, or not started)
	flaky    bool // an attempt failed, and the last passed
	timedOut bool // the last attempt timed out
}

// attempts is a task being run in attempts: a [process] whose Wait
// returns the last attempt's end.
type attempts struct {
	ctx    context.Context // the task's: done when the task is stopped
	n      *Node
	spec   exec.Spec
	policy attemptPolicy
	log    io.Writer  // the task's output as shown, for vx's lines between attempts (not kept by the cache)
	tc     *TaskCache // nil: not cached
	argv   []string

	mu      sync.Mutex
	cur     process
	curCtx  context.Context    // cur's attempt context, which its timeout ends
	stop    context.CancelFunc // releases curCtx
	stopped bool               // Kill was called: no attempt starts any more

	info attemptInfo // set by Wait
}

// startAttempts starts n's first attempt with spec, under ctx; its end and
// those of the attempts after it are Wait's. log is where vx writes its
// lines about the attempts (the task's output, before the cache keeps
// it); tc is the cache that keeps n's result, or nil. An error is the
// first attempt's failure to start ([startScripts]).
func startAttempts(ctx context.Context, n *Node, spec exec.Spec, policy attemptPolicy, log io.Writer, tc *TaskCache) (*attempts, error) {
	a := &attempts{ctx: ctx, n: n, spec: spec, policy: policy, log: log, tc: tc}
	if policy.retries > 0 {
		tc.firstAttempt(n)
	}
	if err := a.start(); err != nil {
		return nil, err
	}
	a.argv = a.cur.Argv()
	return a, nil
}

// start starts one attempt, in a context of its own that its timeout
// ends. It is called with mu held, or before Wait.
func (a *attempts) start() error {
	ctx, stop := a.ctx, context.CancelFunc(func() {})
	if a.policy.timeout > 0 {
		ctx, stop = context.WithTimeoutCause(a.ctx, a.policy.timeout, errTimedOut)
	}
	p, err := startScripts(ctx, a.n, a.spec)
	if err != nil {
		stop()
		return err
	}
	a.cur, a.curCtx, a.stop = p, ctx, stop
	a.info.n++
	return nil
}

func (a *attempts) Argv() []string { return a.argv }

func (a *attempts) Kill() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	return a.cur.Kill()
}

// Wait waits for each attempt in turn and starts the next while the task
// fails and retries remain; it returns the last attempt's end, with a
// [*TimeoutError] when that one timed out.
func (a *attempts) Wait() (exec.Result, error) {
	id := quote.Name(a.n.ID)
	total := a.policy.retries + 1
	for {
		a.mu.Lock()
		p, ctx, stop := a.cur, a.curCtx, a.stop
		a.mu.Unlock()
		res, err := p.Wait()
		// The attempt's own time was up (not the task's stop): it timed
		// out, whatever its tree's exit status once stopped.
		timedOut := a.ctx.Err() == nil && errors.Is(context.Cause(ctx), errTimedOut)
		stop()
		if !timedOut && err == nil && res.ExitCode == 0 {
			a.info.timedOut = false
			if a.info.n > 1 {
				a.info.flaky = true
				fmt.Fprintf(a.log, "vx: %s passed on attempt %d of %d: flaky\n", id, a.info.n, total)
			}
			return res, nil
		}
		what := "failed (" + exitText(res) + ")"
		a.info.timedOut = timedOut
		if timedOut {
			what = "timed out after " + config.FormatDuration(a.policy.timeout)
			if err == nil {
				err = &TimeoutError{After: a.policy.timeout, Result: res}
			}
		}
		// Not retried: the task was stopped, its scripts could not start
		// (err, but for a timeout), or it stopped on the terminal.
		a.mu.Lock()
		stopped := a.stopped || a.ctx.Err() != nil
		a.mu.Unlock()
		_, isTimeout := err.(*TimeoutError)
		if a.info.n >= total || stopped || (err != nil && !isTimeout) || res.TerminalStop != "" {
			if timedOut {
				fmt.Fprintf(a.log, "vx: %s %s\n", id, what)
			}
			if a.info.n > 1 && !stopped {
				fmt.Fprintf(a.log, "vx: %s failed on all %d attempts\n", id, a.info.n)
			}
			return res, err
		}
		fmt.Fprintf(a.log, "vx: %s %s, retrying (attempt %d of %d)\n", id, what, a.info.n+1, total)
		a.tc.retry(a.n)
		a.mu.Lock()
		if a.stopped || a.ctx.Err() != nil {
			a.mu.Unlock()
			return res, err // stopped while the retry was being readied
		}
		serr := a.start()
		a.mu.Unlock()
		if serr != nil {
			if a.ctx.Err() != nil {
				return exec.Result{ExitCode: StopCode(a.ctx)}, nil // stopped between two attempts
			}
			return exec.Result{ExitCode: 127}, serr
		}
	}
}

// exitText is an attempt's end in a few words: "exit 1", "killed by
// SIGTERM".
func exitText(r exec.Result) string {
	if r.Signal != "" {
		return "killed by " + r.Signal
	}
	return fmt.Sprintf("exit %d", r.ExitCode)
}

// attemptLog is where vx's lines about n's attempts go: n's output as
// shown (shown), or, when n's output is not shown (--output-logs
// hash-only or none), where vx's own lines for n go.
func (s *scheduler) attemptLog(n *Node, shown io.Writer) io.Writer {
	if shown == io.Discard {
		return s.logs[n.index].shownErr
	}
	return shown
}

// capture returns n's key and the capture of its logs, when the cache
// keeps n's result; nil when it does not (tc may be nil).
func (tc *TaskCache) capture(n *Node) (*cache.Key, *cache.Capture) {
	if tc == nil {
		return nil, nil
	}
	tc.mu.Lock()
	defer tc.mu.Unlock()
	cp, f := tc.caps[n], tc.keys[n]
	if cp == nil || f == nil {
		return nil, nil
	}
	return f.key, cp
}

// firstAttempt notes n's outputs as its first attempt starts, when it may
// be retried: the entry is to hold only what the passing attempt wrote.
func (tc *TaskCache) firstAttempt(n *Node) {
	if k, cp := tc.capture(n); cp != nil {
		tc.C.FirstAttempt(k, cp, n.Project.Dir)
	}
}

// retry readies n's capture for another attempt: the failed attempt's
// logs are dropped and the outputs it wrote noted.
func (tc *TaskCache) retry(n *Node) {
	if k, cp := tc.capture(n); cp != nil {
		tc.C.Retry(k, cp, n.Project.Dir)
	}
}
