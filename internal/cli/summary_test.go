package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// summaryWorkspace: a builds, b fails with 3, c depends on b and is
// skipped; the scripts work in sh and cmd.exe alike.
func summaryWorkspace(t *testing.T) string {
	t.Helper()
	root := testdir.New(t)
	writeTree(t, root, map[string]string{
		"package.json":   `{"name": "root", "workspaces": ["a", "b", "c"]}`,
		"vx.json":        `{"tasks": {"c#build": {"dependsOn": ["b#build"]}}}`,
		"a/package.json": `{"name": "a", "scripts": {"build": "echo built a"}}`,
		"b/package.json": `{"name": "b", "scripts": {"build": "exit 3"}}`,
		"c/package.json": `{"name": "c", "scripts": {"build": "echo built c"}}`,
	})
	return root
}

func TestSummaryJSON(t *testing.T) {
	t.Parallel()
	root := summaryWorkspace(t)
	var stdout, stderr bytes.Buffer
	before := time.Now()
	code, err := Main(Process{Args: []string{"run", "build", "--continue", "--summary=json", "--concurrency", "1"}, Dir: root,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr})
	if code != 1 || err != nil {
		t.Fatalf("exit %d, error %v, stderr:\n%s", code, err, stderr.String())
	}
	// stdout holds the summary only; the tasks' output went to stderr.
	var doc struct {
		Args       []string
		Root       string
		Start, End time.Time
		DurationMs float64
		ExitCode   int
		Tasks      []struct {
			ID, Project, Task, Dir, Command, Status, Cache string
			Args, Argv, DependsOn                          []string
			Start, End                                     *time.Time
			DurationMs                                     *float64
			ExitCode                                       *int
		}
	}
	if err := decodeLoose(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not the summary: %v\n%s", err, stdout.String())
	}
	if !strings.Contains(stderr.String(), "a#build | built a") {
		t.Errorf("the tasks' output is not on stderr:\n%s", stderr.String())
	}
	if doc.ExitCode != 1 || doc.Root != root || doc.Start.Before(before.Add(-time.Second)) || doc.End.Before(doc.Start) || doc.DurationMs <= 0 ||
		!cmp.Equal(doc.Args, []string{"run", "build", "--continue", "--summary=json", "--concurrency", "1"}) {
		t.Errorf("run fields: %+v", doc)
	}
	type task struct {
		ID, Project, Status, Cache, Command string
		DependsOn                           []string
		ExitCode                            int
		Ran                                 bool
	}
	var got []task
	for _, tk := range doc.Tasks {
		tt := task{ID: tk.ID, Project: tk.Project, Status: tk.Status, Cache: tk.Cache, Command: tk.Command, DependsOn: tk.DependsOn, ExitCode: -1}
		if tk.Start != nil {
			tt.Ran = true
			tt.ExitCode = *tk.ExitCode
			if tk.End.Before(*tk.Start) || *tk.DurationMs < 0 || len(tk.Argv) < 2 || tk.Dir != filepath.Join(root, tk.Project) {
				t.Errorf("%s: start %v end %v duration %v argv %q dir %q", tk.ID, tk.Start, tk.End, *tk.DurationMs, tk.Argv, tk.Dir)
			}
		} else if tk.End != nil || tk.DurationMs != nil || tk.ExitCode != nil || len(tk.Argv) != 0 {
			t.Errorf("%s did not run, yet has times, an exit code or an argv", tk.ID)
		}
		got = append(got, tt)
	}
	want := []task{
		{ID: "a#build", Project: "a", Status: "succeeded", Cache: "off", Command: "echo built a", DependsOn: []string{}, ExitCode: 0, Ran: true},
		{ID: "b#build", Project: "b", Status: "failed", Cache: "off", Command: "exit 3", DependsOn: []string{}, ExitCode: 3, Ran: true},
		{ID: "c#build", Project: "c", Status: "skipped", Cache: "off", Command: "echo built c", DependsOn: []string{"b#build"}, ExitCode: -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
}

// decodeLoose decodes one JSON document that must be all of data.
func decodeLoose(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return nil
}

func TestSummaryFile(t *testing.T) {
	t.Parallel()
	root := summaryWorkspace(t)
	var stdout, stderr bytes.Buffer
	code, err := Main(Process{Args: []string{"run", "build", "--filter", "a", "--summary", "out/run.json"}, Dir: root,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr})
	if code == 0 || err == nil || !strings.Contains(err.Error(), `--summary: cannot write "out/run.json"`) || stdout.Len() > 0 {
		t.Errorf("summary in a missing directory: exit %d, error %v, stdout %q; want exit 2 before anything runs", code, err, stdout.String())
	}
	stdout.Reset()
	code, err = Main(Process{Args: []string{"run", "build", "--filter", "a", "--summary", "run.json"}, Dir: root,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr})
	if code != 0 || err != nil || !strings.Contains(stdout.String(), "built a") {
		t.Fatalf("exit %d, error %v, stdout %q", code, err, stdout.String())
	}
	data, err := os.ReadFile(filepath.Join(root, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		ExitCode int
		Tasks    []struct{ ID, Status string }
	}
	if err := decodeLoose(data, &doc); err != nil || doc.ExitCode != 0 || len(doc.Tasks) != 1 || doc.Tasks[0].Status != "succeeded" {
		t.Errorf("summary file: %v\n%s", err, data)
	}
}
