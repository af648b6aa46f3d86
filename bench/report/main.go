// Command report turns the raw measurements that bench/run.sh leaves in one
// folder into the single Markdown table of the benchmark: for each command and
// workspace size, the median wall time over every run of every round, the peak
// RSS, and both as a ratio to `vx run` at the same size.
//
// Usage:
//
//	report [-vx label] [-floor label] dir
//
// It reads, in dir:
//   - time-<N>-<round>.json: hyperfine's --export-json output, one file per
//     round; each result's "command" is the label shown in the table;
//   - time-<N>-<round>.tsv: the same without hyperfine, one "label<TAB>seconds"
//     line per run;
//   - rss-<N>.tsv: one "label<TAB>kilobytes" line per run of GNU time's %M.
//
// Rows come by N, vx first, then in the order of the first round. -vx and
// -floor name the rows of vx and of the Go floor (the ratios' references).
// Nothing is asserted: the goals of the benchmark are printed with the
// measured figures beside them.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type series struct {
	label string
	n     int
	times []float64 // seconds
	rss   []float64 // kilobytes
}

type table struct {
	rows                []*series
	byID                map[string]*series
	vxLabel, floorLabel string
	// The start-up rows the goals compare (N=1): vx --version and a Go
	// hello world; "" when not measured.
	versionLabel, helloLabel string
}

func (t *table) get(n int, label string) *series {
	id := strconv.Itoa(n) + "\x00" + label
	s, ok := t.byID[id]
	if !ok {
		s = &series{label: label, n: n}
		t.byID[id] = s
		t.rows = append(t.rows, s)
	}
	return s
}

func main() {
	vxLabel := flag.String("vx", "vx run noop --concurrency 2", "the label of vx's rows")
	floorLabel := flag.String("floor", "floor -c 2 (Go floor)", "the label of the Go floor's rows")
	versionLabel := flag.String("version", "vx --version", "the label of vx --version's row")
	helloLabel := flag.String("hello", "Go hello world", "the label of the Go hello world's row")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: report [-vx label] [-floor label] [-version label] [-hello label] dir")
		os.Exit(2)
	}
	t, err := load(flag.Arg(0), *vxLabel, *floorLabel)
	if err != nil {
		fmt.Fprintf(os.Stderr, "report: %v\n", err)
		os.Exit(1)
	}
	t.versionLabel, t.helloLabel = *versionLabel, *helloLabel
	write(os.Stdout, t)
}

// load reads every measurement file in dir, rounds in order so that the first
// round fixes the order of the rows.
func load(dir, vxLabel, floorLabel string) (*table, error) {
	t := &table{byID: map[string]*series{}, vxLabel: vxLabel, floorLabel: floorLabel}
	names, err := filepath.Glob(filepath.Join(dir, "time-*"))
	if err != nil {
		return nil, err
	}
	type timeFile struct {
		path     string
		n, round int
		isJSON   bool
	}
	var files []timeFile
	for _, p := range names {
		base := filepath.Base(p)
		ext := filepath.Ext(base)
		if ext != ".json" && ext != ".tsv" {
			continue
		}
		var n, round int
		if _, err := fmt.Sscanf(strings.TrimSuffix(base, ext), "time-%d-%d", &n, &round); err != nil {
			return nil, fmt.Errorf("%q: name is not time-<N>-<round>%s", p, ext)
		}
		files = append(files, timeFile{p, n, round, ext == ".json"})
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].n != files[j].n {
			return files[i].n < files[j].n
		}
		return files[i].round < files[j].round
	})
	for _, f := range files {
		if f.isJSON {
			err = readHyperfine(t, f.path, f.n)
		} else {
			err = readTSV(f.path, func(label string, v float64) { s := t.get(f.n, label); s.times = append(s.times, v) })
		}
		if err != nil {
			return nil, err
		}
	}
	rssFiles, err := filepath.Glob(filepath.Join(dir, "rss-*.tsv"))
	if err != nil {
		return nil, err
	}
	for _, p := range rssFiles {
		var n int
		if _, err := fmt.Sscanf(filepath.Base(p), "rss-%d.tsv", &n); err != nil {
			return nil, fmt.Errorf("%q: name is not rss-<N>.tsv", p)
		}
		err := readTSV(p, func(label string, v float64) {
			if s, ok := t.byID[strconv.Itoa(n)+"\x00"+label]; ok {
				s.rss = append(s.rss, v)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// By N, vx first, otherwise as first seen.
	sort.SliceStable(t.rows, func(i, j int) bool {
		a, b := t.rows[i], t.rows[j]
		if a.n != b.n {
			return a.n < b.n
		}
		return a.label == t.vxLabel && b.label != t.vxLabel
	})
	return t, nil
}

func readHyperfine(t *table, path string, n int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Results []struct {
			Command   string    `json:"command"`
			Times     []float64 `json:"times"`
			ExitCodes []*int    `json:"exit_codes"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%q: %w", path, err)
	}
	for _, r := range doc.Results {
		s := t.get(n, r.Command)
		for i, v := range r.Times {
			if i < len(r.ExitCodes) && (r.ExitCodes[i] == nil || *r.ExitCodes[i] != 0) {
				continue // a failed run is no measurement
			}
			s.times = append(s.times, v)
		}
	}
	return nil
}

func readTSV(path string, add func(label string, v float64)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		label, num, ok := strings.Cut(text, "\t")
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if !ok || err != nil {
			return fmt.Errorf("%q: line %d: want \"label<TAB>number\", got %q", path, line, text)
		}
		add(label, v)
	}
	return sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

func write(w io.Writer, t *table) {
	vx := map[int]*series{}
	floor := map[int]*series{}
	for _, s := range t.rows {
		switch s.label {
		case t.vxLabel:
			vx[s.n] = s
		case t.floorLabel:
			floor[s.n] = s
		}
	}
	fmt.Fprintln(w, "| command | N | runs | median wall | peak RSS | wall ÷ vx | RSS ÷ vx |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, s := range t.rows {
		wall, rss := median(s.times), peak(s.rss)
		fmt.Fprintf(w, "| `%s` | %d | %d | %s | %s | %s | %s |\n", s.label, s.n, len(s.times),
			dur(wall, len(s.times)), mem(rss), ratio(wall, vxWall(vx[s.n])), ratio(rss, vxRSS(vx[s.n])))
	}
	fmt.Fprintln(w)
	goals(w, vx, floor, t)
}

// goals prints the goals beside the measured figures; it judges nothing.
func goals(w io.Writer, vx, floor map[int]*series, t *table) {
	fmt.Fprintln(w, "Goals (measured, not asserted):")
	if len(vx) == 0 {
		fmt.Fprintln(w, "- vx was not measured")
		return
	}
	versus := func(n int, goal string) string {
		var parts []string
		for _, s := range t.rows {
			if s.n == n && strings.HasPrefix(s.label, "bun ") {
				parts = append(parts, fmt.Sprintf("vx ÷ `%s` = %s (goal %s)", s.label, ratio(vxWall(vx[n]), median(s.times)), goal))
			}
		}
		if len(parts) == 0 {
			return ""
		}
		return "; " + strings.Join(parts, "; ")
	}
	if v, h := t.byID["1\x00"+t.versionLabel], t.byID["1\x00"+t.helloLabel]; v != nil && h != nil {
		fmt.Fprintf(w, "- start: `%s` ÷ `%s` = %s (goal ≤ 1.80)\n", v.label, h.label, ratio(median(v.times), median(h.times)))
	}
	if v, f := vx[1], floor[1]; v != nil && f != nil {
		fmt.Fprintf(w, "- 1 task: vx ÷ floor = %s (goal ≤ 1.25)%s\n", ratio(vxWall(v), median(f.times)), versus(1, "≤ 1.00"))
	}
	if v, f := vx[100], floor[100]; v != nil && f != nil {
		fmt.Fprintf(w, "- 100 tasks: vx ÷ floor = %s (goal ≤ 1.15)%s\n", ratio(vxWall(v), median(f.times)), versus(100, "< 1.00"))
	}
	if v := vx[1000]; v != nil {
		fmt.Fprintf(w, "- 1,000 tasks: vx peak RSS = %s (goal < 30 MB = 28.6 MiB)", mem(peak(v.rss)))
		if f := floor[1000]; f != nil {
			fmt.Fprintf(w, "; vx ÷ floor = %s", ratio(vxWall(v), median(f.times)))
		}
		fmt.Fprintln(w)
	}
	var per []string
	for _, n := range []int{1, 10, 100, 1000} {
		if v := vx[n]; v != nil && len(v.times) > 0 {
			per = append(per, fmt.Sprintf("N=%d %.2f ms", n, 1000*vxWall(v)/float64(n)))
		}
	}
	if len(per) > 0 {
		fmt.Fprintf(w, "- vx wall time per task (linear in N when flat): %s\n", strings.Join(per, ", "))
	}
}

func vxWall(s *series) float64 {
	if s == nil {
		return 0
	}
	return median(s.times)
}

func vxRSS(s *series) float64 {
	if s == nil {
		return 0
	}
	return peak(s.rss)
}

func peak(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Max(v)
}

func dur(sec float64, runs int) string {
	switch {
	case runs == 0:
		return "—"
	case sec >= 1:
		return fmt.Sprintf("%.2f s", sec)
	default:
		return fmt.Sprintf("%.1f ms", sec*1000)
	}
}

func mem(kb float64) string {
	if kb == 0 {
		return "—"
	}
	return fmt.Sprintf("%.1f MiB", kb/1024)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", a/b)
}
