package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/otel/oteltest"
	"github.com/vxrun/vx/internal/testdir"
)

var hexID = regexp.MustCompile(`^[0-9a-f]+$`)

// otelWarnings are the lines of stderr about the export.
func otelWarnings(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, "otel") {
			out = append(out, l)
		}
	}
	return out
}

// TestOtelCollector exports runs of the two-project workspace (b depends on a) to a real collector's OTLP/HTTP
// receiver, in protobuf and in JSON (gzip-compressed): one trace per run, the root span and a child per task, with the cache
// state, the key, the exit code, the critical path; a failed task's span and the run's are errors.
func TestOtelCollector(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	col := oteltest.Start(t)
	for _, proto := range []string{"http/protobuf", "http/json"} {
		t.Run(proto, func(t *testing.T) {
			col.Reset()
			runs := filepath.Join(testdir.New(t), "runs.log")
			c := newRemoteClone(t, runs)
			env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=" + proto,
				"OTEL_SERVICE_NAME=vx-e2e", "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20x"}
			if proto == "http/json" {
				env = append(env, "OTEL_EXPORTER_OTLP_COMPRESSION=gzip") // the receiver decompresses it
			}
			r := c.vx(env, "run", "build")
			mustOK(t, r)
			if w := otelWarnings(r.stderr); len(w) > 0 {
				t.Errorf("warnings: %q", w)
			}
			first := byName(t, col.Spans(t, 3, 10*time.Second))
			root, a, b := first["vx run build"], first["a#build"], first["b#build"]
			if !hexID.MatchString(root.TraceID) || len(root.TraceID) != 32 || len(root.SpanID) != 16 || root.ParentSpanID != "" {
				t.Errorf("root span: trace %q span %q parent %q", root.TraceID, root.SpanID, root.ParentSpanID)
			}
			for _, s := range []oteltest.Span{a, b} {
				if s.TraceID != root.TraceID || s.ParentSpanID != root.SpanID || s.Service != "vx-e2e" || s.Kind != 1 {
					t.Errorf("span %s: trace %s parent %s service %q kind %d; want the root's trace and span, vx-e2e, internal",
						s.Name, s.TraceID, s.ParentSpanID, s.Service, s.Kind)
				}
				if k, _ := s.Attrs["vx.cache.key"].(string); len(k) != 64 || !hexID.MatchString(k) {
					t.Errorf("span %s: vx.cache.key %q", s.Name, k)
				}
				if !s.End.After(s.Start) || s.Start.Before(root.Start) || s.End.After(root.End) {
					t.Errorf("span %s from %v to %v, outside the run's %v to %v", s.Name, s.Start, s.End, root.Start, root.End)
				}
			}
			if b.Start.Before(a.End) {
				t.Errorf("b#build started at %v, before a#build ended at %v", b.Start, a.End)
			}
			want := map[string]any{"vx.project": "a", "vx.task": "build", "vx.task.id": "a#build", "vx.status": "succeeded",
				"vx.cache": "miss", "vx.exit_code": int64(0), "vx.cache.key": a.Attrs["vx.cache.key"], "vx.attempts": int64(1)}
			if diff := cmp.Diff(want, a.Attrs); diff != "" {
				t.Errorf("a#build's attributes (-want +got):\n%s", diff)
			}
			if got := root.Attrs["vx.critical_path"]; !cmp.Equal(got, []any{"a#build", "b#build"}) {
				t.Errorf("vx.critical_path = %v", got)
			}
			if len(root.Links) != 2 || root.Links[0].SpanID != a.SpanID || root.Links[1].SpanID != b.SpanID {
				t.Errorf("the root's links %+v, want a#build's and b#build's spans", root.Links)
			}
			for k, v := range map[string]any{"vx.command": "vx run build", "vx.outcome": "succeeded", "vx.exit_code": int64(0),
				"vx.tasks.total": int64(2), "vx.tasks.started": int64(2), "vx.tasks.cached": int64(0), "vx.otel.dropped_spans": int64(0)} {
				if root.Attrs[k] != v {
					t.Errorf("root %s = %v, want %v", k, root.Attrs[k], v)
				}
			}

			col.Reset()
			mustOK(t, c.vx(env, "run", "build"))
			second := byName(t, col.Spans(t, 3, 10*time.Second))
			if second["a#build"].Attrs["vx.cache"] != "hit" || second["a#build"].Attrs["vx.cache.key"] != a.Attrs["vx.cache.key"] {
				t.Errorf("second run: a#build's cache %v key %v; want a hit on the same key", second["a#build"].Attrs["vx.cache"], second["a#build"].Attrs["vx.cache.key"])
			}
			if second["vx run build"].TraceID == root.TraceID {
				t.Error("two runs share a trace id")
			}

			col.Reset()
			c.write("packages/b/build.sh", "echo broken; exit 3\n")
			r = c.vx(env, "run", "build")
			if r.code != 1 {
				t.Errorf("vx exited %d, want 1 (a task failed)", r.code)
			}
			third := byName(t, col.Spans(t, 3, 10*time.Second))
			if s := third["b#build"]; s.StatusCode != 2 || s.StatusMsg != "exit code 3" || s.Attrs["vx.exit_code"] != int64(3) {
				t.Errorf("failed b#build: status %d %q, exit code %v", s.StatusCode, s.StatusMsg, s.Attrs["vx.exit_code"])
			}
			if s := third["vx run build"]; s.StatusCode != 2 || s.Attrs["vx.outcome"] != "failed" || !cmp.Equal(s.Attrs["vx.failed"], []any{"b#build"}) {
				t.Errorf("failed run's root: status %d, outcome %v, failed %v", s.StatusCode, s.Attrs["vx.outcome"], s.Attrs["vx.failed"])
			}
		})
	}
}

func byName(t *testing.T, spans []oteltest.Span) map[string]oteltest.Span {
	t.Helper()
	m := map[string]oteltest.Span{}
	for _, s := range spans {
		if _, dup := m[s.Name]; dup {
			t.Fatalf("two spans named %q", s.Name)
		}
		m[s.Name] = s
	}
	return m
}

// TestOtelHeaders: what vx sends reaches the collector's path with the content type and the headers of the
// variables (the traces ones over the generic ones).
func TestOtelHeaders(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	type req struct{ Method, Path, ContentType, Auth, Generic string }
	var mu sync.Mutex
	var got []req
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, req{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Authorization"), r.Header.Get("X-Generic")})
		mu.Unlock()
	}))
	defer srv.Close()
	c := newRemoteClone(t, filepath.Join(testdir.New(t), "runs.log"))
	r := c.vx([]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + srv.URL + "/custom/traces", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json",
		"OTEL_EXPORTER_OTLP_HEADERS=x-generic=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS=Authorization=Basic%20dXNlcjpwdw=="}, "run", "build")
	mustOK(t, r)
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatalf("the collector got no request; stderr:\n%s", r.stderr)
	}
	for _, g := range got {
		if diff := cmp.Diff(req{"POST", "/custom/traces", "application/json", "Basic dXNlcjpwdw==", ""}, g); diff != "" {
			t.Errorf("request (-want +got):\n%s", diff)
		}
	}
}

// TestOtelNeverBreaksARun: a collector that is down, one that never answers, and no helper at all: one
// warning line each, the run's exit code unchanged, and at most the flush bound (2 s) added to the run.
func TestOtelNeverBreaksARun(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String()
	l.Close()
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	tests := []struct {
		name, warning string
		env, args     []string
	}{
		{name: "collector down", args: []string{"--otel=" + down}, warning: "vx: warning: otel: cannot export the trace to " + down + "/v1/traces: "},
		{name: "collector never answers", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + slow.URL},
			warning: "vx: warning: otel: cannot export the trace to " + slow.URL + "/v1/traces: no answer within the 2s vx waits for the collector at the end of a run"},
		{name: "no helper", args: []string{"--otel"}, env: []string{"VX_REMOTE_HELPER=" + filepath.Join(testdir.New(t), "missing")},
			warning: "vx: warning: otel: VX_REMOTE_HELPER names"},
		{name: "grpc", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
			warning: "vx: warning: otel: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: vx exports over OTLP/HTTP only"},
	}
	if runtime.GOOS != "windows" {
		// A helper that never reads its pipe's end (as one a loaded machine
		// has not yet scheduled): vx stops it at the bound and says why itself.
		stuck := filepath.Join(testdir.New(t), "vx-remote")
		if err := os.WriteFile(stuck, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name, warning string
			env, args     []string
		}{name: "helper never ends", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + slow.URL, "VX_REMOTE_HELPER=" + stuck},
			warning: "vx: warning: otel: cannot export the trace to " + slow.URL + "/v1/traces: no answer within the 2s vx waits for the collector at the end of a run"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newRemoteClone(t, filepath.Join(testdir.New(t), "runs.log"))
			c.write("packages/b/build.sh", "exit 4\n")
			base := c.vx(nil, "run", "build", "--filter", "b", "--only")
			if base.code != 4 {
				t.Fatalf("without otel: exit %d, want 4 (the one task's code)\n%s", base.code, base.stderr)
			}
			r := c.vx(tt.env, append([]string{"run", "build", "--filter", "b", "--only"}, tt.args...)...)
			if r.code != base.code {
				t.Errorf("exit code %d, want %d as without otel\n%s", r.code, base.code, r.stderr)
			}
			w := otelWarnings(r.stderr)
			if len(w) != 1 || !strings.HasPrefix(w[0], tt.warning) {
				t.Errorf("otel lines %q, want one that starts with %q", w, tt.warning)
			}
			if extra := r.took - base.took; extra > 4*time.Second {
				t.Errorf("the run took %s, %s more than without otel; the bound is 2s", r.took, extra)
			}
		})
	}
}

// TestOtelDryRun: --otel exports a run; a dry run runs nothing.
func TestOtelDryRun(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	c := newRemoteClone(t, filepath.Join(testdir.New(t), "runs.log"))
	r := c.vx(nil, "run", "build", "--dry-run", "--otel")
	if r.code != 2 || !strings.Contains(r.stderr, "--otel exports a run; --dry-run runs nothing") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestOtelWatch: vx watch --otel exports each round as a trace of its own: the first round's two builds, then,
// after a source of b changes, b's build alone, each under a root span with vx.watch.round.
func TestOtelWatch(t *testing.T) {
	t.Parallel()
	skipRemoteE2E(t)
	col := oteltest.Start(t)
	c := newRemoteClone(t, filepath.Join(testdir.New(t), "runs.log"))
	w, err := startWatch(c.root, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + c.root, "VX_CACHE_DIR=" + c.store,
		"VX_REMOTE_HELPER=" + remoteHelper(t)}, "watch", "build", "--otel="+col.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer w.stop(os.Interrupt)
	if err := w.waitFor(regexp.MustCompile(`2 succeeded.*; watching for changes`)); err != nil {
		t.Fatal(err)
	}
	first := byName(t, col.Spans(t, 3, 10*time.Second))
	root := first["vx watch build --otel="+col.URL]
	if root.Attrs["vx.watch.round"] != int64(1) || first["a#build"].TraceID != root.TraceID || first["b#build"].ParentSpanID != root.SpanID {
		t.Errorf("round 1: root %+v, a#build in trace %s, b#build's parent %s", root, first["a#build"].TraceID, first["b#build"].ParentSpanID)
	}
	if got := root.Attrs["vx.critical_path"]; !cmp.Equal(got, []any{"a#build", "b#build"}) {
		t.Errorf("round 1: vx.critical_path = %v", got)
	}
	col.Reset()
	c.write("packages/b/src/in.txt", "changed\n")
	if err := w.waitFor(regexp.MustCompile(`1 succeeded.*; watching for changes`)); err != nil {
		t.Fatal(err)
	}
	second := byName(t, col.Spans(t, 2, 10*time.Second))
	root2, b := second["vx watch build --otel="+col.URL], second["b#build"]
	if root2.Attrs["vx.watch.round"] != int64(2) || root2.TraceID == root.TraceID || b.TraceID != root2.TraceID || b.ParentSpanID != root2.SpanID {
		t.Errorf("round 2: root %+v, b#build %+v; want a new trace with b#build in it", root2, b)
	}
	if _, ok := second["a#build"]; ok {
		t.Error("round 2 has a span for a#build, which did not run again")
	}
	if code, err := w.stop(os.Interrupt); err != nil || code != 130 {
		t.Errorf("vx watch exited %d (%v), want 130", code, err)
	}
}
