package view

import (
	"cmp"
	"math"
	"slices"
)

// The sizes of the HTML page's drawing, in CSS pixels.
const (
	boxW   = 240.0 // a task's box
	boxH   = 40.0
	colGap = 70.0 // between two layers
	rowGap = 12.0 // between two boxes of a layer
	laneH  = 6.0  // the room an edge passing through a layer takes
	margin = 20.0
)

// Point is a position on the page's drawing.
type Point struct{ X, Y float64 }

// Layout is where the HTML page draws each task and edge: tasks in
// columns (layers) from left to right in dependency order, each edge from
// the right side of the task depended on to the left side of the dependent.
// Only the edges no longer path implies are drawn (the transitive
// reduction: web -> utils is left out when web -> ui -> utils is there),
// which keeps a workspace whose projects list their dependencies'
// dependencies readable; what a task depends on, directly or not, is the
// same.
type Layout struct {
	Width, Height float64
	Layers        int
	Boxes         []Point   // the top-left corner of each task's box, by task index
	Layer         []int     // the layer of each task
	Edges         []Route   // the dependencies drawn, in the order of the tasks and their Deps
	order         [][]int   // the vertices of each layer, top to bottom (tasks, then edge bends)
	grid          []int     // the tasks without a dependency or a dependent, in plan order: placed in a grid
	verts         []lvertex // tasks first, then the bends of edges that cross layers
	key           []float64 // sortLayer's sort key of each vertex
}

// Route is the path of one edge: From depends on To (task indices); the
// points go from To's box to From's, through one bend per layer crossed.
type Route struct {
	From, To int
	Points   []Point
}

// lvertex is a task or a bend of an edge in the layered drawing.
type lvertex struct {
	layer       int
	left, right []int // the vertices it is joined to in the layer before and after
	pos         int   // its index in its layer
	y           float64
}

// LayoutGraph lays g out: the longest-path layering (a task's layer is one
// more than its deepest dependency's, so dependencies come first), an
// edge crossing several layers bends once in each, and the order within
// each layer is chosen to cross fewer edges: barycenter sweeps (each
// vertex moves to the mean position of its neighbours in the layer just
// swept), keeping the order that crossed least. The tasks joined to no
// other (no dependency, no dependent: a flat graph's every task, the 42
// independent builds of a monorepo's packages) are not stacked in one long
// first layer but laid in a grid below the rest, row by row in plan order,
// as many columns as make it about as wide as a screen is wide (gridAspect),
// and at least as many as the layers above it. Everything is deterministic:
// the same graph gives the same drawing.
func LayoutGraph(g *Graph) *Layout {
	n := len(g.Tasks)
	l := &Layout{Boxes: make([]Point, n), Layer: make([]int, n)}
	for i, t := range g.Tasks {
		for _, d := range t.Deps {
			l.Layer[i] = max(l.Layer[i], l.Layer[d]+1)
		}
		l.Layers = max(l.Layers, l.Layer[i]+1)
	}
	l.verts = make([]lvertex, n)
	joined := make([]bool, n)
	for i, t := range g.Tasks {
		l.verts[i].layer = l.Layer[i]
		if len(t.Deps) > 0 {
			joined[i] = true
			for _, d := range t.Deps {
				joined[d] = true
			}
		}
	}
	for i := range g.Tasks {
		if !joined[i] {
			l.grid = append(l.grid, i)
		}
	}
	type span struct{ from, to int }
	bends := map[span][]int{}
	drawn := reduce(g)
	for i := range g.Tasks {
		for _, d := range drawn[i] {
			prev := d
			var mid []int
			for layer := l.Layer[d] + 1; layer < l.Layer[i]; layer++ {
				v := len(l.verts)
				l.verts = append(l.verts, lvertex{layer: layer})
				l.join(prev, v)
				mid = append(mid, v)
				prev = v
			}
			l.join(prev, i)
			bends[span{i, d}] = mid
		}
	}
	l.order = make([][]int, l.Layers)
	for v := range l.verts {
		if v < n && !joined[v] {
			continue // in the grid
		}
		layer := l.verts[v].layer
		l.verts[v].pos = len(l.order[layer])
		l.order[layer] = append(l.order[layer], v)
	}
	l.reduceCrossings()
	l.place(joined)
	for i := range g.Tasks {
		for _, d := range drawn[i] {
			r := Route{From: i, To: d}
			r.Points = append(r.Points, Point{l.Boxes[d].X + boxW, l.Boxes[d].Y + boxH/2})
			for _, v := range bends[span{i, d}] {
				x := margin + float64(l.verts[v].layer)*(boxW+colGap)
				r.Points = append(r.Points, Point{x, l.verts[v].y}, Point{x + boxW, l.verts[v].y})
			}
			r.Points = append(r.Points, Point{l.Boxes[i].X, l.Boxes[i].Y + boxH/2})
			l.Edges = append(l.Edges, r)
		}
	}
	return l
}

// reduce returns, for each task, the dependencies that no other of its
// dependencies depends on, directly or not.
func reduce(g *Graph) [][]int {
	n := len(g.Tasks)
	words := (n + 63) / 64
	reach := make([][]uint64, n) // reach[i]: every task i depends on, directly or not
	drawn := make([][]int, n)
	for i, t := range g.Tasks {
		reach[i] = make([]uint64, words)
		for _, d := range t.Deps {
			reach[i][d/64] |= 1 << (d % 64)
			for w, bits := range reach[d] {
				reach[i][w] |= bits
			}
		}
		for _, d := range t.Deps {
			implied := false
			for _, e := range t.Deps {
				if e != d && reach[e][d/64]&(1<<(d%64)) != 0 {
					implied = true
					break
				}
			}
			if !implied {
				drawn[i] = append(drawn[i], d)
			}
		}
	}
	return drawn
}

func (l *Layout) join(left, right int) {
	l.verts[left].right = append(l.verts[left].right, right)
	l.verts[right].left = append(l.verts[right].left, left)
}

// sweeps is how many times reduceCrossings sweeps both ways at most.
const sweeps = 12

// reduceCrossings orders each layer by barycenter sweeps, left to right
// and back, each followed by swaps of neighbours that cross less, and
// keeps the best order seen.
func (l *Layout) reduceCrossings() {
	best, bestOrder := l.crossings(), l.copyOrder()
	for range sweeps {
		if best == 0 {
			break
		}
		for layer := 1; layer < l.Layers; layer++ {
			l.sortLayer(layer, func(v *lvertex) []int { return v.left })
		}
		for layer := l.Layers - 2; layer >= 0; layer-- {
			l.sortLayer(layer, func(v *lvertex) []int { return v.right })
		}
		l.transpose()
		if c := l.crossings(); c < best {
			best, bestOrder = c, l.copyOrder()
		}
	}
	l.order = bestOrder
	for _, vs := range l.order {
		for pos, v := range vs {
			l.verts[v].pos = pos
		}
	}
}

// sortLayer orders a layer by the mean position of each vertex's
// neighbours; a vertex without any keeps its position.
func (l *Layout) sortLayer(layer int, neighbours func(*lvertex) []int) {
	vs := l.order[layer]
	if len(l.key) < len(l.verts) {
		l.key = make([]float64, len(l.verts))
	}
	key := l.key
	for _, v := range vs {
		ns := neighbours(&l.verts[v])
		if len(ns) == 0 {
			key[v] = float64(l.verts[v].pos)
			continue
		}
		sum := 0.0
		for _, u := range ns {
			sum += float64(l.verts[u].pos)
		}
		// On the scale of this layer's positions, so that vertices
		// without neighbours stay among the others.
		key[v] = sum / float64(len(ns)) * float64(len(vs)) / float64(max(1, len(l.order[l.verts[ns[0]].layer])))
	}
	slices.SortStableFunc(vs, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	for pos, v := range vs {
		l.verts[v].pos = pos
	}
}

// transpose swaps two neighbours of a layer whenever that crosses fewer
// edges (to both neighbouring layers), until no swap helps (at most a few
// passes): it finds what the barycenter misses, such as two vertices
// with the same mean.
func (l *Layout) transpose() {
	for range 4 {
		better := false
		for _, vs := range l.order {
			for i := 0; i+1 < len(vs); i++ {
				u, v := vs[i], vs[i+1]
				if l.pairCrossings(v, u) < l.pairCrossings(u, v) {
					vs[i], vs[i+1] = v, u
					l.verts[u].pos, l.verts[v].pos = i+1, i
					better = true
				}
			}
		}
		if !better {
			return
		}
	}
}

// pairCrossings counts the crossings between the edges of u and those of
// v when u is just above v.
func (l *Layout) pairCrossings(u, v int) int {
	n := 0
	for _, side := range [2]func(*lvertex) []int{func(x *lvertex) []int { return x.left }, func(x *lvertex) []int { return x.right }} {
		for _, a := range side(&l.verts[u]) {
			for _, b := range side(&l.verts[v]) {
				if l.verts[a].pos > l.verts[b].pos {
					n++
				}
			}
		}
	}
	return n
}

func (l *Layout) copyOrder() [][]int {
	out := make([][]int, len(l.order))
	for i, vs := range l.order {
		out[i] = slices.Clone(vs)
	}
	return out
}

// crossings counts the pairs of edges that cross between neighbouring
// layers: for each pair of layers, the inversions of the edges' right
// ends once they are sorted by their left ends (a Fenwick tree).
func (l *Layout) crossings() int {
	total := 0
	for layer := 0; layer+1 < l.Layers; layer++ {
		type edge struct{ a, b int }
		var es []edge
		for _, v := range l.order[layer] {
			for _, u := range l.verts[v].right {
				es = append(es, edge{l.verts[v].pos, l.verts[u].pos})
			}
		}
		slices.SortFunc(es, func(x, y edge) int {
			if c := cmp.Compare(x.a, y.a); c != 0 {
				return c
			}
			return cmp.Compare(x.b, y.b)
		})
		size := len(l.order[layer+1])
		tree := make([]int, size+1)
		seen := 0
		for _, e := range es {
			// Edges already counted whose right end is below this one's.
			le := 0
			for i := e.b + 1; i > 0; i -= i & -i {
				le += tree[i]
			}
			total += seen - le
			for i := e.b + 1; i <= size; i += i & -i {
				tree[i]++
			}
			seen++
		}
	}
	return total
}

// place sets the coordinates: layers side by side; within a layer each
// vertex (a task takes a box's height, a bend a lane's) goes as near the
// mean height of its neighbours as the layer's order and spacing allow
// (each layer in turn, a few rounds: coordinate descent on the squared
// vertical lengths of the edges, so edges run as flat as they can). Then
// the grid of the tasks joined to none (not joined), below.
func (l *Layout) place(joined []bool) {
	for _, vs := range l.order {
		y := 0.0
		for _, v := range vs {
			l.verts[v].y = y + l.height(v)/2
			y += l.height(v)
		}
	}
	for range placeRounds {
		for layer := range l.order {
			l.align(layer)
		}
		for layer := len(l.order) - 1; layer >= 0; layer-- {
			l.align(layer)
		}
	}
	top, bottom := 0.0, 0.0
	layers := 0 // those holding a joined task
	for v := range l.verts {
		if v < len(joined) && !joined[v] {
			continue
		}
		top = min(top, l.verts[v].y-l.height(v)/2)
		bottom = max(bottom, l.verts[v].y+l.height(v)/2)
		layers = max(layers, l.verts[v].layer+1)
	}
	for v := range l.verts {
		l.verts[v].y += margin - top
	}
	for i := range l.Boxes {
		if joined[i] {
			l.Boxes[i] = Point{margin + float64(l.verts[i].layer)*(boxW+colGap), l.verts[i].y - boxH/2}
		}
	}
	l.Width, l.Height = 2*margin, 2*margin
	if layers > 0 {
		l.Width += float64(layers)*(boxW+colGap) - colGap
		l.Height += bottom - top - rowGap
	}
	if len(l.grid) == 0 {
		return
	}
	// The grid: cells of a box and its gaps, about gridAspect times as
	// wide as high, and no narrower than the layers above.
	cellW, cellH := boxW+colGap, boxH+rowGap
	k := len(l.grid)
	cols := int(math.Ceil(math.Sqrt(float64(k) * cellH * gridAspect / cellW)))
	cols = min(k, max(cols, layers, 1))
	rows := (k + cols - 1) / cols
	y0 := margin
	if layers > 0 {
		y0 = l.Height - margin + colGap // below the layers, a layer's gap apart
	}
	for j, i := range l.grid {
		l.Boxes[i] = Point{margin + float64(j%cols)*cellW, y0 + float64(j/cols)*cellH}
	}
	l.Width = max(l.Width, 2*margin+float64(cols)*cellW-colGap)
	l.Height = y0 + float64(rows)*cellH - rowGap + margin
}

// gridAspect is the width over the height the grid of unjoined tasks is
// laid out for: a screen's (16:10), so that the page can open on all of a
// flat graph of dozens of tasks at a readable size.
const gridAspect = 1.6

// placeRounds is how many times place aligns every layer both ways.
const placeRounds = 20

// height is the room vertex v takes in its layer, gap included.
func (l *Layout) height(v int) float64 {
	if v < len(l.Boxes) {
		return boxH + rowGap
	}
	return laneH
}

// align moves the vertices of a layer, keeping their order and spacing,
// to the heights closest (least squares) to the mean height of each one's
// neighbours: with the spacing taken out, that is an isotonic regression,
// solved by pooling adjacent violators.
func (l *Layout) align(layer int) {
	vs := l.order[layer]
	type pool struct {
		sum, weight float64
		count       int
	}
	pools := make([]pool, 0, len(vs))
	offset := 0.0
	offsets := make([]float64, len(vs))
	for i, v := range vs {
		if i > 0 {
			offset += (l.height(vs[i-1]) + l.height(v)) / 2
		}
		offsets[i] = offset
		want := l.verts[v].y
		if ns := len(l.verts[v].left) + len(l.verts[v].right); ns > 0 {
			sum := 0.0
			for _, u := range l.verts[v].left {
				sum += l.verts[u].y
			}
			for _, u := range l.verts[v].right {
				sum += l.verts[u].y
			}
			want = sum / float64(ns)
		}
		pools = append(pools, pool{sum: want - offset, weight: 1, count: 1})
		for len(pools) > 1 {
			a, b := pools[len(pools)-2], pools[len(pools)-1]
			if a.sum/a.weight <= b.sum/b.weight {
				break
			}
			pools = pools[:len(pools)-2]
			pools = append(pools, pool{a.sum + b.sum, a.weight + b.weight, a.count + b.count})
		}
	}
	i := 0
	for _, p := range pools {
		for range p.count {
			l.verts[vs[i]].y = p.sum/p.weight + offsets[i]
			i++
		}
	}
}
