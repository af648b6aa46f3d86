package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/internal/quote"
)

// NestedError is returned by [Check] and [CheckChain] when vx run is
// started inside a task of the same workspace, directly or further up a
// chain of nested runs. cmd/vx exits with status 2 for it.
type NestedError struct {
	Workspace string // the workspace root, absolute
	Task      string // the outer task's id ("web#build"), "" when unknown
	// Chain is the chain of workspaces the run was started inside,
	// outermost first; nil when only the direct parent is known.
	Chain []string
	// At is the index in Chain of the workspace that is Workspace.
	At int
	// ConfigFile is the name of the workspace's configuration file
	// ("vx.config.ts", "vx.json"), where the message says to declare the
	// dependency; "" means vx.json.
	ConfigFile string
}

// Error is one line naming the outer task and the workspace (and the chain,
// when the workspace is further up it) and pointing to dependsOn.
func (e *NestedError) Error() string {
	file := e.ConfigFile
	if file == "" {
		file = "vx.json"
	}
	task := "a task"
	if e.Task != "" {
		task = fmt.Sprintf("task %q", e.Task)
	}
	if len(e.Chain) > 0 && e.At < len(e.Chain)-1 {
		shown := make([]string, 0, len(e.Chain)+1)
		for _, w := range e.Chain {
			shown = append(shown, quote.Q(w))
		}
		shown = append(shown, quote.Q(e.Workspace))
		return fmt.Sprintf("refusing to run inside %s: the workspace %s is already running further up this chain of nested vx runs: %s; "+
			"workspaces whose scripts call vx run on each other would recurse: "+
			`declare the dependency in "dependsOn" in %s instead`, task, quote.Q(e.Workspace), strings.Join(shown, " -> "), file)
	}
	return fmt.Sprintf("refusing to run inside %s of the same workspace %s; "+
		"a script that calls vx run on its own workspace would recurse: "+
		`declare the task in "dependsOn" in %s instead`, task, quote.Q(e.Workspace), file)
}

// Check reports whether this vx run is nested inside a task of the same
// workspace. root is the workspace root vx resolved; outerWorkspace is the
// value of VX_RUN_WORKSPACE in vx's environment ("" when unset) and outerTask
// that of VX_RUN_TASK. It is [CheckChain] with a chain of one.
func Check(root, outerWorkspace, outerTask string) error {
	if outerWorkspace == "" {
		return nil
	}
	err := CheckChain(root, []string{outerWorkspace}, outerTask)
	if ne, ok := err.(*NestedError); ok {
		ne.Chain = nil
	}
	return err
}

// CheckChain reports whether root, the workspace root this vx run
// resolved, is one of the workspaces in chain: those whose tasks this run
// was started inside, outermost first (VX_RUN_CHAIN, see
// [ParseChain]). outerTask is the id of the task that started the run
// (VX_RUN_TASK). A chain catches what the direct parent alone cannot: A's
// build runs vx run in B, whose build runs vx run in A again.
//
// It returns nil or a [*NestedError]. The directories are compared as
// files (os.Stat then os.SameFile), so a symlink, a different spelling of
// the path or, on Windows, a different case still names the same
// workspace. A relative entry is taken relative to the current directory
// (filepath.Abs). When either directory cannot be read (for example a
// stale entry naming a directory that no longer exists), the cleaned
// absolute paths are compared as text instead, so a stale entry does not
// block, while an identical one still does. A workspace nested inside a
// running one (a repository whose examples/basic is its own workspace) is
// another directory, so it runs.
func CheckChain(root string, chain []string, outerTask string) error {
	absRoot := absPath(root)
	ri, rerr := os.Stat(absRoot)
	for i, w := range chain {
		if w == "" {
			continue
		}
		absOuter := absPath(w)
		oi, oerr := os.Stat(absOuter)
		var same bool
		if rerr == nil && oerr == nil {
			same = os.SameFile(ri, oi)
		} else {
			same = samePathText(absRoot, absOuter)
		}
		if same {
			return &NestedError{Workspace: absRoot, Task: outerTask, Chain: chain, At: i}
		}
	}
	return nil
}

// ParseChain returns the chain of workspaces a vx started inside a task
// runs inside, outermost first, from the values of VX_RUN_CHAIN and
// VX_RUN_WORKSPACE in its environment: the chain's entries, split at sep
// (the PATH list separator: vx refuses a workspace whose path holds it),
// then the workspace, when the chain does not already end with it (a task
// started by an older vx, or a hand-set VX_RUN_WORKSPACE). Empty entries
// are dropped.
func ParseChain(chain, workspace, sep string) []string {
	var out []string
	for _, w := range strings.Split(chain, sep) {
		if w != "" {
			out = append(out, w)
		}
	}
	if workspace != "" && (len(out) == 0 || out[len(out)-1] != workspace) {
		out = append(out, workspace)
	}
	return out
}

// absPath returns the cleaned absolute form of p, or p cleaned when the
// current directory is unknown.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
