// Package helper is the serving side of vx's remote-cache helper: it reads
// calls from vx over a pipe ([wire]) and runs them against a
// [wire.Backend]. cmd/vx-remote plugs in the gRPC backend; tests plug in
// fakes. The package itself links no gRPC.
package helper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vxrun/vx/internal/remote/wire"
)

// Dialer makes the backend from the hello's configuration. Its errors reach
// vx as the hello's error, so they must not contain the header or the
// signing key.
type Dialer func(h *wire.Hello) (wire.Backend, error)

// Serve answers calls read from in on out until in ends, then cancels the
// calls still running, waits for them and closes the backend. It returns an
// error only when the stream itself breaks.
func Serve(in io.Reader, out io.Writer, dial Dialer) error {
	s := &server{out: out, cancels: map[uint32]context.CancelFunc{}}
	ctx, cancelAll := context.WithCancel(context.Background())
	defer func() {
		cancelAll()
		s.wg.Wait()
		if s.backend != nil {
			s.backend.Close()
		}
	}()
	for {
		f, err := wire.ReadFrame(in)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch f.Kind {
		case wire.KindCancel:
			s.mu.Lock()
			if c := s.cancels[f.ID]; c != nil {
				c()
			}
			s.mu.Unlock()
		case wire.KindRequest:
			var req wire.Request
			if err := json.Unmarshal(f.Payload, &req); err != nil {
				s.respond(f.ID, &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: "cannot decode the request: " + err.Error()}})
				continue
			}
			if req.Op == wire.OpHello {
				s.hello(f.ID, req.Hello, dial)
				continue
			}
			if s.backend == nil {
				s.respond(f.ID, &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: "a call before hello"}})
				continue
			}
			cctx, cancel := context.WithCancel(ctx)
			if req.TimeoutMS > 0 {
				cctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
			}
			s.mu.Lock()
			s.cancels[f.ID] = cancel
			s.mu.Unlock()
			s.wg.Add(1)
			go func(id uint32, req wire.Request) {
				defer s.wg.Done()
				resp := s.call(wire.WithProgress(cctx, s.progress(id)), id, &req)
				s.mu.Lock()
				delete(s.cancels, id)
				s.mu.Unlock()
				cancel()
				s.respond(id, resp)
			}(f.ID, req)
		default:
			return fmt.Errorf("helper: unknown frame kind %q", f.Kind)
		}
	}
}

type server struct {
	out     io.Writer
	wmu     sync.Mutex // serialises frames on out
	mu      sync.Mutex // guards cancels
	cancels map[uint32]context.CancelFunc
	wg      sync.WaitGroup
	backend wire.Backend
}

func (s *server) hello(id uint32, h *wire.Hello, dial Dialer) {
	switch {
	case h == nil:
		s.respond(id, &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: "hello without configuration"}})
	case h.Version != wire.Version:
		s.respond(id, &wire.Response{Version: wire.Version, Error: &wire.Error{Code: wire.CodeProtocol,
			Message: fmt.Sprintf("vx speaks protocol %d, this vx-remote speaks %d", h.Version, wire.Version)}})
	case s.backend != nil:
		s.respond(id, &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: "a second hello"}})
	default:
		b, err := dial(h)
		if err != nil {
			s.respond(id, &wire.Response{Version: wire.Version, Error: wire.AsError(err)})
			return
		}
		s.backend = b
		s.respond(id, &wire.Response{Version: wire.Version})
	}
}

func (s *server) call(ctx context.Context, id uint32, req *wire.Request) *wire.Response {
	b := s.backend
	resp := &wire.Response{}
	var err error
	switch req.Op {
	case wire.OpCapabilities:
		resp.Capabilities, err = b.Capabilities(ctx)
	case wire.OpGetActionResult, wire.OpUpdateActionResult:
		if req.Action == nil {
			return &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: req.Op + " without an action digest"}}
		}
		if req.Op == wire.OpGetActionResult {
			resp.Result, err = b.GetActionResult(ctx, *req.Action)
		} else {
			err = b.UpdateActionResult(ctx, *req.Action, req.Result)
		}
	case wire.OpFindMissingBlobs:
		resp.Missing, err = b.FindMissingBlobs(ctx, req.Digests)
	case wire.OpUploadBlobs:
		err = b.UploadBlobs(ctx, req.Blobs)
	case wire.OpReadBlob:
		if len(req.Digests) != 1 {
			return &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: "readBlob takes one digest"}}
		}
		err = b.ReadBlob(ctx, req.Digests[0], &dataWriter{s: s, id: id})
	default:
		return &wire.Response{Error: &wire.Error{Code: wire.CodeProtocol, Message: fmt.Sprintf("unknown operation %q", req.Op)}}
	}
	if err != nil {
		return &wire.Response{Error: wire.AsError(err)}
	}
	return resp
}

func (s *server) respond(id uint32, resp *wire.Response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(&wire.Response{Error: &wire.Error{Code: wire.CodeInternal, Message: err.Error()}})
	}
	s.write(wire.Frame{Kind: wire.KindResponse, ID: id, Payload: b})
}

// write sends a frame; a broken pipe means vx is gone, and the read loop
// ends on its own when stdin closes.
func (s *server) write(f wire.Frame) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return wire.WriteFrame(s.out, f)
}

// progressEvery bounds how often a call tells vx that bytes arrive.
const progressEvery = 200 * time.Millisecond

// progress returns the function that sends call id's progress frames, at
// most one per progressEvery.
func (s *server) progress(id uint32) func() {
	var mu sync.Mutex
	var last time.Time
	return func() {
		mu.Lock()
		now := time.Now()
		send := now.Sub(last) >= progressEvery
		if send {
			last = now
		}
		mu.Unlock()
		if send {
			s.write(wire.Frame{Kind: wire.KindProgress, ID: id})
		}
	}
}

// dataWriter sends a blob's bytes as data frames of the call.
type dataWriter struct {
	s  *server
	id uint32
}

func (w *dataWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		c := min(len(p), wire.DataChunk)
		if err := w.s.write(wire.Frame{Kind: wire.KindData, ID: w.id, Payload: p[:c]}); err != nil {
			return n, err
		}
		n += c
		p = p[c:]
	}
	return n, nil
}
