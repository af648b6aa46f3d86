package view

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// hostileNames are project names a page must show as text, never run or
// load: markup, script, quotes, backslashes, line breaks, escape
// sequences, bidirectional overrides, invalid UTF-8, wide characters.
var hostileNames = []string{
	`</script><script>alert(1)</script>`,
	`<img src=http://127.0.0.1:9/x.png onerror=alert(1)>`,
	`"quoted" & 'single'`,
	`back\slash\`,
	"line\nbreak\r\n",
	"esc\x1b[2Kape",
	"bidi\u202eesrever",
	"bad\xff\xfeutf8",
	"日本語のパッケージ",
	"emoji😀pkg",
	"\u2028sep\u2029",
	`{{.}}${x}`,
	`@scope/name`,
}

// testGraph returns a graph of n tasks named after hostileNames (and
// plain names past them), each depending on up to three earlier tasks,
// picked by a fixed pseudo-random sequence; cache states cycle.
func testGraph(n int) *Graph {
	g := &Graph{Title: `vx graph build --filter "</script>"`}
	seed := uint32(12345)
	next := func() uint32 { seed = seed*1664525 + 1013904223; return seed >> 8 }
	states := []string{CacheHit, CacheMiss, CacheOff, CacheRemoteHit}
	for i := range n {
		proj := fmt.Sprintf("pkg-%03d", i)
		if i < len(hostileNames) {
			proj = hostileNames[i] + fmt.Sprint(i)
		}
		t := Task{ID: proj + "#build", Project: proj, Task: "build", Path: "packages/" + proj, Script: "tsc -p . && echo </script>",
			Cache: CacheInfo{State: states[i%len(states)], Key: fmt.Sprintf("%064x", i)}}
		if i > 0 {
			for range next() % 4 {
				d := int(next() % uint32(i))
				if !slices.Contains(t.Deps, d) {
					t.Deps = append(t.Deps, d)
				}
			}
			sort.Ints(t.Deps)
		}
		g.Tasks = append(g.Tasks, t)
	}
	return g
}

func writePage(t *testing.T, g *Graph) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, g); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestHTMLSelfContained checks the page's text: one policy that loads
// nothing and runs only the page's own script and style, no URL but the
// SVG namespace, and no hostile name as markup.
func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	page := string(writePage(t, testGraph(40)))
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy meta")
	}
	want := "default-src 'none'; script-src " + hash(pageJS) + "; style-src " + hash(pageCSS) + "; base-uri 'none'; form-action 'none'"
	if csp[1] != want {
		t.Errorf("policy:\n got %s\nwant %s", csp[1], want)
	}
	if !strings.Contains(page, "<script>"+pageJS+"</script>") || !strings.Contains(page, "<style>"+pageCSS+"</style>") {
		t.Error("the inline script or style differs from the one the policy allows")
	}
	// The graph's names are data (they may hold anything); the rest of
	// the page names no URL but the SVG namespace, and no url() but the
	// page's own #arrow.
	code := regexp.MustCompile(`(?s)<script type="application/json" id="vx-data">.*?</script>`).ReplaceAllString(page, "")
	urls := regexp.MustCompile(`(?i)([a-z]+:)?//[a-z0-9][^"' )]*|url\([^)]*\)|@import`).FindAllString(code, -1)
	for _, u := range urls {
		if u != "http://www.w3.org/2000/svg" && u != "url(#arrow)" {
			t.Errorf("the page names %q", u)
		}
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d <script tags, want 2 (the data and the script)", n)
	}
	for _, name := range hostileNames {
		if strings.ContainsAny(name, "<>&") && strings.Contains(page, name) {
			t.Errorf("the page holds %q as it is", name)
		}
	}
}

// TestHTMLInBrowser opens pages in a real headless Chromium (one
// browser, a page after the other).
func TestHTMLInBrowser(t *testing.T) {
	ctx := browserContext(t)
	b := startBrowser(t, ctx)
	t.Run("300 tasks", func(t *testing.T) { testBrowserGraph(t, ctx, b) })
	t.Run("flat", func(t *testing.T) { testBrowserFlat(t, ctx, b) })
	t.Run("empty", func(t *testing.T) { testBrowserEmpty(t, ctx, b) })
	t.Run("violations are caught", func(t *testing.T) { testBrowserCatches(t, ctx, b) })
}

// testBrowserGraph: a page of 300 tasks with hostile names loads with no
// console error and no request, draws every task with its id, and
// finding, selecting and clicking a task marks exactly what it depends on
// and what depends on it.
func testBrowserGraph(t *testing.T, ctx context.Context, b *browser) {
	b.t = t
	g := testGraph(300)
	// The needle: the task with the most tasks before and after it.
	needle, most := 0, 0
	for i := range g.Tasks {
		up, down := closures(g, i)
		if n := min(len(up), len(down)); n > most {
			needle, most = i, n
		}
	}
	if most < 5 {
		t.Fatalf("the test graph's best needle has %d tasks before or after it", most)
	}
	g.Tasks[needle].ID = "needle-pkg#build"
	file := filepath.Join(testdir.New(t), "graph.html")
	if err := os.WriteFile(file, writePage(t, g), 0o644); err != nil {
		t.Fatal(err)
	}
	url := b.open(ctx, file)

	var ids []string
	b.eval(ctx, `Array.from(document.querySelectorAll("#tasks .task > title"), e => e.textContent.split("\n")[0])`, &ids)
	want := make([]string, len(g.Tasks))
	for i, task := range g.Tasks {
		want[i] = quote.Name(task.ID)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("the tasks drawn (-want +got):\n%s", diff)
	}
	var counts struct {
		Scripts, Foreign, Edges int
		Header                  string
	}
	b.eval(ctx, `({scripts: document.scripts.length, foreign: document.querySelectorAll("img, iframe, object, embed, link, image, use, foreignObject, audio, video").length,
		edges: document.querySelectorAll("#edges path").length, header: document.getElementById("counts").textContent})`, &counts)
	if counts.Scripts != 2 || counts.Foreign != 0 {
		t.Errorf("the page has %d scripts (want 2) and %d elements that could load something (want 0)", counts.Scripts, counts.Foreign)
	}
	if l := LayoutGraph(g); counts.Edges != len(l.Edges) {
		t.Errorf("%d edges drawn, the layout has %d", counts.Edges, len(l.Edges))
	}
	deps := 0
	for _, task := range g.Tasks {
		deps += len(task.Deps)
	}
	if want := fmt.Sprintf("300 tasks, 75 hit, 75 remote-hit, 75 miss, 75 not cached, %d of %d edges drawn", counts.Edges, deps); counts.Header != want || counts.Edges >= deps {
		t.Errorf("header %q, want %q", counts.Header, want)
	}
	var classes []string
	b.eval(ctx, `Array.from(document.querySelectorAll("#tasks .task"), e => e.getAttribute("class"))`, &classes)
	for i, c := range classes {
		if want := "task " + g.Tasks[i].Cache.State; c != want {
			t.Errorf("task %d has class %q, want %q", i, c, want)
		}
	}

	// Find the needle by typing, go to it with Enter.
	b.eval(ctx, `document.getElementById("search").focus()`, nil)
	b.call(ctx, b.session, "Input.insertText", map[string]any{"text": "needle"}, nil)
	var matches string
	b.eval(ctx, `document.getElementById("matches").textContent + " " + document.querySelectorAll(".task.match").length`, &matches)
	if matches != "1 match 1" {
		t.Errorf("searching needle: %q, want 1 match", matches)
	}
	for _, typ := range []string{"keyDown", "keyUp"} {
		b.call(ctx, b.session, "Input.dispatchKeyEvent", map[string]any{"type": typ, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}, nil)
	}
	up, down := closures(g, needle)
	checkSelection(t, ctx, b, needle, "after Enter", up, down)

	// Escape clears the selection; a click on the task selects it again.
	b.call(ctx, b.session, "Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27}, nil)
	var selected int
	b.eval(ctx, `document.querySelectorAll(".task.sel").length`, &selected)
	if selected != 0 {
		t.Errorf("after Escape %d tasks are selected", selected)
	}
	var box struct{ X, Y float64 }
	b.eval(ctx, fmt.Sprintf(`(r => ({x: r.left + r.width / 2, y: r.top + r.height / 2}))(document.querySelector('.task[data-index="%d"] rect.box').getBoundingClientRect())`, needle), &box)
	b.click(ctx, box.X, box.Y)
	checkSelection(t, ctx, b, needle, "after a click", up, down)

	// A link in the details goes to that task.
	var first int
	b.eval(ctx, `(() => { const a = document.querySelector("#details dd a"); a.click(); return Number(document.querySelector(".task.sel").dataset.index); })()`, &first)
	if first != g.Tasks[needle].Deps[0] {
		t.Errorf("the first link of the details selected task %d, want %d, the needle's first dependency", first, g.Tasks[needle].Deps[0])
	}
	// A click off every task clears the selection.
	var empty struct{ X, Y float64 }
	b.eval(ctx, `(() => { const r = document.getElementById("graph").getBoundingClientRect();
		for (let y = r.top + 2; y < r.bottom; y += 7) for (let x = r.left + 2; x < r.right; x += 7) {
			const e = document.elementFromPoint(x, y);
			if (e && !e.closest(".task") && e.closest("#graph")) return {x, y};
		}
		return null; })()`, &empty)
	b.click(ctx, empty.X, empty.Y)
	b.eval(ctx, `document.querySelectorAll(".task.sel").length + (document.getElementById("details").hidden ? 0 : 10)`, &selected)
	if selected != 0 {
		t.Errorf("after a click at %v off every task: %d selected, or the details still shown", empty, selected)
	}

	// Wheel zooms in where the pointer is, a drag pans, Fit shows every
	// task whole, / goes to the search box.
	transform := func() (x, y, k float64) {
		var tr string
		b.eval(ctx, `document.getElementById("viewport").getAttribute("transform")`, &tr)
		if _, err := fmt.Sscanf(tr, "translate(%g,%g) scale(%g)", &x, &y, &k); err != nil {
			t.Fatalf("transform %q: %v", tr, err)
		}
		return x, y, k
	}
	_, _, k0 := transform()
	b.call(ctx, b.session, "Input.dispatchMouseEvent", map[string]any{"type": "mouseWheel", "x": 500, "y": 400, "deltaX": 0, "deltaY": -300}, nil)
	x1, y1, k1 := transform()
	if k1 <= k0 {
		t.Errorf("a wheel up did not zoom in: scale %v, then %v", k0, k1)
	}
	for _, ev := range []struct {
		typ  string
		x, y float64
	}{{"mousePressed", empty.X, empty.Y}, {"mouseMoved", empty.X + 40, empty.Y + 30}, {"mouseReleased", empty.X + 40, empty.Y + 30}} {
		b.call(ctx, b.session, "Input.dispatchMouseEvent", map[string]any{"type": ev.typ, "x": ev.x, "y": ev.y, "button": "left", "buttons": 1, "clickCount": 1}, nil)
	}
	if x2, y2, _ := transform(); x2 != x1+40 || y2 != y1+30 {
		t.Errorf("a drag by 40, 30 moved the drawing from %v, %v to %v, %v", x1, y1, x2, y2)
	}
	var outside int
	b.eval(ctx, `(() => { document.getElementById("fit").click(); const r = document.getElementById("graph").getBoundingClientRect();
		return Array.from(document.querySelectorAll(".task rect.box"), e => e.getBoundingClientRect())
			.filter(b => b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5).length; })()`, &outside)
	if outside != 0 {
		t.Errorf("after Fit, %d tasks are not in view", outside)
	}
	b.eval(ctx, `document.activeElement.blur()`, nil)
	b.call(ctx, b.session, "Input.dispatchKeyEvent", map[string]any{"type": "keyDown", "key": "/", "code": "Slash", "text": "/"}, nil)
	var focused string
	b.eval(ctx, `document.activeElement.id + ":" + document.getElementById("search").value`, &focused)
	if focused != "search:" { // Escape emptied the box; the / is not typed into it
		t.Errorf("after /, the focus and search box are %q, want search:", focused)
	}

	if p := b.problems(url); len(p) > 0 {
		t.Errorf("the page did what it must not:\n%s", strings.Join(p, "\n"))
	}
}

// closures returns the tasks task i depends on and those that depend on
// it, directly or not, sorted.
func closures(g *Graph, i int) (up, down []int) {
	var walk func(j int, seen map[int]bool)
	walk = func(j int, seen map[int]bool) {
		for _, d := range g.Tasks[j].Deps {
			if !seen[d] {
				seen[d] = true
				walk(d, seen)
			}
		}
	}
	ups := map[int]bool{}
	walk(i, ups)
	for j := range g.Tasks {
		s := map[int]bool{}
		walk(j, s)
		if s[i] {
			down = append(down, j)
		}
	}
	for j := range ups {
		up = append(up, j)
	}
	sort.Ints(up)
	return up, down
}

func checkSelection(t *testing.T, ctx context.Context, b *browser, i int, when string, up, down []int) {
	t.Helper()
	var got struct {
		Sel, Up, Down []int
		Title         string
		Hidden        bool
	}
	b.eval(ctx, `(() => { const ix = sel => Array.from(document.querySelectorAll(sel), e => Number(e.dataset.index)).sort((a, b) => a - b);
		return {sel: ix(".task.sel"), up: ix(".task.dep"), down: ix(".task.dependent"),
			title: document.querySelector("#details h2")?.textContent, hidden: document.getElementById("details").hidden}; })()`, &got)
	if diff := cmp.Diff([]int{i}, got.Sel); diff != "" {
		t.Errorf("%s: selected (-want +got):\n%s", when, diff)
	}
	if diff := cmp.Diff(up, got.Up, cmpEmpty); diff != "" {
		t.Errorf("%s: marked as dependencies (-want +got):\n%s", when, diff)
	}
	if diff := cmp.Diff(down, got.Down, cmpEmpty); diff != "" {
		t.Errorf("%s: marked as dependents (-want +got):\n%s", when, diff)
	}
	if got.Hidden || got.Title != "needle-pkg#build" {
		t.Errorf("%s: details hidden %v, title %q", when, got.Hidden, got.Title)
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []int) bool { return slices.Equal(a, b) })

// testBrowserCatches proves the browser test can fail: a page that
// loads an image from the network is caught by its policy (an error
// logged), and without the policy by the request itself.
func testBrowserCatches(t *testing.T, ctx context.Context, b *browser) {
	b.t = t
	page := string(writePage(t, testGraph(3)))
	img := `<img src="http://127.0.0.1:9/x.png">`
	dir := testdir.New(t)
	for _, tt := range []struct {
		name, page, want string
	}{
		{"with the policy", strings.Replace(page, "</main>", img+"</main>", 1), "log error"},
		{"without the policy", regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(strings.Replace(page, "</main>", img+"</main>", 1), ""), "request: http://127.0.0.1:9/x.png"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".html")
		if err := os.WriteFile(file, []byte(tt.page), 0o644); err != nil {
			t.Fatal(err)
		}
		url := b.open(ctx, file)
		if p := strings.Join(b.problems(url), "\n"); !strings.Contains(p, tt.want) {
			t.Errorf("%s: the problems seen do not hold %q:\n%s", tt.name, tt.want, p)
		}
	}
}

// testBrowserEmpty: a graph without tasks is a page that says so.
func testBrowserEmpty(t *testing.T, ctx context.Context, b *browser) {
	b.t = t
	file := filepath.Join(testdir.New(t), "empty.html")
	if err := os.WriteFile(file, writePage(t, &Graph{Title: "vx graph nothing"}), 0o644); err != nil {
		t.Fatal(err)
	}
	url := b.open(ctx, file)
	var text string
	b.eval(ctx, `document.getElementById("empty").textContent + " | " + document.getElementById("counts").textContent`, &text)
	if text != "No task: the selection is empty. | 0 tasks" {
		t.Errorf("empty page says %q", text)
	}
	if p := b.problems(url); len(p) > 0 {
		t.Errorf("the page did what it must not:\n%s", strings.Join(p, "\n"))
	}
}

// testBrowserFlat: a flat graph (hono's 42 independent builds) opens with
// every task in view at a readable size (scale 0.75 or more), misses
// included; so does Fit. VX_GRAPH_SCREENSHOT names a PNG file to keep
// what the page showed, to look at it.
func testBrowserFlat(t *testing.T, ctx context.Context, b *browser) {
	b.t = t
	g := &Graph{Title: "vx graph build"}
	for i := range 42 {
		state := CacheHit
		if i%9 == 4 {
			state = CacheMiss
		}
		g.Tasks = append(g.Tasks, Task{ID: fmt.Sprintf("@hono/pkg-%02d#build", i), Project: fmt.Sprintf("@hono/pkg-%02d", i),
			Task: "build", Script: "tsup", Cache: CacheInfo{State: state, Key: fmt.Sprintf("%064x", i)}})
	}
	file := filepath.Join(testdir.New(t), "flat.html")
	if err := os.WriteFile(file, writePage(t, g), 0o644); err != nil {
		t.Fatal(err)
	}
	url := b.open(ctx, file)
	inView := `(() => { const r = document.getElementById("graph").getBoundingClientRect();
		const boxes = Array.from(document.querySelectorAll(".task rect.box"), e => e.getBoundingClientRect());
		const k = Number(/scale\(([0-9.e-]+)\)/.exec(document.getElementById("viewport").getAttribute("transform"))[1]);
		return {k: k, outside: boxes.filter(b => b.left < r.left - 0.5 || b.right > r.right + 0.5 || b.top < r.top - 0.5 || b.bottom > r.bottom + 0.5).length,
			misses: document.querySelectorAll(".task.miss").length}; })()`
	var first struct {
		K       float64 `json:"k"`
		Outside int     `json:"outside"`
		Misses  int     `json:"misses"`
	}
	b.eval(ctx, inView, &first)
	if first.K < 0.75 || first.Outside != 0 || first.Misses != 5 {
		t.Errorf("the page opens at scale %v with %d of 42 tasks out of view (%d misses drawn), want every task in view at 0.75 or more", first.K, first.Outside, first.Misses)
	}
	if shot := os.Getenv("VX_GRAPH_SCREENSHOT"); shot != "" {
		var png struct {
			Data []byte `json:"data"`
		}
		b.call(ctx, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &png)
		if err := os.WriteFile(shot, png.Data, 0o644); err != nil {
			t.Error(err)
		}
	}
	b.eval(ctx, `document.getElementById("fit").click()`, nil)
	var fitted struct {
		K       float64 `json:"k"`
		Outside int     `json:"outside"`
	}
	b.eval(ctx, inView, &fitted)
	if fitted.K < 0.75 || fitted.Outside != 0 {
		t.Errorf("after Fit: scale %v, %d tasks out of view; want all in view at 0.75 or more", fitted.K, fitted.Outside)
	}
	if p := b.problems(url); len(p) > 0 {
		t.Errorf("the page did what it must not:\n%s", strings.Join(p, "\n"))
	}
}
