package cli

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/jsconfig"
	"github.com/vxrun/vx/workspace"
)

// loadConfig reads the workspace's configuration: vx.json, or vx.config.ts
// (.mts, .js, .mjs) evaluated by node unless the memo in the store
// (node_modules/.cache/vx, or --cache-dir, VX_CACHE_DIR) still holds; and
// the projects' own vx.config.* files. fresh evaluates even so.
func loadConfig(p *Process, a *parsed, ws *workspace.Workspace, fresh bool) (*jsconfig.Result, error) {
	store, err := cacheDir(p, a, ws.Root)
	if err != nil {
		return nil, err
	}
	return loadConfigIn(p, ws, store, fresh)
}

// loadConfigIn is loadConfig with the store's directory.
func loadConfigIn(p *Process, ws *workspace.Workspace, store string, fresh bool) (*jsconfig.Result, error) {
	var projects []jsconfig.Project
	for _, pr := range ws.Projects {
		if !pr.IsRoot {
			projects = append(projects, jsconfig.Project{Name: pr.Name, Dir: pr.Dir})
		}
	}
	exe := p.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	return jsconfig.Load(jsconfig.Options{
		Root:     ws.Root,
		Projects: projects,
		Environ:  p.Environ,
		GOOS:     p.GOOS,
		Version:  Version,
		Exe:      exe,
		MemoFile: cache.CheckoutFile(store, ws.Root, jsconfig.MemoName),
		MemoTemp: func() (string, error) {
			st, err := cache.OpenStore(store)
			if err != nil {
				return "", err
			}
			return filepath.Join(st.Dir, "tmp"), nil
		},
		Fresh:   fresh,
		Stderr:  p.Stderr,
		Context: p.Context,
	})
}

var configCmd = &command{
	name:    "config",
	summary: "print the workspace's configuration, evaluated, as JSON, with where each task entry came from",
	usage:   "vx config [--fresh]",
	flags: []flagSpec{
		{name: "fresh", kind: boolFlag, usage: "evaluate vx.config.ts anew, even when nothing it read changed"},
	},
	run: runConfig,
}

// runConfig prints the configuration in vx.json's layout, plus the files
// it came from, where each task entry was written, and, for vx.config.ts,
// whether node evaluated it now.
func runConfig(p *Process, a *parsed) (int, error) {
	if len(a.pos) > 0 || len(a.after) > 0 {
		return ExitUsage, usagef("vx config takes no arguments; vx config --fresh evaluates anew")
	}
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return ExitUsage, err
	}
	res, err := loadConfig(p, a, ws, a.set["fresh"])
	if err != nil {
		return ExitUsage, err
	}
	warnUnusedEntries(p, ws, res.Config)
	rel := func(path string) string {
		if r, err := filepath.Rel(ws.Root, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return path
	}
	files := make([]string, len(res.Files))
	for i, f := range res.Files {
		files[i] = rel(f)
	}
	from := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(res.Config.Origins)) {
		o := res.Config.Origins[k]
		from[k] = rel(o.Path)
		if o.Line > 0 {
			from[k] += fmt.Sprintf(":%d:%d", o.Line, o.Col)
		}
	}
	out := res.Config.Value()
	out["files"] = files
	out["from"] = from
	if res.Memo != jsconfig.MemoNone {
		out["evaluation"] = res.Memo
	}
	return ExitOK, writeJSON(p.Stdout, out)
}
