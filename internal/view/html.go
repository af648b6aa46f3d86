package view

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"

	"github.com/vxrun/vx/internal/quote"
)

//go:embed page.js
var pageJS string

//go:embed page.css
var pageCSS string

// htmlTask is a task as the page's script gets it: every text as vx
// shows it ([quote.Name]: printable, so no control or bidirectional
// character reaches the page), and where its box is.
type htmlTask struct {
	ID         string  `json:"id"`
	Project    string  `json:"project"`
	Path       string  `json:"path"`
	Task       string  `json:"task"`
	Script     string  `json:"script"`
	Pre        string  `json:"pre"`
	Post       string  `json:"post"`
	Cache      string  `json:"cache"`
	Key        string  `json:"key"`
	Error      string  `json:"error"`
	Persistent bool    `json:"persistent"`
	Why        string  `json:"why"`
	X          float64 `json:"x"`
	Y          float64 `json:"y"`
	Deps       []int   `json:"deps"`
}

type htmlEdge struct {
	From   int       `json:"from"`
	To     int       `json:"to"`
	Points []float64 `json:"points"` // x0, y0, x1, y1, ...
}

type htmlData struct {
	Title  string     `json:"title"`
	Width  float64    `json:"width"`
	Height float64    `json:"height"`
	Box    htmlBox    `json:"box"` // the size of every task's box
	Tasks  []htmlTask `json:"tasks"`
	Edges  []htmlEdge `json:"edges"`
}

type htmlBox struct {
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// WriteHTML writes g as one HTML page that needs nothing but itself: the
// drawing ([LayoutGraph]) is made by a small script inlined in the page,
// with its style, from the graph inlined as JSON. A Content-Security-Policy
// lets the page run only that script and that style (by their hashes) and
// load nothing at all, so it works offline and a hostile name can neither
// run code nor make a request. Every text of the graph reaches the page
// through JSON (with <, > and & escaped) and the script puts it in the
// document as text, never as markup.
func WriteHTML(w io.Writer, g *Graph) error {
	l := LayoutGraph(g)
	d := htmlData{Title: g.Title, Width: round(l.Width), Height: round(l.Height), Box: htmlBox{boxW, boxH}, Tasks: make([]htmlTask, len(g.Tasks)), Edges: make([]htmlEdge, len(l.Edges))}
	for i, t := range g.Tasks {
		d.Tasks[i] = htmlTask{ID: quote.Name(t.ID), Project: quote.Name(t.Project), Path: quote.Name(t.Path), Task: quote.Name(t.Task),
			Script: quote.Name(t.Script), Pre: shown(t.Pre), Post: shown(t.Post), Cache: t.Cache.State, Key: t.Cache.Key,
			Error: shown(t.Cache.Error), Persistent: t.Persistent, Why: shown(t.Why), X: round(l.Boxes[i].X), Y: round(l.Boxes[i].Y),
			Deps: append([]int{}, t.Deps...)}
	}
	for i, e := range l.Edges {
		pts := make([]float64, 0, 2*len(e.Points))
		for _, p := range e.Points {
			pts = append(pts, round(p.X), round(p.Y))
		}
		d.Edges[i] = htmlEdge{From: e.From, To: e.To, Points: pts}
	}
	data, err := json.Marshal(d) // escapes <, >, &, U+2028 and U+2029
	if err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src '` + cspHash(pageJS) + `'; style-src '` + cspHash(pageCSS) + `'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>vx graph</title>
<style>` + pageCSS + `</style>
</head>
<body>
<header>
<h1 id="title">vx graph</h1>
<span id="counts"></span>
<span class="legend"><span class="hit">hit</span><span class="remote-hit">remote hit</span><span class="miss">miss</span><span class="off">not cached</span></span>
<input id="search" type="search" placeholder="Find a task ( / )" autocomplete="off" spellcheck="false" aria-label="find a task">
<span id="matches"></span>
<button id="fit" type="button" title="show the whole graph">Fit</button><button id="zoomin" type="button" title="zoom in">+</button><button id="zoomout" type="button" title="zoom out">&minus;</button>
</header>
<main>
<svg id="graph" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="the task graph: each task after the tasks it depends on, left to right">
<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto"><path d="M0 0L8 4L0 8z"/></marker></defs>
<g id="viewport"><g id="edges"></g><g id="tasks"></g></g>
</svg>
<aside id="details" hidden></aside>
</main>
<noscript><p>This page draws the graph with the script inside it; allow scripts for this file.</p></noscript>
<script type="application/json" id="vx-data">`)
	b.Write(data)
	b.WriteString("</script>\n<script>" + pageJS + "</script>\n</body>\n</html>\n")
	return b.Flush()
}

// shown is s as vx shows a name, "" for "".
func shown(s string) string {
	if s == "" {
		return ""
	}
	return quote.Name(s)
}

// cspHash is the Content-Security-Policy source that allows the inline
// script or style whose text is s.
func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// round keeps a coordinate to a tenth of a pixel, which keeps the page
// small.
func round(f float64) float64 { return math.Round(f*10) / 10 }
