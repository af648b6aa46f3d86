//go:build unix

package run

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestExecuteGrouped(t *testing.T) {
	// a and b print lines apart in time while running together; srv is a
	// persistent task that prints, waits, prints and ends. Each event is
	// close to a second from the next, so the order holds on a busy machine.
	ws := testWorkspace(t, "root::", "srv::dev", "a::build", "b::build")
	dir := t.TempDir()
	scripts := map[string]string{
		"srv#dev":  "echo srv-up; sleep 2.5; echo srv-down",
		"a#build":  "echo a1; sleep 1; echo a2 >&2; sleep 0.2; echo a3",
		"b#build":  "echo b1; sleep 0.3; echo b2; exit 1",
		"root#dev": "true",
	}
	for _, p := range ws.Projects {
		p.Dir = dir
		for name := range p.Scripts {
			p.Scripts[name] = scripts[p.Name+"#"+name]
		}
	}
	for _, github := range []bool{false, true} {
		g, err := Plan(ws, mustConfig(t, `{"tasks": {"dev": {"persistent": true}}}`), Selection{Tasks: []string{"dev", "build"}})
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr strings.Builder
		o := executeTo(t, g, Options{Concurrency: 3, Continue: true, LogOrder: LogGrouped, GitHubActions: github}, &stdout, &stderr)
		if o.Code() != 1 {
			t.Errorf("code %d", o.Code())
		}
		// What a reader of stdout sees, line by line.
		var want []string
		want = append(want, "srv#dev | srv-up") // streamed: it would never end
		want = append(want, "b#build | b1", "b#build | b2")
		if github {
			want = append(want, "::group::a#build")
		}
		want = append(want, "a#build | a1", "a#build | a3")
		if github {
			want = append(want, "::endgroup::")
		}
		want = append(want, "srv#dev | srv-down")
		got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("GitHubActions=%v: stdout\n%s\nwant\n%s", github, stdout.String(), strings.Join(want, "\n"))
		}
		if !strings.Contains(stderr.String(), "a#build | a2\n") || strings.Contains(stderr.String(), "::") {
			t.Errorf("GitHubActions=%v: stderr\n%s", github, stderr.String())
		}
	}
}

// executeTo runs g with its output going to stdout and stderr.
func executeTo(t *testing.T, g *Graph, opts Options, stdout, stderr io.Writer) Outcome {
	t.Helper()
	opts.Stdout, opts.Stderr = stdout, stderr
	opts.Env = func(*Node) []string { return []string{"PATH=" + os.Getenv("PATH")} }
	done := make(chan Outcome, 1)
	go func() { done <- Execute(context.Background(), g, opts) }()
	select {
	case o := <-done:
		return o
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return within 30s")
	}
	return Outcome{}
}
