package guard

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vxrun/vx/internal/quote"
)

// NestedError is returned by [Check] when vx run is started inside a task of
// the same workspace. cmd/vx exits with status 2 for it.
type NestedError struct {
	Workspace string // the workspace root, absolute
	Task      string // the outer task's id ("web#build"), "" when unknown
}

// Error is one line naming the outer task and the workspace and pointing to
// dependsOn.
func (e *NestedError) Error() string {
	task := "a task"
	if e.Task != "" {
		task = fmt.Sprintf("task %q", e.Task)
	}
	return fmt.Sprintf("refusing to run inside %s of the same workspace %s; "+
		"a script that calls vx run on its own workspace would recurse: "+
		`declare the task in "dependsOn" in vx.json instead`, task, quote.Q(e.Workspace))
}

// Check reports whether this vx run is nested inside a task of the same
// workspace. root is the workspace root vx resolved; outerWorkspace is the
// value of VX_RUN_WORKSPACE in vx's environment ("" when unset) and outerTask
// that of VX_RUN_TASK.
//
// It returns nil or a [*NestedError]. The two directories are compared as
// files (os.Stat then os.SameFile), so a symlink, a different spelling of the
// path or, on Windows, a different case still names the same workspace. A
// relative value is taken relative to the current directory (filepath.Abs).
// When either directory cannot be read (for example a stale
// VX_RUN_WORKSPACE naming a directory that no longer exists), the cleaned
// absolute paths are compared as text instead, so a stale value does not
// block, while an identical one still does.
func Check(root, outerWorkspace, outerTask string) error {
	if outerWorkspace == "" {
		return nil
	}
	absRoot := absPath(root)
	absOuter := absPath(outerWorkspace)
	ri, rerr := os.Stat(absRoot)
	oi, oerr := os.Stat(absOuter)
	var same bool
	if rerr == nil && oerr == nil {
		same = os.SameFile(ri, oi)
	} else {
		same = samePathText(absRoot, absOuter)
	}
	if !same {
		return nil
	}
	return &NestedError{Workspace: absRoot, Task: outerTask}
}

// absPath returns the cleaned absolute form of p, or p cleaned when the
// current directory is unknown.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
