//go:build unix

package run

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorder is an Observer that writes down what it is told.
type recorder struct {
	events []string
	starts map[*Node]time.Time
	t      *testing.T
}

func (r *recorder) TaskStarted(n *Node, at time.Time) {
	r.events = append(r.events, "start "+n.ID)
	r.starts[n] = at
}

func (r *recorder) TaskEnded(tr TaskRun) {
	r.events = append(r.events, "end "+tr.Node.ID+" "+tr.Status)
	if !tr.Start.Equal(r.starts[tr.Node]) || tr.End.Before(tr.Start) {
		r.t.Errorf("%s ended with start %v (told %v) and end %v", tr.Node.ID, tr.Start, r.starts[tr.Node], tr.End)
	}
}

// TestObserver: the observer hears of each task that starts, when it
// starts and when it ends, dependencies ending before their dependents
// start; a task that never starts is not reported.
func TestObserver(t *testing.T) {
	g, _ := logWorkspace(t, "root::", "a::build", "b:a:build", "c:b:build", "d::build")
	for _, n := range g.Nodes {
		if n.Project.Name == "b" {
			n.Script = strings.Replace(n.Script, "sleep", "exit 3; sleep", 1)
		}
	}
	r := &recorder{starts: map[*Node]time.Time{}, t: t}
	execute(t, g, Options{Concurrency: 1, Continue: true, Observer: r})
	want := []string{"start a#build", "end a#build succeeded", "start b#build", "end b#build failed", "start d#build", "end d#build succeeded"}
	if diff := cmp.Diff(want, r.events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
