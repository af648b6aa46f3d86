package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
)

var whyCmd = &command{
	name:    "why",
	summary: "say whether a task would hit the cache, and what changed since its last entry",
	usage:   "vx why <project>#<task> | vx why <task>... [--filter <selector>]... [--json] [--cache-dir DIR] [-- <args>]",
	flags: []flagSpec{
		{name: "filter", kind: listFlag, arg: "<selector>", usage: "select projects as vx run does (repeatable)"},
		{name: "json", kind: boolFlag, usage: "print a JSON object {tasks: [...]} with every change"},
		{name: "cache-dir", kind: stringFlag, arg: "DIR", usage: "the cache's store (default: $VX_CACHE_DIR, else node_modules/.cache/vx at the workspace root, the main worktree's in a linked git worktree)"},
		frameworkFlag,
	},
	run: runWhy,
}

// Exit codes of vx why, besides ExitUsage: as diff's, 1 says that
// something differs.
const (
	whyAllHit = 0 // every task named would hit
	whyMiss   = 1 // at least one would miss, or is not cached
)

// whyFiles is how many file changes a task's text answer lists; --json
// lists them all.
const whyFiles = 10

func runWhy(p *Process, a *parsed) (int, error) {
	if len(a.pos) == 0 {
		return ExitUsage, usagef("name a task: vx why web#build, or vx why build [--filter web] as for vx run")
	}
	ws, cfg, err := load(p, a)
	if err != nil {
		return ExitUsage, err
	}
	g, err := run.Plan(ws, cfg, run.Selection{Tasks: a.pos, Filters: a.vals["filter"], Dir: p.Dir, GOOS: p.GOOS})
	if err != nil {
		return ExitUsage, err
	}
	if err := run.CheckBinPaths(ws, g.Nodes, p.GOOS); err != nil {
		return ExitUsage, err
	}
	if len(g.Nodes) == 0 {
		fmt.Fprintf(p.Stderr, "vx: nothing to explain: no selected project has %s\n", strings.Join(a.pos, " or "))
		if a.set["json"] {
			return whyAllHit, writeJSON(p.Stdout, struct {
				Tasks []*cache.Why `json:"tasks"`
			}{[]*cache.Why{}})
		}
		return whyAllHit, nil
	}
	tc, err := openCache(p, a, ws, cfg, g, false, nil)
	if err != nil {
		return ExitUsage, err
	}
	var targets []*run.Node
	for _, n := range g.Nodes {
		if n.Target {
			targets = append(targets, n)
		}
	}
	var whys []*cache.Why
	if tc != nil {
		whys = tc.Why(targets)
		tc.C.CloseReadOnly()
	} else {
		for _, n := range targets {
			whys = append(whys, &cache.Why{ID: n.ID, Cache: "off", Reason: run.NotCachedReason(n), Changes: []cache.Change{}})
		}
	}
	code := whyAllHit
	for _, w := range whys {
		if w.Cache != "hit" {
			code = whyMiss
		}
	}
	if a.set["json"] {
		return code, writeJSON(p.Stdout, struct {
			Tasks []*cache.Why `json:"tasks"`
		}{whys})
	}
	w := bufio.NewWriter(p.Stdout)
	for _, wy := range whys {
		printWhy(w, wy, "")
	}
	return code, w.Flush()
}

// printWhy writes one task's answer: a line with the verdict and the
// reason, then one line per change, a dependency's answer indented below
// it.
func printWhy(w io.Writer, wy *cache.Why, indent string) {
	id := quote.Name(wy.ID)
	switch {
	case wy.Cache == "off":
		fmt.Fprintf(w, "%s%s: %s\n", indent, id, wy.Reason)
		return
	case wy.Cache == "hit" && len(wy.Changes) == 0:
		fmt.Fprintf(w, "%s%s: would hit (key %s)\n", indent, id, shortKey(wy.Key))
		for _, p := range wy.TracedChanged {
			fmt.Fprintf(w, "%s  read last time but not in the key: %s (changed since)\n", indent, quote.Q(p))
		}
		return
	case wy.Cache == "hit":
		// A dependency whose key changed since its dependent's entry, and
		// whose new key is stored already.
		fmt.Fprintf(w, "%s%s: would hit; its key changed: %s\n", indent, id, wy.Reason)
	default:
		fmt.Fprintf(w, "%s%s: would miss: %s\n", indent, id, wy.Reason)
	}
	indent += "  "
	if pr := wy.Previous; pr != nil && len(wy.Changes) > 0 {
		fmt.Fprintf(w, "%skey %s; last entry %s%s\n", indent, shortKey(wy.Key), shortKey(pr.Key), previousWhen(pr))
	}
	files, shown := 0, 0
	pkgs, pkgsShown := 0, 0 // packages of a lockfile, capped as files are
	for _, c := range wy.Changes {
		if c.IsFile() {
			files++
		}
		if c.Kind == "package" {
			pkgs++
		}
	}
	for _, c := range wy.Changes {
		if c.IsFile() {
			if shown == whyFiles {
				continue
			}
			shown++
		}
		if c.Kind == "package" {
			if pkgsShown == whyFiles {
				continue
			}
			pkgsShown++
		}
		switch {
		case c.Kind == "command":
			fmt.Fprintf(w, "%s%s:\n", indent, c.Describe())
			for i := 0; i < max(len(c.Old), len(c.New)); i++ {
				if i < len(c.Old) && i < len(c.New) && c.Old[i] == c.New[i] {
					continue
				}
				if i < len(c.Old) {
					fmt.Fprintf(w, "%s  - %s\n", indent, quote.Name(c.Old[i]))
				}
				if i < len(c.New) {
					fmt.Fprintf(w, "%s  + %s\n", indent, quote.Name(c.New[i]))
				}
			}
		case c.Kind == "dependency" && c.Change == "modified" && c.Why != nil:
			fmt.Fprintf(w, "%s%s:\n", indent, c.Describe())
			printWhy(w, c.Why, indent+"  ")
		case c.Kind == "dependency" && c.Change == "modified":
			fmt.Fprintf(w, "%s%s (see above)\n", indent, c.Describe())
		default:
			fmt.Fprintf(w, "%s%s\n", indent, c.Describe())
		}
		if c.IsFile() && shown == whyFiles && files > whyFiles {
			fmt.Fprintf(w, "%s... and %d more files (vx why --json lists them all)\n", indent, files-whyFiles)
		}
		if c.Kind == "package" && pkgsShown == whyFiles && pkgs > whyFiles {
			fmt.Fprintf(w, "%s... and %d more packages (vx why --json lists them all)\n", indent, pkgs-whyFiles)
		}
	}
}

// shortKey is how the text answer shows a key: 16 hex digits, as
// --dry-run does.
func shortKey(k string) string {
	if len(k) > 16 {
		return k[:16]
	}
	return k
}

func previousWhen(pr *cache.Previous) string {
	var parts []string
	if pr.Time != nil {
		parts = append(parts, pr.Time.Local().Format(time.RFC3339))
	}
	if pr.VX != "" {
		parts = append(parts, "vx "+quote.Name(pr.VX))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
