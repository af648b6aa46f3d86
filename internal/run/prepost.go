package run

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

// prePost returns the scripts that the workspace's package manager runs
// before and after proj's script task (pre<task> and post<task>), "" for
// none: npm, yarn 1 and bun run them; yarn 2 and later do not; pnpm before
// 6 and from 9 does, from 6 to 8 does not, and its enable-pre-post-scripts
// setting overrides both (see [workspace.PackageManager.RunsPrePost]).
// Like pnpm, vx leaves out a pre or post script that the script itself
// names (a "build" of "npm run prebuild && tsc" would run it twice), and an
// empty one.
func prePost(ws *workspace.Workspace, proj *workspace.Project, task string) (pre, post string) {
	if !ws.PackageManager.RunsPrePost() {
		return "", ""
	}
	main := proj.Scripts[task]
	pick := func(name string) string {
		s := proj.Scripts[name]
		if strings.TrimSpace(s) == "" {
			return ""
		}
		if ws.PackageManager.Name == "pnpm" && strings.Contains(main, name) {
			return ""
		}
		return s
	}
	return pick("pre" + task), pick("post" + task)
}

// lifecycle returns env with npm_lifecycle_event and npm_lifecycle_script
// describing script event instead: what npm sets while a pre or post script
// runs. Every other variable is the task's own.
func lifecycle(env []string, event, script string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, "npm_lifecycle_event="):
			kv = "npm_lifecycle_event=" + event
		case strings.HasPrefix(kv, "npm_lifecycle_script="):
			kv = "npm_lifecycle_script=" + script
		}
		out = append(out, kv)
	}
	return out
}

// process is a started task: one script, or a pre/post chain.
type process interface {
	Kill() error
	Wait() (exec.Result, error)
	Argv() []string
}

// startScripts starts n's script with spec, or, when n has a pre or post
// script, the chain pre<task>, <task>, post<task>: one after the other in
// the same directory, with the same streams and environment (but for
// npm_lifecycle_event and npm_lifecycle_script, which name the script
// running), the arguments after -- going to the main script only, as npm
// does. The chain stops at the first script that fails, or once ctx is done
// (each script's tree is ended as [exec.Start] ends one).
func startScripts(ctx context.Context, n *Node, spec exec.Spec) (process, error) {
	if n.Pre == "" && n.Post == "" {
		return exec.Start(ctx, spec)
	}
	c := &chain{ctx: ctx}
	if n.Pre != "" {
		s := spec
		s.Script, s.Args, s.Env = n.Pre, nil, lifecycle(spec.Env, "pre"+n.Task, n.Pre)
		c.specs = append(c.specs, s)
	}
	c.main = len(c.specs)
	c.specs = append(c.specs, spec)
	if n.Post != "" {
		s := spec
		s.Script, s.Args, s.Env = n.Post, nil, lifecycle(spec.Env, "post"+n.Task, n.Post)
		c.specs = append(c.specs, s)
	}
	_, c.argv, _ = exec.Resolve(spec)
	p, err := exec.Start(ctx, c.specs[0])
	if err != nil {
		return nil, err
	}
	c.cur = p
	return c, nil
}

// chain runs the scripts of one task in turn.
type chain struct {
	ctx   context.Context
	specs []exec.Spec
	main  int      // index of the task's own script in specs
	argv  []string // the main script's argv

	trace *exec.Trace // what the scripts that ended did, when traced

	mu      sync.Mutex
	cur     *exec.Process
	next    int  // index of cur in specs
	stopped bool // a kill came: start nothing more
}

func (c *chain) Argv() []string { return c.argv }

func (c *chain) Kill() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	return c.cur.Kill()
}

// Wait waits for each script in turn and starts the next; it returns the
// result of the last one that ran.
func (c *chain) Wait() (exec.Result, error) {
	for {
		c.mu.Lock()
		p := c.cur
		c.mu.Unlock()
		res, err := p.Wait()
		if res.Trace != nil {
			if c.trace == nil {
				c.trace = &exec.Trace{}
			}
			c.trace.Merge(res.Trace)
			res.Trace = c.trace
		}
		c.mu.Lock()
		if err != nil || res.ExitCode != 0 || res.Signal != "" || c.next+1 == len(c.specs) {
			c.mu.Unlock()
			return res, err
		}
		if c.stopped || c.ctx.Err() != nil {
			// Stopped between two scripts: the task did not finish.
			c.mu.Unlock()
			return exec.Result{ExitCode: StopCode(c.ctx), Trace: c.trace}, nil
		}
		c.next++
		np, err := exec.Start(c.ctx, c.specs[c.next])
		if err != nil {
			c.mu.Unlock()
			if c.ctx.Err() != nil {
				// Stopped between two scripts: the task did not finish.
				return exec.Result{ExitCode: StopCode(c.ctx)}, nil
			}
			return exec.Result{ExitCode: 127}, err
		}
		c.cur = np
		c.mu.Unlock()
	}
}

// CheckPnP returns an error when ws is installed with Yarn Plug'n'Play
// (a .pnp.cjs at its root): its packages have no node_modules/.bin, so a
// script's "tsc" would not be found in the task's PATH. Yarn itself gives
// scripts a temporary directory of wrappers and NODE_OPTIONS=--require
// .pnp.cjs; vx does not imitate that, and says what to set instead.
func CheckPnP(ws *workspace.Workspace) error {
	if ws.PnP == "" {
		return nil
	}
	return fmt.Errorf("this workspace is installed with Yarn Plug'n'Play (%s), which vx does not support: its packages have no node_modules/.bin for scripts to find their tools; set nodeLinker: node-modules in .yarnrc.yml and run yarn install", quote.Name(ws.PnP))
}
