package otel

import (
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vxrun/vx/internal/otel/wire"
)

// Limits of the exporter.
const (
	QueueSize  = 4096                   // spans waiting to be encoded; more are dropped
	BatchSize  = 256                    // spans in one request at most
	BatchDelay = 200 * time.Millisecond // how long an ended task's span waits for others before it is sent
	// FlushBound is how long the end of a run waits, at most, for the last spans to be sent.
	FlushBound = wire.FlushBound
)

// Exporter batches spans and writes each batch, encoded, as a frame to the helper's pipe. [Exporter.Add] never
// blocks: a span that finds the queue full is dropped and counted. A pipe that breaks (the helper died) drops
// what follows.
type Exporter struct {
	cfg     *Config
	w       io.Writer
	queue   chan Span
	dropped atomic.Int64
	done    chan struct{}

	mu     sync.Mutex
	closed bool
}

// NewExporter starts writing to w, the helper's stdin: the hello first, then batches as spans are added.
func NewExporter(cfg *Config, w io.Writer) *Exporter {
	e := &Exporter{cfg: cfg, w: w, queue: make(chan Span, QueueSize), done: make(chan struct{})}
	go e.loop()
	return e
}

// Add queues s, or drops it when the queue is full or the exporter is closed.
func (e *Exporter) Add(s Span) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		e.dropped.Add(1)
		return
	}
	select {
	case e.queue <- s:
	default:
		e.dropped.Add(1)
	}
}

// Dropped is how many spans were dropped so far.
func (e *Exporter) Dropped() int64 { return e.dropped.Load() }

// Close sends what is queued and returns once it is written to the pipe, or at deadline, whichever comes
// first; it reports whether everything was written. The caller then closes the pipe.
func (e *Exporter) Close(deadline time.Time) bool {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.queue)
	}
	e.mu.Unlock()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-e.done:
		return true
	case <-t.C:
		return false
	}
}

func (e *Exporter) loop() {
	defer close(e.done)
	hello, _ := json.Marshal(wire.Hello{URL: e.cfg.URL, Headers: e.cfg.Headers, ContentType: e.cfg.ContentType(),
		TimeoutMS: e.cfg.Timeout.Milliseconds(), FlushMS: FlushBound.Milliseconds(), Gzip: e.cfg.Gzip, CAFile: e.cfg.CAFile})
	broken := wire.WriteFrame(e.w, hello) != nil
	var batch []Span
	send := func() {
		if len(batch) == 0 {
			return
		}
		if broken {
			e.dropped.Add(int64(len(batch)))
		} else if wire.WriteFrame(e.w, e.cfg.Encode(batch)) != nil {
			broken = true
			e.dropped.Add(int64(len(batch)))
		}
		batch = batch[:0]
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case s, ok := <-e.queue:
			if !ok {
				send()
				return
			}
			batch = append(batch, s)
			if len(batch) == 1 {
				timer.Reset(BatchDelay)
			}
			if len(batch) >= BatchSize {
				send()
			}
		case <-timer.C:
			send()
		}
	}
}
