//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// TestProfileRun: vx run --profile writes a trace of a real run: a slice
// per task on its lane, lanes that never hold two tasks at once and no
// more of them than --concurrency, and the critical path: the chain
// a -> b -> c, longer than d by construction (a waits for d to end, b and
// c take 100 ms more each), whatever the machine's load.
func TestProfileRun(t *testing.T) {
	root := testdir.New(t)
	writeTree(t, root, map[string]string{
		"package.json":   `{"name": "root", "workspaces": ["a", "b", "c", "d"]}`,
		"vx.json":        `{"tasks": {"b#build": {"dependsOn": ["a#build"]}, "c#build": {"dependsOn": ["b#build"]}, "d#build": {"outputs": []}}}`,
		"a/package.json": `{"name": "a", "scripts": {"build": "while [ ! -f ../d-done ]; do sleep 0.01; done"}}`,
		"b/package.json": `{"name": "b", "scripts": {"build": "sleep 0.1"}}`,
		"c/package.json": `{"name": "c", "scripts": {"build": "sleep 0.1"}}`,
		"d/package.json": `{"name": "d", "scripts": {"build": "touch ../d-done"}}`,
	})
	var stdout, stderr bytes.Buffer
	code, err := Main(Process{Args: []string{"run", "build", "--concurrency", "2", "--profile", "trace.json"}, Dir: root,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr})
	if code != 0 || err != nil {
		t.Fatalf("exit %d, error %v, stderr:\n%s", code, err, stderr.String())
	}
	doc := readTrace(t, filepath.Join(root, "trace.json"))
	type slice struct{ start, end float64 }
	lanes := map[int][]slice{}
	names := map[int]string{}
	var tasks, track []string
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "thread_name":
			names[e.Tid] = e.Args["name"].(string)
		case e.Ph == "X" && names[e.Tid] == "critical path":
			track = append(track, e.Name)
		case e.Ph == "X":
			tasks = append(tasks, e.Name)
			lanes[e.Tid] = append(lanes[e.Tid], slice{e.Ts, e.Ts + e.Dur})
			if e.Args["status"] != "succeeded" || e.Cat != e.Args["cache"] {
				t.Errorf("%s: args %v, category %q", e.Name, e.Args, e.Cat)
			}
		}
	}
	sort.Strings(tasks)
	if diff := cmp.Diff([]string{"a#build", "b#build", "c#build", "d#build"}, tasks); diff != "" {
		t.Errorf("tasks in the trace (-want +got):\n%s", diff)
	}
	if len(lanes) > 2 {
		t.Errorf("%d lanes for --concurrency 2", len(lanes))
	}
	for lane, ss := range lanes {
		sort.Slice(ss, func(i, j int) bool { return ss[i].start < ss[j].start })
		for i := 1; i < len(ss); i++ {
			if ss[i].start < ss[i-1].end {
				t.Errorf("lane %d: a task starts at %vµs, before the one before it ends at %vµs", lane, ss[i].start, ss[i-1].end)
			}
		}
		if names[lane] == "" {
			t.Errorf("lane %d has no name", lane)
		}
	}
	want := []string{"a#build", "b#build", "c#build"}
	if diff := cmp.Diff(want, doc.OtherData.CriticalPath); diff != "" {
		t.Errorf("critical path (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, track); diff != "" {
		t.Errorf("the critical path's track (-want +got):\n%s", diff)
	}
	if doc.OtherData.Command != "vx run build --concurrency 2 --profile trace.json" {
		t.Errorf("command %q", doc.OtherData.Command)
	}

	// Again: b, c and d come from the cache; a, which has no vx.json
	// entry, runs (d-done is still there).
	stderr.Reset()
	if code, err := Main(Process{Args: []string{"run", "build", "--profile", "trace.json"}, Dir: root,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &stdout, Stderr: &stderr}); code != 0 || err != nil {
		t.Fatalf("second run: exit %d, error %v, stderr:\n%s", code, err, stderr.String())
	}
	cats := map[string]string{}
	for _, e := range readTrace(t, filepath.Join(root, "trace.json")).TraceEvents {
		if e.Ph == "X" && e.Cat != "critical" {
			cats[e.Name] = e.Cat + " " + e.Cname
		}
	}
	if diff := cmp.Diff(map[string]string{"a#build": "off ", "b#build": "hit good", "c#build": "hit good", "d#build": "hit good"}, cats); diff != "" {
		t.Errorf("cache states and colours (-want +got):\n%s", diff)
	}
}

// trace is what the tests read back of a profile.
type trace struct {
	TraceEvents []struct {
		Name, Ph, Cat, Cname string
		Ts, Dur              float64
		Pid, Tid             int
		Args                 map[string]any
	} `json:"traceEvents"`
	OtherData struct {
		Command      string   `json:"command"`
		CriticalPath []string `json:"criticalPath"`
	} `json:"otherData"`
}

func readTrace(t *testing.T, path string) trace {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc trace
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	return doc
}
