package view

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/workspace"

	"github.com/google/go-cmp/cmp"
)

// traceDoc is what a test reads back of a profile.
type traceDoc struct {
	TraceEvents []struct {
		Name  string         `json:"name"`
		Cat   string         `json:"cat"`
		Ph    string         `json:"ph"`
		Ts    float64        `json:"ts"`
		Dur   float64        `json:"dur"`
		Pid   int            `json:"pid"`
		Tid   int            `json:"tid"`
		ID    int            `json:"id"`
		Bp    string         `json:"bp"`
		Args  map[string]any `json:"args"`
		Cname string         `json:"cname"`
	} `json:"traceEvents"`
	DisplayTimeUnit string `json:"displayTimeUnit"`
	OtherData       struct {
		Command        string   `json:"command"`
		VX             string   `json:"vx"`
		CriticalPath   []string `json:"criticalPath"`
		CriticalPathMs float64  `json:"criticalPathMs"`
	} `json:"otherData"`
}

func node(id string, deps ...*run.Node) *run.Node {
	return &run.Node{ID: id, Task: "build", Project: &workspace.Project{Name: id}, Deps: deps}
}

// TestProfile replays a run into a Profile: lanes, events, and the
// critical path, which follows durations, not the number of tasks.
func TestProfile(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	// utils (0-100) <- ui (100-200) <- web (200-300): 300 ms in three
	// tasks; docs (0-350) alone is longer; lint (0-50) hits the cache;
	// dev is persistent and runs to the end; api fails.
	utils := node("utils#build")
	ui := node("ui#build", utils)
	web := node("web#build", ui)
	docs := node("docs#build")
	lint := node("lint#build")
	dev := node("web#dev")
	dev.Config = config.Task{Persistent: true}
	api := node("api#build", utils)
	p := &Profile{}
	p.TaskStarted(utils, at(0))
	p.TaskStarted(docs, at(0))
	p.TaskStarted(lint, at(0))
	p.TaskStarted(dev, at(0))
	p.TaskEnded(run.TaskRun{Node: lint, Status: "succeeded", Cache: "hit", Start: at(0), End: at(50)})
	p.TaskEnded(run.TaskRun{Node: utils, Status: "succeeded", Cache: "miss", Start: at(0), End: at(100)})
	p.TaskStarted(ui, at(100)) // takes utils's lane 1
	p.TaskStarted(api, at(101))
	p.TaskEnded(run.TaskRun{Node: api, Status: "failed", ExitCode: 2, Start: at(101), End: at(120)})
	p.TaskEnded(run.TaskRun{Node: ui, Status: "succeeded", Start: at(100), End: at(200)})
	p.TaskStarted(web, at(200))
	p.TaskEnded(run.TaskRun{Node: web, Status: "succeeded", Start: at(200), End: at(300)})
	p.TaskEnded(run.TaskRun{Node: docs, Status: "succeeded", Start: at(0), End: at(350)})
	p.TaskEnded(run.TaskRun{Node: dev, Status: "stopped", Signal: "SIGINT", ExitCode: 130, Start: at(0), End: at(400)})

	ids, total := p.CriticalPath()
	if diff := cmp.Diff([]string{"docs#build"}, ids); diff != "" || total != 350*time.Millisecond {
		t.Errorf("critical path %v in %v, want docs#build alone in 350ms", ids, total)
	}
	var b bytes.Buffer
	if err := p.Write(&b, run.Outcome{Start: t0, Elapsed: 400 * time.Millisecond}, "vx run build", "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	var doc traceDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	type slice struct {
		Name        string
		Lane        int
		Start, Dur  float64
		Cat, Status string
		Critical    bool
	}
	var got []slice
	threads := map[int]string{}
	cnames := map[string]string{}
	for _, e := range doc.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "thread_name":
			threads[e.Tid] = e.Args["name"].(string)
		case e.Ph == "M" && e.Name == "process_name":
			if e.Args["name"] != "vx run build" {
				t.Errorf("process name %v", e.Args["name"])
			}
		case e.Ph == "X" && e.Tid != 5:
			if e.Cname != "" {
				cnames[e.Name] = e.Cname
			}
			got = append(got, slice{e.Name, e.Tid, e.Ts, e.Dur, e.Cat, e.Args["status"].(string), e.Args["critical"].(bool)})
		}
	}
	want := []slice{
		{"utils#build", 1, 0, 100e3, "miss", "succeeded", false},
		{"docs#build", 2, 0, 350e3, "off", "succeeded", true},
		{"lint#build", 3, 0, 50e3, "hit", "succeeded", false},
		{"web#dev", 4, 0, 400e3, "off", "stopped", false},
		{"ui#build", 1, 100e3, 100e3, "off", "succeeded", false},
		{"api#build", 3, 101e3, 19e3, "off", "failed", false},
		{"web#build", 1, 200e3, 100e3, "off", "succeeded", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("slices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"api#build": "terrible", "lint#build": "good"}, cnames); diff != "" {
		t.Errorf("colours (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int]string{1: "lane 1", 2: "lane 2", 3: "lane 3", 4: "lane 4", 5: "critical path"}, threads); diff != "" {
		t.Errorf("threads (-want +got):\n%s", diff)
	}
	if doc.OtherData.CriticalPathMs != 350 || doc.OtherData.VX != "v1.2.3" || doc.DisplayTimeUnit != "ms" {
		t.Errorf("otherData %+v, displayTimeUnit %q", doc.OtherData, doc.DisplayTimeUnit)
	}
}

// TestProfileCriticalChain: when the chain is the longest, it is the
// critical path, drawn on its own track and by flow arrows from each task
// to the next.
func TestProfileCriticalChain(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	utils := node("utils#build")
	ui := node("ui#build", utils)
	other := node("other#build")
	web := node("web#build", ui, other)
	p := &Profile{}
	p.TaskStarted(utils, at(0))
	p.TaskStarted(other, at(0))
	p.TaskEnded(run.TaskRun{Node: other, Status: "succeeded", End: at(150)})
	p.TaskEnded(run.TaskRun{Node: utils, Status: "succeeded", End: at(100)})
	p.TaskStarted(ui, at(100))
	p.TaskEnded(run.TaskRun{Node: ui, Status: "succeeded", End: at(200)})
	p.TaskStarted(web, at(200))
	p.TaskEnded(run.TaskRun{Node: web, Status: "succeeded", End: at(250)})
	var b bytes.Buffer
	if err := p.Write(&b, run.Outcome{Start: t0, Elapsed: 250 * time.Millisecond}, "vx run build", "v1"); err != nil {
		t.Fatal(err)
	}
	var doc traceDoc
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"utils#build", "ui#build", "web#build"}, doc.OtherData.CriticalPath); diff != "" || doc.OtherData.CriticalPathMs != 250 {
		t.Errorf("critical path (-want +got):\n%s, %v ms", diff, doc.OtherData.CriticalPathMs)
	}
	var track, flows []string
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" && e.Tid == 3 {
			track = append(track, e.Name)
		}
		if e.Ph == "s" || e.Ph == "f" {
			flows = append(flows, e.Ph+" "+strconv.Itoa(e.ID)+" lane "+strconv.Itoa(e.Tid))
		}
	}
	if diff := cmp.Diff([]string{"utils#build", "ui#build", "web#build"}, track); diff != "" {
		t.Errorf("the critical path's track (-want +got):\n%s", diff)
	}
	// utils and ui on lane 1 (ui took utils's), web on lane 1 too.
	if diff := cmp.Diff([]string{"s 1 lane 1", "f 1 lane 1", "s 2 lane 1", "f 2 lane 1"}, flows); diff != "" {
		t.Errorf("flow events (-want +got):\n%s", diff)
	}
}
