//go:build unix

package run

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/exec"
)

func TestWatchStallWarning(t *testing.T) {
	// As in vx run (TestExecuteStallWarning): servers not marked
	// persistent hold both slots and the third waits: vx watch says so
	// once in the round, naming the tasks and the way out.
	g, dir := serverWorkspace(t, 3, `{}`)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var stdout, stderr bytes.Buffer
	done := make(chan WatchEnd, 1)
	go func() {
		done <- Watch(ctx, g, WatchOptions{Options: Options{Concurrency: 2, Grace: 5 * time.Second, StallWarning: 100 * time.Millisecond,
			Stdout: &stdout, Stderr: &stderr, Env: func(*Node) []string { return []string{"PATH=" + os.Getenv("PATH")} }}})
	}()
	if !waitFiles(t, dir, 2, 10*time.Second) {
		t.Fatal("the first two servers did not start")
	}
	time.Sleep(500 * time.Millisecond) // several times the warning's delay
	cancel(&exec.Interrupt{Signal: syscall.SIGINT})
	select {
	case end := <-done:
		if end.Code() != 130 {
			t.Errorf("exit code %d, want 130", end.Code())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Watch did not return within 30s")
	}
	want := `vx: 1 task has waited 100ms for a slot: all 2 (--concurrency 2) are held by app0#dev, app1#dev; waiting: app2#dev. ` +
		`If tasks run until stopped (dev servers, watchers), mark them "persistent": true in vx.json; otherwise raise --concurrency`
	if got := stderr.String(); !strings.Contains(got, want+"\n") || strings.Count(got, "for a slot") != 1 {
		t.Errorf("stderr does not hold the warning once:\n%s\nwant:\n%s", got, want)
	}
	// The round cut short counts the tasks Ctrl-C stopped as vx run does
	// (in the order they ended).
	last := regexp.MustCompile(`\nvx: 2 tasks: 0 succeeded, 2 failed \((app0#dev, app1#dev|app1#dev, app0#dev)\), stopped by SIGINT in \S+\n$`)
	if got := stderr.String(); !last.MatchString(got) {
		t.Errorf("stderr does not end the round with a line matching %s:\n%s", last, got)
	}
}
