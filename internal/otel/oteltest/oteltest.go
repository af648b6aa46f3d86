package oteltest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testtool"
)

// Binary is bin/otelcol of the repository, or the file named by VX_TEST_OTELCOL; ok is false when there is
// none.
func Binary() (string, bool) {
	return remotetest.RepoBinary("VX_TEST_OTELCOL", "otelcol")
}

// Collector is a running collector.
type Collector struct {
	URL string // http://127.0.0.1:port, the OTLP/HTTP endpoint's base

	mu    sync.Mutex
	spans []Span
	bad   []string // lines that were not OTLP JSON
	more  chan struct{}
}

// Span is a span as the collector received it, with the resource's service.name.
type Span struct {
	Service      string
	TraceID      string
	SpanID       string
	ParentSpanID string
	Name         string
	Kind         int
	Start, End   time.Time
	Attrs        map[string]any // strings, int64s, bools, []any of strings
	Links        []Link
	StatusCode   int
	StatusMsg    string
}

// Link is a span's link.
type Link struct {
	TraceID, SpanID string
	Attrs           map[string]any
}

// Start starts the collector on a free loopback port and stops it when the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	bin, ok := Binary()
	if !ok {
		testtool.Missing(t, "otelcol", "make otelcol builds bin/otelcol from tools/otelcol (the OpenTelemetry collector's OTLP receiver); .ci/run does")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-http", addr)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &Collector{URL: "http://" + addr, more: make(chan struct{}, 1)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			c.add(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		go func() { time.Sleep(5 * time.Second); cmd.Process.Kill() }()
		<-done
		cmd.Wait()
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		var log []string
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening ") {
				ready <- ""
			}
			log = append(log, sc.Text())
		}
		ready <- strings.Join(log, "\n")
	}()
	select {
	case msg := <-ready:
		if msg != "" {
			t.Fatalf("otelcol exited at start:\n%s", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("otelcol did not listen within 30s")
	}
	return c
}

// add decodes one line: an ExportTraceServiceRequest in OTLP JSON.
func (c *Collector) add(line []byte) {
	var req struct {
		ResourceSpans []struct {
			Resource struct {
				Attributes []keyValue `json:"attributes"`
			} `json:"resource"`
			ScopeSpans []struct {
				Spans []struct {
					TraceID           string     `json:"traceId"`
					SpanID            string     `json:"spanId"`
					ParentSpanID      string     `json:"parentSpanId"`
					Name              string     `json:"name"`
					Kind              int        `json:"kind"`
					StartTimeUnixNano string     `json:"startTimeUnixNano"`
					EndTimeUnixNano   string     `json:"endTimeUnixNano"`
					Attributes        []keyValue `json:"attributes"`
					Links             []struct {
						TraceID    string     `json:"traceId"`
						SpanID     string     `json:"spanId"`
						Attributes []keyValue `json:"attributes"`
					} `json:"links"`
					Status struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					} `json:"status"`
				} `json:"spans"`
			} `json:"scopeSpans"`
		} `json:"resourceSpans"`
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := json.Unmarshal(line, &req); err != nil {
		c.bad = append(c.bad, fmt.Sprintf("%v: %s", err, line))
		return
	}
	for _, rs := range req.ResourceSpans {
		service, _ := attrs(rs.Resource.Attributes)["service.name"].(string)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				sp := Span{Service: service, TraceID: s.TraceID, SpanID: s.SpanID, ParentSpanID: s.ParentSpanID, Name: s.Name,
					Kind: s.Kind, Start: nanos(s.StartTimeUnixNano), End: nanos(s.EndTimeUnixNano), Attrs: attrs(s.Attributes),
					StatusCode: s.Status.Code, StatusMsg: s.Status.Message}
				for _, l := range s.Links {
					sp.Links = append(sp.Links, Link{l.TraceID, l.SpanID, attrs(l.Attributes)})
				}
				c.spans = append(c.spans, sp)
			}
		}
	}
	select {
	case c.more <- struct{}{}:
	default:
	}
}

// Spans waits until the collector has received at least n spans in all, at most within, and returns them all.
func (c *Collector) Spans(t testing.TB, n int, within time.Duration) []Span {
	t.Helper()
	deadline := time.After(within)
	for {
		c.mu.Lock()
		got, bad := append([]Span{}, c.spans...), c.bad
		c.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("the collector printed lines that are not OTLP JSON:\n%s", strings.Join(bad, "\n"))
		}
		if len(got) >= n {
			return got
		}
		select {
		case <-c.more:
		case <-deadline:
			t.Fatalf("the collector received %d spans within %s, want %d", len(got), within, n)
		}
	}
}

// Reset forgets the spans received so far.
func (c *Collector) Reset() {
	c.mu.Lock()
	c.spans = nil
	c.mu.Unlock()
}

type keyValue struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string `json:"stringValue"`
		BoolValue   *bool   `json:"boolValue"`
		IntValue    *string `json:"intValue"`
		ArrayValue  *struct {
			Values []struct {
				StringValue string `json:"stringValue"`
			} `json:"values"`
		} `json:"arrayValue"`
	} `json:"value"`
}

func attrs(kvs []keyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value; {
		case v.StringValue != nil:
			m[kv.Key] = *v.StringValue
		case v.BoolValue != nil:
			m[kv.Key] = *v.BoolValue
		case v.IntValue != nil:
			var n int64
			fmt.Sscan(*v.IntValue, &n)
			m[kv.Key] = n
		case v.ArrayValue != nil:
			a := []any{}
			for _, e := range v.ArrayValue.Values {
				a = append(a, e.StringValue)
			}
			m[kv.Key] = a
		default:
			m[kv.Key] = nil
		}
	}
	return m
}

func nanos(s string) time.Time {
	var n int64
	fmt.Sscan(s, &n)
	return time.Unix(0, n)
}
