package run

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/guard"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

// TaskEnv returns the exact environment of n's child process: the isolated
// env built from parent (the environment vx was started with) and n's
// declarations, with the project's bin paths in front of PATH, then the
// variables vx sets on every task. `vx run` and `vx env` both call it, and
// the task cache keys n on the same environment (taskEnviron).
func TaskEnv(ws *workspace.Workspace, n *Node, parent []string, goos string) []string {
	env, _, _ := taskEnviron(ws, n, parent, goos)
	return env
}

func envOptions(ws *workspace.Workspace, n *Node, parent []string, goos string) exec.EnvOptions {
	return exec.EnvOptions{
		Source:      parent,
		PassThrough: taskPassThrough(n, parent, goos),
		Define:      n.Config.Define,
		BinPaths:    ws.BinPaths(n.Project),
		GOOS:        goos,
	}
}

// taskChain is VX_RUN_CHAIN for a task of the workspace at root: the chain
// vx was started inside (see [guard.ParseChain]), then root.
func taskChain(root string, parent []string, goos string) string {
	sep := listSeparator(goos)
	outer, _ := exec.LookupEnv(parent, exec.ChainEnv, goos)
	outerWS, _ := exec.LookupEnv(parent, exec.WorkspaceEnv, goos)
	chain := guard.ParseChain(outer, outerWS, sep)
	if len(chain) == 0 || chain[len(chain)-1] != root {
		chain = append(chain, root)
	}
	return strings.Join(chain, sep)
}

// listSeparator is the PATH list separator of goos.
func listSeparator(goos string) string {
	if goos == "windows" || goos == "" && runtime.GOOS == "windows" {
		return ";"
	}
	return ":"
}

// taskPassThrough expands n's passThrough names against parent, less
// vx's own remote-cache settings (VX_REMOTE_*: the cache's URL, its auth
// header, its signing key): they configure vx and never reach a task, even
// when a pattern such as "VX_*" matches them.
func taskPassThrough(n *Node, parent []string, goos string) []string {
	names := exec.ExpandPassThrough(n.Config.PassThrough, parent, goos)
	out := names[:0:0]
	for _, name := range names {
		if !strings.HasPrefix(exec.EnvNameKey(name, goos), exec.EnvNameKey("VX_REMOTE_", goos)) {
			out = append(out, name)
		}
	}
	return out
}

// CheckBinPaths returns an error when a node_modules/.bin directory that
// would go on the PATH of one of nodes' tasks cannot be one PATH entry
// under goos's rules ([exec.CheckBinPath]): a workspace at /home/me/co:lon
// would give its tasks the relative entry lon/node_modules/.bin. vx refuses
// to run (or show the env of) such a task rather than leave the entry out
// silently.
func CheckBinPaths(ws *workspace.Workspace, nodes []*Node, goos string) error {
	seen := map[*workspace.Project]bool{}
	for _, n := range nodes {
		if seen[n.Project] {
			continue
		}
		seen[n.Project] = true
		for _, dir := range ws.BinPaths(n.Project) {
			if err := exec.CheckBinPath(dir, goos); err != nil {
				return fmt.Errorf("%w (task %s)", err, quote.Name(n.ID))
			}
		}
	}
	return nil
}

// packageName is npm_package_name: the package.json "name", "" (unset)
// when the package has none, as npm leaves it unset; never the directory
// that stands in for the name in task ids.
func packageName(p *workspace.Project) string {
	if p.Unnamed {
		return ""
	}
	return p.Name
}
