package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/internal/remote/wire"
)

// ErrDisabled is wrapped by every call after the first fault: the remote is
// off for the rest of the run.
var ErrDisabled = errors.New("remote: the remote cache is off for this run after an earlier error")

// Client is a cache.Remote served by a vx-remote helper process (or, in
// tests, by any pair of pipes). It is safe for concurrent use; calls
// overlap on the one pipe.
type Client struct {
	cfg  Config
	url  string // for messages
	warn func(string)

	in     io.WriteCloser // the helper's stdin
	wmu    sync.Mutex
	mu     sync.Mutex
	nextID uint32
	calls  map[uint32]*call
	dead   error // the pipe broke or the helper exited
	fault  error // the first fault; calls fail at once after it
	warned bool
	// sigWarned: an entry without a valid signature was reported (once).
	sigWarned bool
	done      chan struct{} // closed when the reader ends
	stop      func() error  // ends the helper (kill after a grace)
	stderr    *limitedBuffer
	exitErr   func() error
}

type call struct {
	mu       sync.Mutex
	w        io.Writer     // where data frames go (readBlob)
	werr     error         // w failed: the bytes are dropped, the call fails
	dropped  bool          // the caller left: drop data
	progress chan struct{} // a data frame arrived (readBlob's idle deadline)
	resp     chan *wire.Response
}

// Timing of the helper's end, so that a hung helper (or a child of it that
// holds its pipes) never holds vx up: Close gives it closeGrace to exit
// after its stdin closes, then kills it, and stops reading its output
// pipes waitDelay after it exited.
const (
	closeGrace = 500 * time.Millisecond
	waitDelay  = 500 * time.Millisecond
)

// Start starts the helper at path with env as its environment and says
// hello, waiting at most cfg.Timeout for the answer, or until ctx ends
// (Ctrl-C). warn receives the one warning of the run (without "vx: ").
// The helper is ended by [Client.Close] or when vx exits (its stdin
// closes).
func Start(ctx context.Context, cfg Config, path string, env []string, warn func(string)) (*Client, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cmd := exec.Command(path)
	cmd.Env = env
	cmd.WaitDelay = waitDelay
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("remote: cannot start %s: %w", path, err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("remote: cannot start %s: %w", path, err)
	}
	errBuf := &limitedBuffer{max: 4 << 10}
	cmd.Stderr = errBuf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("remote: cannot start the helper %s: %w", path, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var exitOnce sync.Once
	var exitErr error
	wait := func() error {
		exitOnce.Do(func() { exitErr = <-waited })
		return exitErr
	}
	c := newClient(cfg, stdin, stdout, warn)
	c.stderr = errBuf
	c.exitErr = wait
	c.stop = func() error {
		stdin.Close()
		t := time.AfterFunc(closeGrace, func() { cmd.Process.Kill() })
		defer t.Stop()
		return wait()
	}
	if err := c.hello(ctx); err != nil {
		cmd.Process.Kill()
		wait()
		return nil, err
	}
	return c, nil
}

// NewPipeClient is a client over an already-connected helper: in is the
// helper's input, out its output. Tests use it with [helper.Serve] in
// process.
func NewPipeClient(cfg Config, in io.WriteCloser, out io.Reader, warn func(string)) (*Client, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	c := newClient(cfg, in, out, warn)
	c.stop = func() error {
		in.Close()
		<-c.done
		return nil
	}
	if err := c.hello(context.Background()); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func newClient(cfg Config, in io.WriteCloser, out io.Reader, warn func(string)) *Client {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if warn == nil {
		warn = func(string) {}
	}
	c := &Client{cfg: cfg, url: cfg.URL, warn: warn, in: in, calls: map[uint32]*call{}, done: make(chan struct{})}
	go c.read(out)
	return c
}

func (c *Client) hello(ctx context.Context) error {
	h := &wire.Hello{Version: wire.Version, URL: c.cfg.URL, Instance: c.cfg.Instance, Header: c.cfg.Header,
		TLSCert: c.cfg.TLSCert, TLSKey: c.cfg.TLSKey, TLSCA: c.cfg.TLSCA, SigningKey: c.cfg.SigningKey,
		Token: c.cfg.Token, TeamID: c.cfg.TeamID, TeamSlug: c.cfg.TeamSlug}
	resp, err := c.roundTrip(ctx, &wire.Request{Op: wire.OpHello, Hello: h}, nil, c.cfg.Timeout, 0)
	if err != nil {
		return fmt.Errorf("remote: the helper did not answer: %s", c.cfg.Redact(err.Error()))
	}
	if resp.Error != nil {
		if resp.Error.Code == wire.CodeProtocol {
			return fmt.Errorf("remote: vx and vx-remote do not match (%s); install both from the same version: go install github.com/vxrun/vx/cmd/...", c.cfg.Redact(resp.Error.Message))
		}
		return fmt.Errorf("remote: %s: %s", c.url, c.cfg.Redact(resp.Error.Error()))
	}
	return nil
}

// read demultiplexes the helper's frames onto the waiting calls.
func (c *Client) read(out io.Reader) {
	defer close(c.done)
	for {
		f, err := wire.ReadFrame(out)
		if err != nil {
			c.die(err)
			return
		}
		c.mu.Lock()
		cl := c.calls[f.ID]
		if f.Kind == wire.KindResponse {
			delete(c.calls, f.ID)
		}
		c.mu.Unlock()
		if cl == nil {
			continue // a call the caller gave up on
		}
		switch f.Kind {
		case wire.KindData:
			cl.mu.Lock()
			if !cl.dropped && cl.werr == nil {
				if cl.w == nil {
					cl.werr = errors.New("remote: the helper sent data for a call that reads none")
				} else if _, err := cl.w.Write(f.Payload); err != nil {
					cl.werr = err
				}
			}
			cl.mu.Unlock()
			select {
			case cl.progress <- struct{}{}:
			default:
			}
		case wire.KindProgress:
			select {
			case cl.progress <- struct{}{}:
			default:
			}
		case wire.KindResponse:
			var resp wire.Response
			if err := json.Unmarshal(f.Payload, &resp); err != nil {
				resp = wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: "cannot decode the helper's answer: " + err.Error()}}
			}
			cl.resp <- &resp
		}
	}
}

// die fails every waiting call once the helper's output ends.
func (c *Client) die(err error) {
	msg := "the helper vx-remote exited"
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
		if c.exitErr != nil {
			if e := c.exitErr(); e != nil {
				msg += " (" + e.Error() + ")"
			}
		}
	} else {
		msg = "the pipe to vx-remote broke: " + err.Error()
	}
	if c.stderr != nil {
		if line := c.stderr.firstLine(); line != "" {
			msg += ": " + line
		}
	}
	c.mu.Lock()
	c.dead = errors.New(c.cfg.Redact(msg))
	calls := c.calls
	c.calls = map[uint32]*call{}
	c.mu.Unlock()
	for _, cl := range calls {
		cl.resp <- nil
	}
}

// roundTrip sends one request and waits for its response. w receives the
// data frames. ctx bounds the wait; the helper is given timeout (or ctx's
// deadline) as the call's own deadline. With idle > 0 the call fails when
// no data frame or answer came for that long, however long it has run:
// a large blob may take minutes while its bytes flow.
//
// Neither a helper that stops reading its input nor one that stops
// answering holds the caller past ctx: the request is written from
// another goroutine, and a cancellation too.
func (c *Client) roundTrip(ctx context.Context, req *wire.Request, w io.Writer, timeout, idle time.Duration) (*wire.Response, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if dl, ok := ctx.Deadline(); ok {
		req.TimeoutMS = max(1, time.Until(dl).Milliseconds())
	}
	payload, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	cl := &call{w: w, resp: make(chan *wire.Response, 1), progress: make(chan struct{}, 1)}
	c.mu.Lock()
	if c.dead != nil {
		c.mu.Unlock()
		return nil, c.dead
	}
	c.nextID++
	id := c.nextID
	c.calls[id] = cl
	c.mu.Unlock()
	written := make(chan error, 1)
	go func() { written <- c.write(wire.Frame{Kind: wire.KindRequest, ID: id, Payload: payload}) }()
	var idleC <-chan time.Time
	var idleTimer *time.Timer
	if idle > 0 {
		idleTimer = time.NewTimer(idle)
		defer idleTimer.Stop()
		idleC = idleTimer.C
	}
	for {
		select {
		case err := <-written:
			written = nil
			if err != nil {
				c.forget(id, cl)
				c.mu.Lock()
				dead := c.dead
				c.mu.Unlock()
				if dead != nil {
					return nil, dead
				}
				return nil, fmt.Errorf("the pipe to vx-remote broke: %w", err)
			}
		case resp := <-cl.resp:
			if resp == nil {
				c.mu.Lock()
				defer c.mu.Unlock()
				return nil, c.dead
			}
			cl.mu.Lock()
			werr := cl.werr
			cl.mu.Unlock()
			if werr != nil && resp.Error == nil {
				return nil, &localError{werr}
			}
			return resp, nil
		case <-cl.progress:
			if idleTimer != nil {
				idleTimer.Reset(idle)
			}
		case <-idleC:
			c.cancel(id, cl)
			return nil, fmt.Errorf("no data for %s", idle)
		case <-ctx.Done():
			c.cancel(id, cl)
			return nil, ctx.Err()
		}
	}
}

// write sends one frame to the helper.
func (c *Client) write(f wire.Frame) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return wire.WriteFrame(c.in, f)
}

// cancel gives up on a call: its data and answer are dropped, and the
// helper is told, without waiting for a helper that does not read.
func (c *Client) cancel(id uint32, cl *call) {
	c.forget(id, cl)
	go c.write(wire.Frame{Kind: wire.KindCancel, ID: id})
}

func (c *Client) forget(id uint32, cl *call) {
	c.mu.Lock()
	delete(c.calls, id)
	c.mu.Unlock()
	cl.mu.Lock()
	cl.dropped = true
	cl.mu.Unlock()
}

// localError is a failure on vx's side (writing a received blob), not the
// remote's: it does not turn the remote off.
type localError struct{ err error }

func (e *localError) Error() string { return "remote: " + e.err.Error() }
func (e *localError) Unwrap() error { return e.err }

// do runs a call and sorts its outcome: a miss comes back as an error
// matching wire.ErrNotFound, a fault turns the remote off (one warning)
// and comes back wrapped in ErrDisabled's message.
func (c *Client) do(ctx context.Context, req *wire.Request, w io.Writer, timeout, idle time.Duration) (*wire.Response, error) {
	c.mu.Lock()
	fault := c.fault
	c.mu.Unlock()
	if fault != nil {
		return nil, fmt.Errorf("%w: %v", ErrDisabled, fault)
	}
	resp, err := c.roundTrip(ctx, req, w, timeout, idle)
	if err == nil && resp.Error == nil {
		return resp, nil
	}
	var le *localError
	if errors.As(err, &le) {
		return nil, err
	}
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil, err // the caller gave up: not the remote's fault
	}
	if err == nil && resp.Error.Code == wire.CodeCanceled && ctx.Err() != nil {
		return nil, ctx.Err() // the helper saw the caller's cancellation first
	}
	if err == nil {
		if errors.Is(resp.Error, wire.ErrNotFound) {
			m := &missError{op: req.Op, e: resp.Error, redact: c.cfg.Redact}
			if resp.Error.Code == wire.CodeBadSignature {
				c.mu.Lock()
				first := !c.sigWarned
				c.sigWarned = true
				c.mu.Unlock()
				if first {
					c.warn(fmt.Sprintf("remote cache %s: an entry was not used: %s; such entries are misses (said once per run)", c.url, c.cfg.Redact(resp.Error.Message)))
				}
			}
			return nil, m
		}
		err = resp.Error
	} else if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", c.timeoutOf(ctx, timeout))
	}
	msg := c.cfg.Redact(err.Error())
	c.mu.Lock()
	first := c.fault == nil
	if first {
		c.fault = errors.New(msg)
	}
	c.mu.Unlock()
	if first {
		c.warn(fmt.Sprintf("remote cache %s: %s: %s; continuing without it", c.url, req.Op, msg))
	}
	return nil, fmt.Errorf("remote: %s: %s: %s", c.url, req.Op, msg)
}

func (c *Client) timeoutOf(ctx context.Context, timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	return c.cfg.Timeout
}

// missError is a miss: it matches wire.ErrNotFound and says why.
type missError struct {
	op     string
	e      *wire.Error
	redact func(string) string
}

func (m *missError) Error() string {
	return "remote: " + m.op + ": " + m.redact(m.e.Error())
}
func (m *missError) Is(target error) bool { return target == wire.ErrNotFound }

// BadSignature reports whether err is a miss because the entry's signature
// was absent or wrong.
func BadSignature(err error) bool {
	var m *missError
	return errors.As(err, &m) && m.e.Code == wire.CodeBadSignature
}

// Fault returns the error that turned the remote off, or nil.
func (c *Client) Fault() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// Writable reports whether results may be uploaded (--remote-write).
func (c *Client) Writable() bool { return c.cfg.Write }

// URL is the remote's URL, for messages.
func (c *Client) URL() string { return c.url }

// Capabilities asks the server what it supports.
func (c *Client) Capabilities(ctx context.Context) (*wire.Capabilities, error) {
	resp, err := c.do(ctx, &wire.Request{Op: wire.OpCapabilities}, nil, c.cfg.Timeout, 0)
	if err != nil {
		return nil, err
	}
	if resp.Capabilities == nil {
		return nil, errors.New("remote: the helper answered capabilities without them")
	}
	return resp.Capabilities, nil
}

// GetActionResult implements cache.Remote. From a turbo server the entry
// comes with its blobs, in one artifact that may be large: that call has
// an idle deadline (no bytes for the per-call timeout) instead of a total
// one.
func (c *Client) GetActionResult(ctx context.Context, action wire.Digest) ([]byte, error) {
	timeout, idle := c.cfg.Timeout, time.Duration(0)
	if c.cfg.Protocol() == ProtocolTurbo {
		timeout, idle = 0, c.cfg.Timeout
	}
	resp, err := c.do(ctx, &wire.Request{Op: wire.OpGetActionResult, Action: &action}, nil, timeout, idle)
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// UpdateActionResult implements cache.Remote. It refuses when the client
// is read-only. To a turbo server it sends the entry with its blobs, under
// an idle deadline like a turbo lookup's.
func (c *Client) UpdateActionResult(ctx context.Context, action wire.Digest, result []byte) error {
	if !c.cfg.Write {
		return errors.New("remote: the remote cache is read-only for this run (--remote-write or VX_REMOTE_WRITE=1 allows writing)")
	}
	timeout, idle := c.cfg.Timeout, time.Duration(0)
	if c.cfg.Protocol() == ProtocolTurbo {
		// The result's update sends the whole entry: an idle deadline, as
		// for a lookup.
		timeout, idle = 0, c.cfg.Timeout
	}
	_, err := c.do(ctx, &wire.Request{Op: wire.OpUpdateActionResult, Action: &action, Result: result}, nil, timeout, idle)
	return err
}

// FindMissingBlobs implements cache.Remote.
func (c *Client) FindMissingBlobs(ctx context.Context, blobs []wire.Digest) ([]wire.Digest, error) {
	if len(blobs) == 0 {
		return nil, nil
	}
	resp, err := c.do(ctx, &wire.Request{Op: wire.OpFindMissingBlobs, Digests: blobs}, nil, c.cfg.Timeout, 0)
	if err != nil {
		return nil, err
	}
	return resp.Missing, nil
}

// UploadBlobs implements cache.Remote. The helper reads the files itself.
func (c *Client) UploadBlobs(ctx context.Context, blobs []wire.BlobSource) error {
	if !c.cfg.Write {
		return errors.New("remote: the remote cache is read-only for this run (--remote-write or VX_REMOTE_WRITE=1 allows writing)")
	}
	if len(blobs) == 0 {
		return nil
	}
	var total int64
	for _, b := range blobs {
		total += b.Digest.Size
	}
	_, err := c.do(ctx, &wire.Request{Op: wire.OpUploadBlobs, Blobs: blobs}, nil, c.transferTimeout(total), 0)
	return err
}

// ReadBlob implements cache.Remote. The caller verifies the digest. A
// blob has no total deadline, only an idle one: the call fails when no
// bytes came for the per-call timeout, and lasts as long as they flow.
func (c *Client) ReadBlob(ctx context.Context, d wire.Digest, w io.Writer) error {
	if d.Size == 0 {
		return nil
	}
	_, err := c.do(ctx, &wire.Request{Op: wire.OpReadBlob, Digests: []wire.Digest{d}}, w, 0, c.cfg.Timeout)
	return err
}

// transferTimeout allows an upload the per-call deadline plus one second
// per MiB.
func (c *Client) transferTimeout(size int64) time.Duration {
	return c.cfg.Timeout + time.Duration(size>>20)*time.Second
}

// Close ends the helper: its stdin closes, it cancels what is still running
// and exits; it is killed if it has not within two seconds.
func (c *Client) Close() error {
	if c.stop == nil {
		return nil
	}
	stop := c.stop
	c.stop = nil
	return stop()
}

// limitedBuffer keeps the first max bytes written to it (the helper's
// stderr, for the message when it dies).
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) firstLine() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	line, _, _ := strings.Cut(strings.TrimSpace(b.buf.String()), "\n")
	if len(line) > 200 {
		line = line[:200] + "..."
	}
	return line
}
