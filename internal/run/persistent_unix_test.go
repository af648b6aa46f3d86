//go:build unix

package run

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/exec"
)

// serverWorkspace plans `dev` in n projects whose dev script is a server:
// it marks itself started in dir and then runs until it is stopped.
func serverWorkspace(t *testing.T, n int, cfg string) (*Graph, string) {
	t.Helper()
	dir := t.TempDir()
	specs := []string{"root::"}
	for i := 0; i < n; i++ {
		specs = append(specs, fmt.Sprintf("app%d::dev", i))
	}
	ws := testWorkspace(t, specs...)
	for _, p := range ws.Projects {
		p.Dir = dir
		for name := range p.Scripts {
			p.Scripts[name] = fmt.Sprintf("touch %s/%s.started; exec sleep 60", dir, p.Name)
		}
	}
	g, err := Plan(ws, mustConfig(t, cfg), Selection{Tasks: []string{"dev"}})
	if err != nil {
		t.Fatal(err)
	}
	return g, dir
}

// waitFiles waits until dir holds n files named *.started.
func waitFiles(t *testing.T, dir string, n int, within time.Duration) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		m, _ := filepath.Glob(filepath.Join(dir, "*.started"))
		if len(m) >= n {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestExecutePersistentTasksAllStart(t *testing.T) {
	// Five dev servers and --concurrency 2: all five start, and Ctrl-C ends
	// them all.
	g, dir := serverWorkspace(t, 5, `{"tasks": {"dev": {"persistent": true}}}`)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		if !waitFiles(t, dir, 5, 10*time.Second) {
			t.Error("not every persistent task started within 10s")
		}
		cancel(&exec.Interrupt{Signal: syscall.SIGINT})
	}()
	start := time.Now()
	o, stderr := executeCtx(t, ctx, g, Options{Concurrency: 2, Grace: 5 * time.Second, StallWarning: time.Millisecond})
	if o.Started != 5 || o.Signal != syscall.SIGINT || o.Code() != 130 || o.Stopped != 5 || len(o.Failed) != 0 {
		t.Errorf("outcome %+v (code %d), want 5 started and SIGINT; stderr:\n%s", o, o.Code(), stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the run took %v; the servers should have started at once and ended on SIGINT", d)
	}
	if strings.Contains(stderr, "for a slot") {
		t.Errorf("persistent tasks hold no slot, yet vx warned of a stall:\n%s", stderr)
	}
}

func TestExecutePersistentLeavesSlotsToOthers(t *testing.T) {
	// Two servers and --concurrency 1: the build still runs beside the
	// first one and ends; the second server waits for it (dependsOn), so
	// once both servers are up the build is done and recorded.
	dir := t.TempDir()
	ws := testWorkspace(t, "root::", "api::dev", "web::dev,build")
	for _, p := range ws.Projects {
		p.Dir = dir
		for name := range p.Scripts {
			if name == "dev" {
				p.Scripts[name] = fmt.Sprintf("touch %s/%s.started; exec sleep 60", dir, p.Name)
			} else {
				p.Scripts[name] = "true"
			}
		}
	}
	cfg := `{"tasks": {"dev": {"persistent": true}, "web#dev": {"persistent": true, "dependsOn": ["build"]}}}`
	g, err := Plan(ws, mustConfig(t, cfg), Selection{Tasks: []string{"dev", "build"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		if !waitFiles(t, dir, 2, 10*time.Second) {
			t.Error("the servers did not both start within 10s")
		}
		cancel(&exec.Interrupt{Signal: syscall.SIGTERM})
	}()
	o, stderr := executeCtx(t, ctx, g, Options{Concurrency: 1, Grace: 5 * time.Second})
	if o.Started != 3 || o.Succeeded != 1 || o.Stopped != 2 || len(o.Failed) != 0 {
		t.Errorf("outcome %+v, want 3 started, the build succeeded, the servers stopped; stderr:\n%s", o, stderr)
	}
}

func TestExecuteStallWarning(t *testing.T) {
	// Without the flag, servers hold every slot and the others wait: vx says
	// so once, naming the tasks and the way out.
	g, dir := serverWorkspace(t, 3, `{}`)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var o Outcome
	var stderr string
	done := make(chan struct{})
	go func() {
		defer close(done)
		o, stderr = executeCtx(t, ctx, g, Options{Concurrency: 2, Grace: 5 * time.Second, StallWarning: 100 * time.Millisecond})
	}()
	if !waitFiles(t, dir, 2, 10*time.Second) {
		t.Fatal("the first two servers did not start")
	}
	time.Sleep(500 * time.Millisecond) // several times the warning's delay
	if waitFiles(t, dir, 3, time.Millisecond) {
		t.Error("the third server started beyond --concurrency 2")
	}
	cancel(&exec.Interrupt{Signal: syscall.SIGINT})
	<-done
	want := `vx: 1 task has waited 100ms for a slot: all 2 (--concurrency 2) are held by app0#dev, app1#dev; waiting: app2#dev. ` +
		`If tasks run until stopped (dev servers, watchers), mark them "persistent": true in vx.json; otherwise raise --concurrency`
	if !strings.Contains(stderr, want+"\n") || strings.Count(stderr, "for a slot") != 1 {
		t.Errorf("stderr does not hold the warning once:\n%s\nwant:\n%s", stderr, want)
	}
	if o.Started != 2 {
		t.Errorf("%d tasks started, want 2", o.Started)
	}
}

func TestExecuteNoStallWarningWhileSlotsTurnOver(t *testing.T) {
	// Twelve tasks of 0.15 s each through one slot: the run lasts well past
	// the 1 s delay, but the slot keeps coming free well within it, so no
	// warning. With the warning off: none either.
	specs := []string{"root::"}
	for i := 0; i < 12; i++ {
		specs = append(specs, fmt.Sprintf("p%02d::build", i))
	}
	for _, stall := range []time.Duration{time.Second, -1} {
		ws := testWorkspace(t, specs...)
		for _, p := range ws.Projects {
			for name := range p.Scripts {
				p.Scripts[name] = "sleep 0.15"
			}
			p.Dir = t.TempDir()
		}
		g, err := Plan(ws, mustConfig(t, `{}`), Selection{Tasks: []string{"build"}})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, stderr := execute(t, g, Options{Concurrency: 1, StallWarning: stall})
		if strings.Contains(stderr, "for a slot") {
			t.Errorf("StallWarning %v: warned while tasks kept ending:\n%s", stall, stderr)
		}
		if d := time.Since(start); stall > 0 && d < stall {
			t.Errorf("the run took %v, less than the delay: the test proves nothing", d)
		}
	}
}
