package send

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/otel/wire"
	"github.com/vxrun/vx/internal/testdir"
)

// stream is what vx writes to the helper: the hello, then bodies.
func stream(t *testing.T, h wire.Hello, bodies ...string) io.Reader {
	t.Helper()
	var b bytes.Buffer
	hb, _ := json.Marshal(h)
	wire.WriteFrame(&b, hb)
	for _, body := range bodies {
		wire.WriteFrame(&b, []byte(body))
	}
	return &b
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.list = append(w.list, s); w.mu.Unlock() }

type request struct {
	Method, Path, ContentType, Auth, Team, Body string
}

// TestServe: each body is POSTed to the traces URL with the content type and the headers, in order.
func TestServe(t *testing.T) {
	var mu sync.Mutex
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, request{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("X-Team"), string(b)})
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	var warn warnings
	sent, lost, err := Serve(stream(t, wire.Hello{URL: srv.URL + "/v1/traces", Headers: [][2]string{{"Authorization", "Bearer t"}, {"x-team", "web"}},
		ContentType: "application/x-protobuf", TimeoutMS: 5000, FlushMS: 2000}, "first", "second"), srv.Client(), warn.add)
	if err != nil || sent != 2 || lost != 0 {
		t.Fatalf("Serve = %d sent, %d lost, %v; want 2, 0, nil", sent, lost, err)
	}
	want := []request{
		{"POST", "/v1/traces", "application/x-protobuf", "Bearer t", "web", "first"},
		{"POST", "/v1/traces", "application/x-protobuf", "Bearer t", "web", "second"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if len(warn.list) != 0 {
		t.Errorf("warnings: %q", warn.list)
	}
}

// closedURL is a loopback URL where nothing listens.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://user:secret@" + addr + "/v1/traces"
}

func TestServeFailures(t *testing.T) {
	block := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(block) // before Close, which waits for the handlers
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"code":3,"message":"bad trace id"}`)
	}))
	defer refusing.Close()
	tests := []struct {
		name      string
		hello     wire.Hello
		warning   string
		maxTook   time.Duration
		wantSent  int
		wantLost  int
		forbidden string
	}{
		{name: "collector down: one warning, without the URL's password",
			hello:   wire.Hello{URL: closedURL(t), ContentType: "application/x-protobuf", TimeoutMS: 5000, FlushMS: 2000},
			warning: "otel: cannot export the trace to http://127.0.0.1:", maxTook: 4 * time.Second, wantLost: 3, forbidden: "secret"},
		{name: "refused: the collector's status and message",
			hello:   wire.Hello{URL: refusing.URL + "/v1/traces", ContentType: "application/json", TimeoutMS: 5000, FlushMS: 2000},
			warning: `the collector answered 400 Bad Request: "{\"code\":3,\"message\":\"bad trace id\"}"`, maxTook: 4 * time.Second, wantLost: 3},
		{name: "slow collector: each request's timeout",
			hello:   wire.Hello{URL: slow.URL + "/v1/traces", ContentType: "application/x-protobuf", TimeoutMS: 100, FlushMS: 5000},
			warning: "no answer within 100ms", maxTook: 4 * time.Second, wantLost: 3},
		{name: "slow collector: the flush bound once the pipe is closed",
			hello:   wire.Hello{URL: slow.URL + "/v1/traces", ContentType: "application/x-protobuf", TimeoutMS: 60000, FlushMS: 300},
			warning: "no answer within the 300ms vx waits for the collector at the end of a run", maxTook: 4 * time.Second, wantLost: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warn warnings
			start := time.Now()
			sent, lost, err := Serve(stream(t, tt.hello, "a", "b", "c"), nil, warn.add)
			took := time.Since(start)
			if err != nil || sent != tt.wantSent || lost != tt.wantLost {
				t.Errorf("Serve = %d sent, %d lost, %v; want %d, %d, nil", sent, lost, err, tt.wantSent, tt.wantLost)
			}
			if took > tt.maxTook {
				t.Errorf("Serve took %s, want at most %s", took, tt.maxTook)
			}
			if len(warn.list) != 1 || !strings.Contains(warn.list[0], tt.warning) {
				t.Fatalf("warnings %q, want one with %q", warn.list, tt.warning)
			}
			if tt.forbidden != "" && strings.Contains(warn.list[0], tt.forbidden) {
				t.Errorf("the warning shows %q: %s", tt.forbidden, warn.list[0])
			}
		})
	}
}

// TestServeBrokenStream: a stream cut inside a frame is an error; one without a hello too.
func TestServeBrokenStream(t *testing.T) {
	if _, _, err := Serve(strings.NewReader(""), nil, func(string) {}); err == nil {
		t.Error("no hello: no error")
	}
	r := io.MultiReader(stream(t, wire.Hello{URL: "http://127.0.0.1:1/v1/traces", TimeoutMS: 100, FlushMS: 100}), strings.NewReader("\x00\x00\x00\x09abc"))
	if _, _, err := Serve(r, nil, func(string) {}); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("a cut frame: error %v", err)
	}
}

// TestServeGzipAndCA: OTEL_EXPORTER_OTLP_COMPRESSION=gzip sends the body gzip-compressed, and
// OTEL_EXPORTER_OTLP_CERTIFICATE's CAs are trusted for an https collector (besides the system's); without them,
// the collector's certificate is refused, once.
func TestServeGzipAndCA(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		mu.Lock()
		got = append(got, r.Header.Get("Content-Encoding")+" "+string(b))
		mu.Unlock()
	}))
	defer srv.Close()
	dir := testdir.New(t) // t.TempDir cannot remove its files under Wine
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o644)
	hello := wire.Hello{URL: srv.URL + "/v1/traces", ContentType: "application/x-protobuf", TimeoutMS: 5000, FlushMS: 2000}

	var warn warnings
	h := hello
	h.Gzip, h.CAFile = true, ca
	sent, lost, err := Serve(stream(t, h, "compressed body"), nil, warn.add)
	if err != nil || sent != 1 || lost != 0 || len(warn.list) != 0 {
		t.Errorf("with the CA: %d sent, %d lost, %v, warnings %q", sent, lost, err, warn.list)
	}
	mu.Lock()
	if diff := cmp.Diff([]string{"gzip compressed body"}, got); diff != "" {
		t.Errorf("received (-want +got):\n%s", diff)
	}
	mu.Unlock()

	for _, tt := range []struct{ name, caFile, warning string }{
		{"the system's CAs only", "", "certificate"},
		{"a file without a certificate", notPEM, "holds no PEM certificate; the run goes on without a trace"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var warn warnings
			h := hello
			h.CAFile = tt.caFile
			Serve(stream(t, h, "a", "b"), nil, warn.add)
			if len(warn.list) != 1 || !strings.Contains(warn.list[0], tt.warning) {
				t.Errorf("warnings %q, want one with %q", warn.list, tt.warning)
			}
		})
	}
}
