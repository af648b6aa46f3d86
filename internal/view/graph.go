package view

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
)

// The cache states of a task in a graph: what `vx run` would do with it
// now, by its key and the store (as `vx run --dry-run` says).
const (
	CacheHit       = "hit"        // the local store holds its result: it would be restored, not run
	CacheRemoteHit = "remote-hit" // the remote cache holds it
	CacheMiss      = "miss"       // it would run (also when its key could not be computed)
	CacheOff       = "off"        // the cache would not be asked: not cacheable, or --no-cache
)

// CacheInfo is what the command line found out about a task's cache entry.
type CacheInfo struct {
	State string // one of the Cache* constants
	Key   string // the task's key, "" when none was computed
	Error string // why no key could be computed, or ""
}

// Task is one task of a graph as the views show it.
type Task struct {
	ID         string
	Project    string
	Task       string
	Dir        string // the project's directory, absolute
	Path       string // the project's directory relative to the workspace root, slash-separated
	Script     string
	Pre, Post  string // the pre<task> and post<task> scripts it runs too, or ""
	Persistent bool
	Cache      CacheInfo
	Why        string // why a filter or --affected chose it, or ""
	Deps       []int  // the tasks it depends on: indices into Graph.Tasks, each smaller than its own
}

// Graph is a planned run as the views show it: its tasks in the plan's
// order, each after its dependencies.
type Graph struct {
	Title string // the command that asked for it: "vx graph build --filter web"
	Base  string // with --affected, the commit compared with
	Notes []string
	Tasks []Task
}

// FromRun returns the view of g; cache says what the cache would do with
// each task (nil: CacheOff for all).
func FromRun(g *run.Graph, title string, cache func(*run.Node) CacheInfo) *Graph {
	v := &Graph{Title: title, Base: g.Base, Notes: append([]string{}, g.Notes...), Tasks: make([]Task, len(g.Nodes))}
	index := make(map[*run.Node]int, len(g.Nodes))
	for i, n := range g.Nodes {
		index[n] = i
		t := Task{ID: n.ID, Project: n.Project.Name, Task: n.Task, Dir: n.Project.Dir, Path: n.Project.RelDir,
			Script: n.Script, Pre: n.Pre, Post: n.Post, Persistent: n.Config.Persistent, Why: n.Why,
			Cache: CacheInfo{State: CacheOff}}
		if t.Path == "" {
			t.Path = "."
		}
		if cache != nil {
			t.Cache = cache(n)
		}
		for _, d := range n.Deps {
			if j, ok := index[d]; ok { // --only leaves dependencies out
				t.Deps = append(t.Deps, j)
			}
		}
		v.Tasks[i] = t
	}
	return v
}

// WriteDOT writes g in Graphviz's DOT language: a node per task, named
// by its id, and an edge from each task to each task it depends on (as
// turbo and nx draw them). Ids are written as DOT strings with Go's
// escapes (strconv.Quote), so that any name, quotes, backslashes, line
// breaks and invalid UTF-8 included, makes a valid file and a distinct
// node; labels show the id as vx prints it ([quote.Name]).
func WriteDOT(w io.Writer, g *Graph) error {
	b := bufio.NewWriter(w)
	b.WriteString("digraph vx {\n\tnode [shape=box];\n")
	for _, t := range g.Tasks {
		fmt.Fprintf(b, "\t%s [label=%s];\n", strconv.Quote(t.ID), dotLabel(quote.Name(t.ID)))
	}
	for _, t := range g.Tasks {
		for _, d := range t.Deps {
			fmt.Fprintf(b, "\t%s -> %s;\n", strconv.Quote(t.ID), strconv.Quote(g.Tasks[d].ID))
		}
	}
	b.WriteString("}\n")
	return b.Flush()
}

// dotLabel quotes s, which holds only printable characters, as a DOT label:
// a label reads a backslash as the start of an escape (\n, \N), so each is
// doubled, and a double quote is escaped.
func dotLabel(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == '"' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(append(b, '"'))
}

// JSON is the document `vx graph --json` prints; docs/cli.md describes it.
type JSON struct {
	Base  string     `json:"base,omitempty"`
	Nodes []JSONNode `json:"nodes"`
	Edges []JSONEdge `json:"edges"`
	Notes []string   `json:"notes"`
}

// JSONNode is a task in [JSON].
type JSONNode struct {
	ID         string   `json:"id"`
	Project    string   `json:"project"`
	Task       string   `json:"task"`
	Dir        string   `json:"dir"`
	Path       string   `json:"path"`
	Script     string   `json:"script"`
	Pre        string   `json:"pre,omitempty"`
	Post       string   `json:"post,omitempty"`
	Persistent bool     `json:"persistent"`
	Cache      string   `json:"cache"`
	Key        string   `json:"key,omitempty"`
	CacheError string   `json:"cacheError,omitempty"`
	Why        string   `json:"why,omitempty"`
	DependsOn  []string `json:"dependsOn"`
}

// JSONEdge says that From depends on To (the direction of WriteDOT's
// arrows).
type JSONEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ToJSON returns g as `vx graph --json` prints it.
func ToJSON(g *Graph) JSON {
	doc := JSON{Base: g.Base, Nodes: make([]JSONNode, 0, len(g.Tasks)), Edges: []JSONEdge{}, Notes: append([]string{}, g.Notes...)}
	for _, t := range g.Tasks {
		n := JSONNode{ID: t.ID, Project: t.Project, Task: t.Task, Dir: t.Dir, Path: t.Path, Script: t.Script, Pre: t.Pre,
			Post: t.Post, Persistent: t.Persistent, Cache: t.Cache.State, Key: t.Cache.Key, CacheError: t.Cache.Error,
			Why: t.Why, DependsOn: []string{}}
		for _, d := range t.Deps {
			n.DependsOn = append(n.DependsOn, g.Tasks[d].ID)
			doc.Edges = append(doc.Edges, JSONEdge{From: t.ID, To: g.Tasks[d].ID})
		}
		doc.Nodes = append(doc.Nodes, n)
	}
	return doc
}
