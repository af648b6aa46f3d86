package cli

import (
	"fmt"
	"strings"

	"github.com/vxrun/vx/internal/run"
)

// selectFlags choose the tasks of a plan, in vx run and vx graph alike.
var selectFlags = []flagSpec{
	{name: "filter", kind: listFlag, arg: "<selector>", usage: "select projects as pnpm does: name, glob, ./dir, {dir}, name..., ...name, ^, !sel, [git-ref] (repeatable)"},
	{name: "affected", kind: boolFlag, usage: "only the projects with files changed since the base (git), and their dependents"},
	{name: "base", kind: stringFlag, arg: "<ref>", usage: "what --affected compares with (default: $VX_BASE, else origin/HEAD, main, master)"},
}

// affectedBase returns the git ref --affected compares with: --base, else
// VX_BASE; --base without --affected, or empty, is a usage error.
func affectedBase(p *Process, a *parsed) (string, error) {
	base := a.str("base")
	if a.set["base"] && !a.set["affected"] {
		return "", usagef("--base names what --affected compares with; add --affected")
	}
	if a.set["base"] && base == "" {
		return "", usagef("--base needs a git ref, e.g. --base origin/main")
	}
	if base == "" {
		base = run.EnvBase(p.Environ, p.GOOS)
	}
	return base, nil
}

// selection is what the command line's tasks and selection flags ask for.
func selection(p *Process, a *parsed, base string) run.Selection {
	return run.Selection{Tasks: a.pos, Filters: a.vals["filter"], Dir: p.Dir, Affected: a.set["affected"], Base: base,
		Git: run.NewGit(p.Environ), GOOS: p.GOOS}
}

// notePlan says on stderr what --affected compared with, and, when the
// plan is empty, why: "<empty>: no affected project has build".
func notePlan(p *Process, g *run.Graph, tasks []string, empty string) {
	if g.Base != "" {
		fmt.Fprintf(p.Stderr, "vx: --affected: compared with %s\n", g.Base)
	}
	if len(g.Nodes) == 0 {
		which := "selected"
		if g.Base != "" {
			which = "affected"
		}
		fmt.Fprintf(p.Stderr, "vx: %s: no %s project has %s\n", empty, which, strings.Join(tasks, " or "))
	}
}
