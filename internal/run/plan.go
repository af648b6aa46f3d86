package run

import (
	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/guard"
	"github.com/vxrun/vx/workspace"
)

// A Step is what `vx run` would start for one task of a graph: the
// environment and the program with its arguments, found in the task's own
// PATH. `vx run --dry-run` prints the steps instead of running them. The
// arguments after -- are shown hidden ([HideArgs]), in Args and in Argv.
type Step struct {
	Node *Node
	Args []string // appended to the script: the arguments after --, hidden, target tasks only; never nil
	Env  []string // the child's environment, as [TaskEnv] builds it
	Argv []string // what is started, with the arguments hidden: the shell and its arguments; nil when Err is set
	Err  error    // why the task could not start (its shell is not in its PATH)
}

// Steps returns the steps of g's tasks in g's order, for a run started with
// environ on goos with args after --, shown as tc hides them. The
// environments are those tc made for the keys when tc is this run's.
func Steps(ws *workspace.Workspace, g *Graph, environ []string, goos string, args []string, tc *TaskCache) []Step {
	steps := make([]Step, 0, len(g.Nodes))
	shells := &exec.ShellCache{}
	shown := HideArgs(tc, args)
	for _, n := range g.Nodes {
		s := Step{Node: n, Args: []string{}, Env: tc.taskEnv(ws, n, environ, goos)}
		if n.Target {
			s.Args = append(s.Args, shown...)
		}
		_, s.Argv, s.Err = exec.Resolve(exec.Spec{Script: n.Script, Args: s.Args, Dir: n.Project.Dir, Env: s.Env, Shells: shells})
		steps = append(steps, s)
	}
	return steps
}

// HideArgs returns the arguments after -- as vx shows them (the dry run,
// --summary) and as the cache's key holds them: each hashed with the
// secret of the variables' values ([cache.Cache.HideArg]), or, without a
// cache, "(hidden)": never in plain text (a --password=...).
func HideArgs(tc *TaskCache, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if tc != nil && tc.C != nil {
			out[i] = tc.C.HideArg(a)
		} else {
			out[i] = "(hidden)"
		}
	}
	return out
}

// Nested returns a [*guard.NestedError] when environ shows that this run was
// started inside a task of ws itself, directly or further up a chain of
// nested runs (VX_RUN_CHAIN and VX_RUN_WORKSPACE name ws's root; see
// [guard.CheckChain]), else nil. `vx run` refuses to start then. The
// error names cfg's file as where to declare the dependency instead.
func Nested(ws *workspace.Workspace, cfg *config.Config, environ []string, goos string) error {
	chain, _ := exec.LookupEnv(environ, exec.ChainEnv, goos)
	outerWS, _ := exec.LookupEnv(environ, exec.WorkspaceEnv, goos)
	outerTask, _ := exec.LookupEnv(environ, exec.TaskEnv, goos)
	err := guard.CheckChain(ws.Root, guard.ParseChain(chain, outerWS, listSeparator(goos)), outerTask)
	if ne, ok := err.(*guard.NestedError); ok {
		ne.ConfigFile = cfg.FileName()
	}
	return err
}
