package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testtool"
)

func TestWriteDOT(t *testing.T) {
	t.Parallel()
	g := &Graph{Tasks: []Task{
		{ID: "utils#build"},
		{ID: "ui#build", Deps: []int{0}},
		{ID: "web#build", Deps: []int{0, 1}},
		{ID: "evil\x1b\"\\#build"},
	}}
	var b bytes.Buffer
	if err := WriteDOT(&b, g); err != nil {
		t.Fatal(err)
	}
	want := `digraph vx {
	node [shape=box];
	"utils#build" [label="utils#build"];
	"ui#build" [label="ui#build"];
	"web#build" [label="web#build"];
	"evil\x1b\"\\#build" [label="\"evil\\x1b\\\"\\\\#build\""];
	"ui#build" -> "utils#build";
	"web#build" -> "utils#build";
	"web#build" -> "ui#build";
}
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
}

// TestDOTInGraphviz reads the DOT of a graph with hostile names back with
// Graphviz's dot: it parses, and has every task as its own node, with
// every edge.
func TestDOTInGraphviz(t *testing.T) {
	t.Parallel()
	dot := testtool.Need(t, "Graphviz: apt-get install graphviz; .ci/run does: the DOT output is read back by it", "dot")
	g := testGraph(60)
	var in bytes.Buffer
	if err := WriteDOT(&in, g); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(dot, "-Tjson0")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("dot: %v\n%s", err, stderr.String())
	}
	var parsed struct {
		Objects []struct {
			Name  string `json:"name"`
			Label string `json:"label"`
		} `json:"objects"`
		Edges []struct {
			Tail int `json:"tail"`
			Head int `json:"head"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(out, &parsed); err != nil {
		t.Fatalf("dot -Tjson0: %v", err)
	}
	if len(parsed.Objects) != len(g.Tasks) {
		t.Fatalf("dot read %d nodes, the graph has %d tasks", len(parsed.Objects), len(g.Tasks))
	}
	byName := map[string]int{}
	for i, o := range parsed.Objects {
		byName[o.Name] = i
	}
	if len(byName) != len(g.Tasks) {
		t.Errorf("dot read %d distinct node names for %d tasks", len(byName), len(g.Tasks))
	}
	// dot keeps a string's escapes but for \" (the node's name is the
	// text between the quotes with \" read as ").
	node := func(id string) int {
		q := strconv.Quote(id)
		i, ok := byName[strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)]
		if !ok {
			t.Fatalf("no node for %q", id)
		}
		return i
	}
	var want, got [][2]int
	for _, task := range g.Tasks {
		for _, d := range task.Deps {
			want = append(want, [2]int{node(task.ID), node(g.Tasks[d].ID)})
		}
	}
	for _, e := range parsed.Edges {
		got = append(got, [2]int{e.Tail, e.Head})
	}
	less := func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	}
	slices.SortFunc(want, less)
	slices.SortFunc(got, less)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edges dot read (-want +got):\n%s", diff)
	}
}

func TestToJSON(t *testing.T) {
	t.Parallel()
	g := &Graph{Base: "main (merge-base 1a2b)", Notes: []string{"a note"}, Tasks: []Task{
		{ID: "ui#build", Project: "ui", Task: "build", Dir: "/ws/ui", Path: "ui", Script: "tsc", Cache: CacheInfo{State: CacheHit, Key: "k1"}},
		{ID: "web#build", Project: "web", Task: "build", Dir: "/ws/web", Path: "web", Script: "next build", Pre: "gen", Why: "--filter web...",
			Cache: CacheInfo{State: CacheMiss, Error: "no key"}, Deps: []int{0}},
		{ID: "web#dev", Project: "web", Task: "dev", Dir: "/ws/web", Path: "web", Script: "next dev", Persistent: true, Cache: CacheInfo{State: CacheOff}},
	}}
	want := JSON{Base: "main (merge-base 1a2b)", Notes: []string{"a note"},
		Nodes: []JSONNode{
			{ID: "ui#build", Project: "ui", Task: "build", Dir: "/ws/ui", Path: "ui", Script: "tsc", Cache: "hit", Key: "k1", DependsOn: []string{}},
			{ID: "web#build", Project: "web", Task: "build", Dir: "/ws/web", Path: "web", Script: "next build", Pre: "gen", Cache: "miss",
				CacheError: "no key", Why: "--filter web...", DependsOn: []string{"ui#build"}},
			{ID: "web#dev", Project: "web", Task: "dev", Dir: "/ws/web", Path: "web", Script: "next dev", Persistent: true, Cache: "off", DependsOn: []string{}},
		},
		Edges: []JSONEdge{{From: "web#build", To: "ui#build"}},
	}
	if diff := cmp.Diff(want, ToJSON(g)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

func TestLayout(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 13, 300} {
		g := testGraph(n)
		l := LayoutGraph(g)
		for i, task := range g.Tasks {
			for _, d := range task.Deps {
				if l.Layer[d] >= l.Layer[i] || l.Boxes[d].X+boxW >= l.Boxes[i].X {
					t.Errorf("%d tasks: %q is not left of %q, which depends on it", n, g.Tasks[d].ID, task.ID)
				}
			}
			if b := l.Boxes[i]; b.X < 0 || b.Y < 0 || b.X+boxW > l.Width || b.Y+boxH > l.Height {
				t.Errorf("%d tasks: %q's box %v is outside the drawing %vx%v", n, task.ID, b, l.Width, l.Height)
			}
		}
		// Boxes of a layer do not overlap, and the longest-path layering
		// puts a task right after its deepest dependency.
		for i := range g.Tasks {
			deepest := -1
			for _, d := range g.Tasks[i].Deps {
				deepest = max(deepest, l.Layer[d])
			}
			if l.Layer[i] != deepest+1 {
				t.Errorf("%d tasks: %q is in layer %d, its deepest dependency in %d", n, g.Tasks[i].ID, l.Layer[i], deepest)
			}
			for j := range i {
				a, b := l.Boxes[i], l.Boxes[j]
				if a.X == b.X && a.Y < b.Y+boxH+rowGap/2 && b.Y < a.Y+boxH+rowGap/2 {
					t.Errorf("%d tasks: the boxes of %q and %q overlap", n, g.Tasks[i].ID, g.Tasks[j].ID)
				}
			}
		}
		for _, e := range l.Edges {
			if p := e.Points; p[0] != (Point{l.Boxes[e.To].X + boxW, l.Boxes[e.To].Y + boxH/2}) || p[len(p)-1] != (Point{l.Boxes[e.From].X, l.Boxes[e.From].Y + boxH/2}) {
				t.Errorf("%d tasks: the edge %d -> %d does not join their boxes: %v", n, e.From, e.To, p)
			}
		}
		if again := LayoutGraph(g); !cmp.Equal(l.Boxes, again.Boxes) {
			t.Errorf("%d tasks: two layouts of the same graph differ", n)
		}
	}
}

// TestLayoutUncrosses: a graph that can be drawn without crossings is,
// though its plan order crosses every edge pair.
func TestLayoutUncrosses(t *testing.T) {
	t.Parallel()
	// a0..a3 in layer 0; b_i depends on a_(3-i): in plan order, every
	// pair of edges crosses.
	g := &Graph{}
	for i := range 4 {
		g.Tasks = append(g.Tasks, Task{ID: "a" + strconv.Itoa(i)})
	}
	for i := range 4 {
		g.Tasks = append(g.Tasks, Task{ID: "b" + strconv.Itoa(i), Deps: []int{3 - i}})
	}
	// c depends on b0 and a1 across a layer: its edge to a1 bends.
	g.Tasks = append(g.Tasks, Task{ID: "c", Deps: []int{1, 4}})
	l := LayoutGraph(g)
	if c := l.crossings(); c != 0 {
		t.Errorf("%d crossings left", c)
	}
	if len(l.Edges) != 6 || l.Edges[4].From != 8 || l.Edges[4].To != 1 || len(l.Edges[4].Points) != 4 {
		t.Errorf("edges %v: want 6, c -> a1 with one bend", l.Edges)
	}
}

// TestLayoutLevels: a chain is drawn level, and a task with two
// dependencies half-way between them.
func TestLayoutLevels(t *testing.T) {
	t.Parallel()
	l := LayoutGraph(&Graph{Tasks: []Task{{ID: "a"}, {ID: "b", Deps: []int{0}}, {ID: "c", Deps: []int{1}}}})
	y := func(i int) float64 { return math.Round(l.Boxes[i].Y*10) / 10 }
	if y(0) != y(1) || y(1) != y(2) {
		t.Errorf("the chain a, b, c at %v, %v, %v", y(0), y(1), y(2))
	}
	l = LayoutGraph(&Graph{Tasks: []Task{{ID: "a"}, {ID: "x"}, {ID: "y", Deps: []int{0, 1}}}})
	if y(2) != math.Round((l.Boxes[0].Y+l.Boxes[1].Y)/2*10)/10 || y(0) == y(1) {
		t.Errorf("y at %v, a at %v and x at %v", y(2), y(0), y(1))
	}
}

func TestReduce(t *testing.T) {
	t.Parallel()
	// utils <- ui <- web, and web -> utils directly too; app -> web, ui.
	g := &Graph{Tasks: []Task{
		{ID: "utils"},
		{ID: "ui", Deps: []int{0}},
		{ID: "web", Deps: []int{0, 1}},
		{ID: "app", Deps: []int{1, 2}},
		{ID: "docs", Deps: []int{0}},
	}}
	want := [][]int{nil, {0}, {1}, {2}, {0}}
	if diff := cmp.Diff(want, reduce(g)); diff != "" {
		t.Errorf("edges drawn (-want +got):\n%s", diff)
	}
}

// TestLayoutFlat: tasks joined to no other are laid in a grid about as
// wide as a screen, row by row in plan order, below the joined ones: a
// flat graph of 42 builds (hono's) fits a 1400x800 page at full size
// instead of one column 2,200 pixels tall.
func TestLayoutFlat(t *testing.T) {
	t.Parallel()
	flat := &Graph{}
	for i := range 42 {
		flat.Tasks = append(flat.Tasks, Task{ID: fmt.Sprintf("pkg-%02d#build", i)})
	}
	l := LayoutGraph(flat)
	if l.Width > 1400 || l.Height > 800 || l.Width < l.Height {
		t.Errorf("42 independent tasks: a drawing of %vx%v, want at most 1400x800 and wider than high", l.Width, l.Height)
	}
	noOverlap(t, flat, l)
	for i := 1; i < len(flat.Tasks); i++ {
		a, b := l.Boxes[i-1], l.Boxes[i]
		if !(b.Y == a.Y && b.X > a.X || b.Y > a.Y && b.X == margin) {
			t.Errorf("task %d at %v does not follow task %d at %v row by row", i, b, i-1, a)
		}
	}

	// A chain of three, with ten unjoined tasks: the chain in layers
	// above, the ten in a grid below it, at least three columns wide.
	mixed := &Graph{Tasks: []Task{{ID: "a"}, {ID: "b", Deps: []int{0}}, {ID: "c", Deps: []int{1}}}}
	for i := range 10 {
		mixed.Tasks = append(mixed.Tasks, Task{ID: fmt.Sprintf("x%d", i)})
	}
	l = LayoutGraph(mixed)
	noOverlap(t, mixed, l)
	chainBottom := max(l.Boxes[0].Y, l.Boxes[1].Y, l.Boxes[2].Y) + boxH
	cols := map[float64]bool{}
	for i := 3; i < len(mixed.Tasks); i++ {
		if l.Boxes[i].Y < chainBottom+rowGap {
			t.Errorf("unjoined task %d at %v is not below the chain (bottom %v)", i, l.Boxes[i], chainBottom)
		}
		cols[l.Boxes[i].X] = true
	}
	if len(cols) < 3 {
		t.Errorf("the grid under a chain of 3 layers has %d columns", len(cols))
	}
	for i, b := range l.Boxes {
		if b.X < 0 || b.Y < 0 || b.X+boxW > l.Width || b.Y+boxH > l.Height {
			t.Errorf("box %d %v is outside the drawing %vx%v", i, b, l.Width, l.Height)
		}
	}
}

// noOverlap fails t when two boxes of l overlap.
func noOverlap(t *testing.T, g *Graph, l *Layout) {
	t.Helper()
	for i := range g.Tasks {
		for j := range i {
			a, b := l.Boxes[i], l.Boxes[j]
			if a.X < b.X+boxW && b.X < a.X+boxW && a.Y < b.Y+boxH && b.Y < a.Y+boxH {
				t.Errorf("the boxes of %q (%v) and %q (%v) overlap", g.Tasks[i].ID, a, g.Tasks[j].ID, b)
			}
		}
	}
}
