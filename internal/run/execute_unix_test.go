//go:build unix

package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/exec"
)

// logWorkspace is a workspace whose tasks append "start <id>" and
// "end <id>" lines to one log file, with a short sleep between.
func logWorkspace(t *testing.T, specs ...string) (*Graph, string) {
	t.Helper()
	dir := t.TempDir()
	logFile := filepath.Join(dir, "log")
	ws := testWorkspace(t, specs...)
	for _, p := range ws.Projects {
		p.Dir = dir
		for name := range p.Scripts {
			id := p.Name + "#" + name
			p.Scripts[name] = fmt.Sprintf("echo start %s >> %s; sleep 0.05; echo end %s >> %s", id, logFile, id, logFile)
		}
	}
	g, err := Plan(ws, mustConfig(t, `{"tasks": {"build": {"dependsOn": ["^build"]}}}`), Selection{Tasks: []string{"build"}})
	if err != nil {
		t.Fatal(err)
	}
	return g, logFile
}

func execute(t *testing.T, g *Graph, opts Options) (Outcome, string) {
	t.Helper()
	return executeCtx(t, context.Background(), g, opts)
}

// executeCtx runs Execute with ctx, output to buffers unless opts names
// writers, and returns the outcome and what went to stderr.
func executeCtx(t *testing.T, ctx context.Context, g *Graph, opts Options) (Outcome, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if opts.Stdout == nil {
		opts.Stdout = &stdout
	}
	opts.Stderr = &stderr
	opts.Env = func(*Node) []string { return []string{"PATH=" + os.Getenv("PATH")} }
	done := make(chan Outcome, 1)
	go func() { done <- Execute(ctx, g, opts) }()
	select {
	case o := <-done:
		return o, stderr.String()
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return within 30s")
	}
	return Outcome{}, ""
}

func readLog(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Fields(strings.ReplaceAll(string(b), "start ", "start:"))
}

// TestExecuteConcurrencyLimit checks that exactly Concurrency tasks run at
// once: never more, and as many as the limit allows. Each task marks itself
// started, waits (up to 3 s) until Concurrency tasks have, so the peak cannot
// fall short on a slow machine, then gives one more task half a second to
// start, so a scheduler that ignored the limit shows it, before it ends.
func TestExecuteConcurrencyLimit(t *testing.T) {
	for _, conc := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(conc), func(t *testing.T) {
			g, logFile := logWorkspace(t, "root::", "a::build", "b::build", "c::build", "d::build", "e::build")
			marks := t.TempDir()
			for _, n := range g.Nodes {
				n.Script = fmt.Sprintf(`echo start %[1]s >> %[2]s; : > %[3]s/%[1]s
started() { set -- %[3]s/*; echo $#; }
i=0; while [ "$(started)" -lt %[4]d ] && [ $i -lt 150 ]; do sleep 0.02; i=$((i+1)); done
i=0; while [ "$(started)" -le %[4]d ] && [ $i -lt 25 ]; do sleep 0.02; i=$((i+1)); done
echo end %[1]s >> %[2]s`, strings.ReplaceAll(n.ID, "#", "_"), logFile, marks, conc)
			}
			o, stderr := execute(t, g, Options{Concurrency: conc})
			if o.Code() != 0 {
				t.Fatalf("Code() = %d, stderr:\n%s", o.Code(), stderr)
			}
			running, peak := 0, 0
			for _, l := range readLog(t, logFile) {
				if strings.HasPrefix(l, "start:") {
					running++
					peak = max(peak, running)
				} else if l == "end" {
					running--
				}
			}
			if peak != conc {
				t.Errorf("%d tasks ran at once, want the limit, %d", peak, conc)
			}
		})
	}
}

func TestExecuteDependenciesFirst(t *testing.T) {
	g, logFile := logWorkspace(t, "root::", "a::build", "b:a:build", "c:b:build", "d:a:build")
	o, stderr := execute(t, g, Options{Concurrency: 4})
	if o.Code() != 0 {
		t.Fatalf("Code() = %d, stderr:\n%s", o.Code(), stderr)
	}
	pos := map[string]int{}
	for i, l := range readLog(t, logFile) {
		pos[l] = i
	}
	for _, edge := range [][2]string{{"a#build", "b#build"}, {"b#build", "c#build"}, {"a#build", "d#build"}} {
		end, ok1 := pos[edge[0]]
		start, ok2 := pos["start:"+edge[1]]
		if !ok1 || !ok2 || end > start {
			t.Errorf("%s started before %s ended (log positions %d, %d)", edge[1], edge[0], start, end)
		}
	}
}

func TestExecuteFailure(t *testing.T) {
	tests := []struct {
		name      string
		continue_ bool
		wantRan   []string
		want      Outcome
		statuses  map[string]string // Outcome.Tasks
	}{
		{
			name:     "bail stops starting new tasks",
			wantRan:  []string{"start:a#build"},
			want:     Outcome{Total: 4, Started: 1, Failed: []string{"a#build"}, Skipped: 3, ExitCode: 7},
			statuses: map[string]string{"a#build": "failed 7", "b#build": "skipped", "c#build": "skipped", "d#build": "skipped"},
		},
		{
			name:      "continue runs what does not depend on the failure",
			continue_: true,
			wantRan:   []string{"start:a#build", "start:d#build"},
			want:      Outcome{Total: 4, Started: 2, Succeeded: 1, Failed: []string{"a#build"}, Skipped: 2, ExitCode: 0},
			statuses:  map[string]string{"a#build": "failed 7", "b#build": "skipped", "c#build": "skipped", "d#build": "succeeded 0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// a fails; b and c depend on it (c through b); d is independent.
			g, logFile := logWorkspace(t, "root::", "a::build", "b:a:build", "c:b:build", "d::build")
			for _, n := range g.Nodes {
				if n.Project.Name == "a" {
					n.Script = strings.Replace(n.Script, "sleep", "exit 7; sleep", 1)
				}
			}
			o, _ := execute(t, g, Options{Concurrency: 1, Continue: tt.continue_})
			statuses := map[string]string{}
			for i, tr := range o.Tasks {
				st := tr.Status
				if tr.Node != g.Nodes[i] {
					t.Errorf("Tasks[%d] is %s, want %s", i, tr.Node.ID, g.Nodes[i].ID)
				}
				if !tr.Start.IsZero() {
					st += fmt.Sprintf(" %d", tr.ExitCode)
					if tr.End.Before(tr.Start) || len(tr.Argv) == 0 {
						t.Errorf("%s: start %v, end %v, argv %q", tr.Node.ID, tr.Start, tr.End, tr.Argv)
					}
				}
				statuses[tr.Node.ID] = st
			}
			if diff := cmp.Diff(tt.statuses, statuses); diff != "" {
				t.Errorf("Tasks statuses (-want +got):\n%s", diff)
			}
			o.Elapsed, o.Start, o.Tasks = 0, time.Time{}, nil
			if diff := cmp.Diff(tt.want, o); diff != "" {
				t.Errorf("Outcome mismatch (-want +got):\n%s", diff)
			}
			if o.Code() != 1 {
				t.Errorf("Code() = %d, want 1", o.Code())
			}
			var ran []string
			for _, l := range readLog(t, logFile) {
				if strings.HasPrefix(l, "start:") {
					ran = append(ran, l)
				}
			}
			if diff := cmp.Diff(tt.wantRan, ran); diff != "" {
				t.Errorf("tasks started mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExecuteStdoutStderrSamePipe: with stdout and stderr on one pipe
// (vx run x 2>&1 | cat), one task printing 8,000-byte lines on stdout and
// another short lines on stderr, every line arrives whole.
func TestExecuteStdoutStderrSamePipe(t *testing.T) {
	ws := testWorkspace(t, "root::", "long::x", "short::x")
	dir := t.TempDir()
	long := strings.Repeat("L", 8000)
	for _, p := range ws.Projects {
		p.Dir = dir
	}
	ws.Projects[1].Scripts["x"] = fmt.Sprintf("i=0; while [ $i -lt 200 ]; do echo %s; i=$((i+1)); done", long)
	ws.Projects[2].Scripts["x"] = "i=0; while [ $i -lt 200 ]; do echo s$i >&2; sleep 0.002; i=$((i+1)); done"
	g, err := Plan(ws, mustConfig(t, `{}`), Selection{Tasks: []string{"x"}})
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Dup(int(w.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	w2 := os.NewFile(uintptr(fd), "stderr")
	got := make(chan string)
	go func() {
		// A slow reader keeps the pipe full, so a long write blocks midway.
		var all bytes.Buffer
		buf := make([]byte, 1024)
		for {
			n, err := r.Read(buf)
			all.Write(buf[:n])
			if err != nil {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
		got <- all.String()
	}()
	o := Execute(context.Background(), g, Options{Concurrency: 2, Stdout: w, Stderr: w2,
		Env: func(*Node) []string { return []string{"PATH=" + os.Getenv("PATH")} }})
	w.Close()
	w2.Close()
	out := <-got
	if o.Code() != 0 {
		t.Fatalf("Code() = %d, output:\n%.2000s", o.Code(), out)
	}
	bad, longs, shorts := 0, 0, 0
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case line == "long#x  | "+long:
			longs++
		case strings.HasPrefix(line, "short#x | s") && len(line) < 20:
			shorts++
		case strings.HasPrefix(line, "vx: 2 tasks"):
		default:
			bad++
			if bad <= 3 {
				t.Errorf("damaged line: %.60q...%q", line, line[max(0, len(line)-30):])
			}
		}
	}
	if bad > 0 || longs != 200 || shorts != 200 {
		t.Errorf("%d damaged lines; %d long and %d short whole lines, want 200 each", bad, longs, shorts)
	}
}

// TestExecuteStopped: cancelling Execute's context with a signal stops the
// run: running tasks get the signal, nothing else starts, the outcome
// carries the signal (128+N) and the summary says so; when the cause is a
// closed output (SIGPIPE, here a writer failing with EPIPE) the run stops
// the same way, exits 141 and prints nothing.
func TestExecuteStopped(t *testing.T) {
	g, logFile := logWorkspace(t, "root::", "a::build", "b::build", "c:a,b:build")
	dir := filepath.Dir(logFile)
	for _, n := range g.Nodes {
		if n.Project.Name != "c" {
			n.Script = "touch " + n.Project.Name + ".ready; echo tick; sleep 300"
		}
	}
	t.Run("signal", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		defer cancel(nil)
		go func() {
			for {
				_, ea := os.Stat(filepath.Join(dir, "a.ready"))
				_, eb := os.Stat(filepath.Join(dir, "b.ready"))
				if ea == nil && eb == nil {
					cancel(&exec.Interrupt{Signal: syscall.SIGHUP})
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}()
		o, stderr := executeCtx(t, ctx, g, Options{Concurrency: 2, Grace: time.Second, Stdout: io.Discard})
		if o.Code() != 129 || o.Started != 2 || o.Skipped != 1 {
			t.Errorf("Code() = %d, started %d, skipped %d; want 129, 2, 1", o.Code(), o.Started, o.Skipped)
		}
		if !strings.Contains(stderr, "stopped by SIGHUP") || strings.Contains(stderr, "failed:") {
			t.Errorf("stderr = %q, want the summary saying SIGHUP and no per-task failure", stderr)
		}
	})
	t.Run("closed output", func(t *testing.T) {
		os.Remove(filepath.Join(dir, "a.ready"))
		o, stderr := executeCtx(t, context.Background(), g, Options{Concurrency: 2, Grace: time.Second, Stdout: brokenPipe{}})
		if o.Code() != 141 || stderr != "" {
			t.Errorf("Code() = %d, stderr %q; want 141 and nothing", o.Code(), stderr)
		}
	})
}

type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}
}
