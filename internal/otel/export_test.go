package otel

import (
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/otel/wire"
)

// TestExporterFrames: the hello first, then the spans added before Close in one batch, in the config's
// encoding.
func TestExporterFrames(t *testing.T) {
	cfg := &Config{URL: "http://c/v1/traces", Headers: [][2]string{{"a", "b"}}, Protocol: ProtoHTTPJSON, Timeout: 3 * time.Second,
		Resource: []KeyValue{String("service.name", "vx")}}
	pr, pw := io.Pipe()
	frames := make(chan [][]byte)
	go func() {
		var out [][]byte
		for {
			b, err := wire.ReadFrame(pr)
			if err != nil {
				frames <- out
				return
			}
			out = append(out, b)
		}
	}()
	e := NewExporter(cfg, pw)
	_, spans := testSpans()
	for _, s := range spans {
		e.Add(s)
	}
	if !e.Close(time.Now().Add(5 * time.Second)) {
		t.Fatal("Close: not everything was written")
	}
	pw.Close()
	got := <-frames
	if len(got) != 2 {
		t.Fatalf("%d frames, want the hello and one batch", len(got))
	}
	var h wire.Hello
	strictJSON(t, got[0], &h)
	want := wire.Hello{URL: cfg.URL, Headers: cfg.Headers, ContentType: "application/json", TimeoutMS: 3000, FlushMS: FlushBound.Milliseconds()}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("hello (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(string(EncodeJSON(cfg.Resource, spans)), string(got[1])); diff != "" {
		t.Errorf("batch (-want +got):\n%s", diff)
	}
	if e.Dropped() != 0 {
		t.Errorf("dropped %d", e.Dropped())
	}
}

// blocked is a pipe nobody reads.
type blocked struct{ c chan struct{} }

func (b blocked) Write(p []byte) (int, error) { <-b.c; return 0, io.ErrClosedPipe }

// TestExporterNeverBlocks: a helper that reads nothing costs the run nothing: Add returns at once and drops
// what the queue cannot hold, and Close returns at its deadline.
func TestExporterNeverBlocks(t *testing.T) {
	w := blocked{make(chan struct{})}
	defer close(w.c)
	e := NewExporter(&Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: time.Second}, w)
	_, spans := testSpans()
	start := time.Now()
	const extra = 100
	for range QueueSize + extra {
		e.Add(spans[0])
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("adding %d spans took %s", QueueSize+extra, took)
	}
	if e.Dropped() < extra {
		t.Errorf("dropped %d, want at least %d", e.Dropped(), extra)
	}
	start = time.Now()
	if e.Close(time.Now().Add(200 * time.Millisecond)) {
		t.Error("Close reported everything written to a pipe nobody reads")
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Close took %s, want about 200ms", took)
	}
	e.Add(spans[0]) // after Close: dropped, no panic
}

// TestExporterBatchDelay: a span added alone is sent within BatchDelay, without waiting for Close.
func TestExporterBatchDelay(t *testing.T) {
	pr, pw := io.Pipe()
	e := NewExporter(&Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPJSON, Timeout: time.Second}, pw)
	defer pr.Close()
	defer e.Close(time.Now())
	if _, err := wire.ReadHello(pr); err != nil {
		t.Fatal(err)
	}
	_, spans := testSpans()
	start := time.Now()
	e.Add(spans[0])
	b, err := wire.ReadFrame(pr)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > BatchDelay+time.Second {
		t.Errorf("the span came after %s", took)
	}
	var req jsonRequest
	if err := json.Unmarshal(b, &req); err != nil || len(req.ResourceSpans[0].ScopeSpans[0].Spans) != 1 {
		t.Errorf("batch %s (%v), want one span", b, err)
	}
}
