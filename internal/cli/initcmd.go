package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/jsconfig"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

var initCmd = &command{
	name:    "init",
	summary: "write vx.config.ts from the workspace's turbo.json, saying what it could not carry over",
	usage:   "vx init",
	run:     runInit,
}

// runInit writes the root's vx.config.ts from its turbo.json (and the
// projects' own turbo.json files). It never replaces a config: a root
// with vx.json or a vx.config.* is refused.
func runInit(p *Process, a *parsed) (int, error) {
	if len(a.pos) > 0 || len(a.after) > 0 {
		return ExitUsage, usagef("vx init takes no arguments")
	}
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return ExitUsage, err
	}
	for _, name := range append([]string{config.FileName}, jsconfig.FileNames...) {
		if _, err := os.Lstat(filepath.Join(ws.Root, name)); err == nil {
			return ExitUsage, fmt.Errorf("init: the workspace already has %s: vx init writes vx.config.ts only where there is no config (vx config shows what it holds)", name)
		}
	}
	var projects []jsconfig.Project
	for _, pr := range ws.Projects {
		if !pr.IsRoot {
			projects = append(projects, jsconfig.Project{Name: pr.Name, Dir: pr.Dir})
		}
	}
	tr, _, err := jsconfig.LoadTurbo(jsconfig.Options{Root: ws.Root, Projects: projects})
	if err != nil {
		return ExitUsage, err
	}
	if tr == nil {
		return ExitUsage, errors.New("init: there is no turbo.json at the workspace root to start from; write vx.config.ts by hand (docs/config.md)")
	}
	rel := func(path string) string {
		if r, err := filepath.Rel(ws.Root, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return path
	}
	src := tr.ConfigTS(rel)
	target := filepath.Join(ws.Root, jsconfig.FileNames[0])
	// O_EXCL: never replace a file, nor follow a link, that appeared meanwhile.
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return ExitUsage, fmt.Errorf("init: the workspace already has %s", jsconfig.FileNames[0])
	}
	if err != nil {
		return 1, fmt.Errorf("init: %w", err)
	}
	_, werr := f.Write(src)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(target)
		return 1, fmt.Errorf("init: writing %s: %w", jsconfig.FileNames[0], werr)
	}
	for _, pf := range projectFrameworks(ws) {
		tr.Warnings = append(tr.Warnings, fmt.Sprintf("%s: %s uses %s: turbo adds %s to its tasks' env (framework inference), vx.config.ts does not: add them to the tasks that read them",
			filepath.Base(tr.Path), quote.Name(pf.proj.Name), pf.f.Name, strings.Join(pf.f.Env, ", ")))
	}
	if tr.Remote != nil {
		tr.Warnings = append(tr.Warnings, filepath.Base(tr.Path)+`: "remoteCache" is not carried over: vx.config.ts takes remoteCache.url and .instance; turbo's variables (TURBO_API, TURBO_TEAM, TURBO_TOKEN, TURBO_REMOTE_CACHE_SIGNATURE_KEY) still apply`)
	}
	for _, w := range tr.Warnings {
		fmt.Fprintf(p.Stderr, "vx: %s\n", w)
	}
	tasks := "tasks"
	if len(tr.Keys) == 1 {
		tasks = "task"
	}
	carried := "everything was carried over"
	if len(tr.Warnings) > 0 {
		carried = "the lines above say what was not carried over as it is"
	}
	fmt.Fprintf(p.Stderr, "vx: wrote vx.config.ts from %s (%d %s); %s. vx now reads vx.config.ts, not turbo.json (vx config shows it evaluated)\n",
		rel(tr.Path), len(tr.Keys), tasks, carried)
	return ExitOK, nil
}
