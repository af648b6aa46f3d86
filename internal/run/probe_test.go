package run

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/config"
)

func TestStatusCode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		code int
		ok   bool
	}{
		{"HTTP/1.1 200 OK\r\n", 200, true},
		{"HTTP/1.0 302 Found\r\n", 302, true},
		{"HTTP/1.1 204\r\n", 204, true},
		{"HTTP/1.1 503 Service Unavailable\n", 503, true},
		{"HTTP/2 200\r\n", 0, false},
		{"SSH-2.0-OpenSSH_9.6\r\n", 0, false},
		{"HTTP/1.1 2000 OK\r\n", 0, false},
		{"HTTP/1.1 20 OK\r\n", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		code, ok := statusCode(tt.line)
		if diff := cmp.Diff([2]any{tt.code, tt.ok}, [2]any{code, ok}); diff != "" {
			t.Errorf("statusCode(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestProbeURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			if r.URL.RawQuery != "deep=1" || r.Host == "" {
				w.WriteHeader(400)
			}
			io.WriteString(w, "ok")
		case "/moved":
			http.Redirect(w, r, "/health", http.StatusFound)
		case "/starting":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	garbage := listen(t, "127.0.0.1:0", func(c net.Conn) { io.WriteString(c, "SSH-2.0-x\r\n") })
	silent := listen(t, "127.0.0.1:0", func(c net.Conn) { time.Sleep(3 * time.Second) })
	tests := []struct {
		url  string
		want string // "" for ready, else a part of the error
	}{
		{srv.URL + "/health?deep=1", ""},
		{fmt.Sprintf("http://localhost:%d/health?deep=1", port), ""},
		{srv.URL + "/moved", ""},
		{srv.URL + "/starting", `answered "HTTP/1.1 503 Service Unavailable"`},
		{srv.URL + "/nope", `answered "HTTP/1.1 404 Not Found"`},
		{"http://" + garbage + "/", `not an HTTP answer: "SSH-2.0-x"`},
		{"http://" + silent + "/", "i/o timeout"},
		{"http://127.0.0.1:" + closedPort(t) + "/", "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			t.Parallel()
			err := probeURL(context.Background(), tt.url)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("probeURL(%s) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

func TestProbePort(t *testing.T) {
	t.Parallel()
	v4 := listen(t, "127.0.0.1:0", func(net.Conn) {})
	_, p4, _ := net.SplitHostPort(v4)
	tests := []struct {
		name, port string
		ready      bool
	}{
		{"127.0.0.1", p4, true},
		{"nothing listens", closedPort(t), false},
	}
	if l, err := net.Listen("tcp", "[::1]:0"); err == nil {
		// A server that listens on ::1 only is ready too.
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		t.Cleanup(func() { l.Close() })
		_, p6, _ := net.SplitHostPort(l.Addr().String())
		tests = append(tests, struct {
			name, port string
			ready      bool
		}{"::1 only", p6, true})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var port int
			fmt.Sscan(tt.port, &port)
			err := probePort(context.Background(), port)
			if (err == nil) != tt.ready {
				t.Errorf("probePort(%d) = %v, want ready %v", port, err, tt.ready)
			}
		})
	}
}

// TestReadyWait: the wait ends when the condition holds, or at the
// timeout with what the last try found; Ctrl-C (the context) ends it too.
func TestReadyWait(t *testing.T) {
	t.Parallel()
	closed := closedPort(t)
	var cp int
	fmt.Sscan(closed, &cp)
	tests := []struct {
		name  string
		cond  config.ReadyWhen
		lines string
		want  string
	}{
		{"a line matches", config.ReadyWhen{LineMatches: `ready on :\d+`}, "booting\nready on :3000\n", ""},
		{"a line without its end yet does not match", config.ReadyWhen{LineMatches: `^ready$`}, "ready", "was not ready within 300ms"},
		{"no line matches", config.ReadyWhen{LineMatches: `^ready$`, Timeout: 300 * time.Millisecond}, "booting\nalmost ready\n",
			`was not ready within 300ms (readyWhen lineMatches "^ready$")`},
		{"a port that does not accept", config.ReadyWhen{Port: cp, Timeout: 300 * time.Millisecond}, "",
			fmt.Sprintf("was not ready within 300ms (readyWhen port %d); last try: ", cp)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.cond.Timeout == 0 && tt.want != "" {
				tt.cond.Timeout = 300 * time.Millisecond
			}
			w := &readyWatch{cond: &tt.cond, ctx: context.Background()}
			if tt.cond.LineMatches != "" {
				w.re = mustRegexp(tt.cond.LineMatches)
			}
			w.lines = &lineTail{re: w.re, matched: make(chan struct{})}
			io.WriteString(&tailWriter{t: w.lines, w: io.Discard}, tt.lines)
			got := ""
			if err := w.wait(); err != nil {
				got = err.Error()
			}
			if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
				t.Errorf("wait() = %q, want %q", got, tt.want)
			}
		})
	}
	// Cancelled: it ends at once.
	ctx, cancel := context.WithCancel(context.Background())
	w := &readyWatch{cond: &config.ReadyWhen{Port: cp}, ctx: ctx}
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	w.wait()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a cancelled wait took %s", d)
	}
}

func TestLineTail(t *testing.T) {
	t.Parallel()
	lt := &lineTail{matched: make(chan struct{})}
	out, errw := &tailWriter{t: lt, w: io.Discard}, &tailWriter{t: lt, w: io.Discard}
	io.WriteString(out, "par")
	io.WriteString(errw, "an error\r\n")
	io.WriteString(out, "tial\n")
	for i := range 12 {
		fmt.Fprintf(out, "line %d\n", i)
	}
	io.WriteString(out, "\x1b[32mcoloured\x1b[0m\n")
	io.WriteString(out, strings.Repeat("x", 5000)+"\n")
	io.WriteString(errw, "no end")
	want := "; its last lines:\n    line 5\n    line 6\n    line 7\n    line 8\n    line 9\n    line 10\n    line 11\n" +
		"    coloured\n    " + strings.Repeat("x", maxTailLine) + "\n    no end"
	if diff := cmp.Diff(want, lt.show()); diff != "" {
		t.Errorf("show() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("; it printed nothing", (&lineTail{}).show()); diff != "" {
		t.Errorf("show() of nothing (-want +got):\n%s", diff)
	}
}

// listen serves each connection to addr with serve, and returns the
// address it listens on.
func listen(t *testing.T, addr string, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { serve(c); c.Close() }()
		}
	}()
	return l.Addr().String()
}

// closedPort is a port of 127.0.0.1 nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

func mustRegexp(s string) *regexp.Regexp { return regexp.MustCompile(s) }

func TestStripEscapes(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"  \x1b[32m\x1b[1mVITE\x1b[22m v5.4.0\x1b[39m  \x1b[2mready in \x1b[0m\x1b[1m312\x1b[22m\x1b[2m\x1b[0m ms", "  VITE v5.4.0  ready in 312 ms"},
		{"\x1b]8;;http://localhost:3000\x07link\x1b]8;;\x07 up", "link up"},
		{"\x1b]0;title\x1b\\ready", "ready"},
		{"compiling 10%\rcompiling 100%", "compiling 100%"},
		{"cut \x1b[3", "cut "},
		{"\x1b(Bdone", "done"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, string(stripEscapes([]byte(tt.in)))); diff != "" {
			t.Errorf("stripEscapes(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	// A pattern written for the text matches a coloured line.
	lt := &lineTail{re: regexp.MustCompile(`ready in \d+ ms`), matched: make(chan struct{})}
	io.WriteString(&tailWriter{t: lt, w: io.Discard}, tests[1].in+"\n")
	select {
	case <-lt.matched:
	default:
		t.Error("a coloured line does not match")
	}
}

// TestLastTry: what a readiness wait that ran out of time reports as its
// last try. A try the wait's end cut short, or one that only timed out after
// the server had answered, does not replace what came before (ready_url
// reported "i/o timeout" instead of the server's 404 at load 25).
func TestLastTry(t *testing.T) {
	t.Parallel()
	answered := statusError{"HTTP/1.1 404 Not Found"}
	refused := &net.OpError{Op: "dial", Err: fmt.Errorf("connection refused")}
	timedOut := &net.OpError{Op: "dial", Err: timeoutErr{}}
	tests := []struct {
		name            string
		last, err, want error
		cut             bool
	}{
		{"first try", nil, refused, refused, false},
		{"first try, cut short", nil, timedOut, timedOut, true},
		{"a later answer", refused, answered, answered, false},
		{"refused after an answer", answered, refused, refused, false},
		{"timed out after an answer", answered, timedOut, answered, false},
		{"timed out after a refusal", refused, timedOut, timedOut, false},
		{"cut short", refused, answered, refused, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lastTry(tt.last, tt.err, tt.cut); got != tt.want {
				t.Errorf("lastTry(%v, %v, %v) = %v, want %v", tt.last, tt.err, tt.cut, got, tt.want)
			}
		})
	}
}

// timeoutErr is a net.Error that timed out.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }
