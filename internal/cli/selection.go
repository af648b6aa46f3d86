package cli

import "github.com/vxrun/vx/internal/run"

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
