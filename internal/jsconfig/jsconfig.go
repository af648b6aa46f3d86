package jsconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/jsconfig/wire"
	"github.com/vxrun/vx/internal/quote"
)

// FileNames are the names of a config file vx evaluates, in the order it
// names them in messages: [config.JSFileNames].
var FileNames = config.JSFileNames

// MinNode is the oldest node that evaluates a config.
const MinNode = 18

// Variables that configure the evaluation.
const (
	HelperEnv  = "VX_CONFIG_HELPER"  // the path of vx-config
	TimeoutEnv = "VX_CONFIG_TIMEOUT" // how long an evaluation may take
)

// DefaultTimeout is how long an evaluation may take by default.
const DefaultTimeout = 30 * time.Second

// Project is a project of the workspace, as Load needs it.
type Project struct {
	Name string // its package.json name, as in "<name>#<task>"
	Dir  string // absolute
}

// Options is what Load reads.
type Options struct {
	Root string // the workspace root, absolute
	// Projects are the workspace's projects but the root.
	Projects []Project
	Environ  []string // vx's environment: node's, and what the config reads
	GOOS     string
	Version  string // vx's version: a new vx evaluates anew
	// Exe is vx's executable, beside which vx-config is looked for.
	Exe string
	// MemoFile is where the evaluation is remembered; "" for nowhere.
	// MemoTemp returns the directory for the memo's temporary file,
	// creating what it must (the store, with its mark).
	MemoFile string
	MemoTemp func() (string, error)
	// Fresh evaluates even when the memo holds.
	Fresh  bool
	Stderr io.Writer // what the configs print, and vx's warnings
	// Context stops an evaluation.
	Context context.Context
}

// How the JavaScript configs of a Result were had.
const (
	MemoNone       = ""           // there are none
	MemoRemembered = "remembered" // from the memo: node did not start
	MemoEvaluated  = "evaluated"  // by node, and remembered
)

// Result is the workspace's configuration.
type Result struct {
	Config *config.Config
	// Files are the config files read, absolute: the root's (vx.json or
	// vx.config.*, when there is one), then projects' in the order of
	// Options.Projects.
	Files []string
	// Memo says how the JavaScript configs were had: one of the Memo
	// constants, or why they were evaluated and not remembered.
	Memo string
	// Turbo is the workspace's turbo.json, translated, when vx runs with it:
	// there is no vx.json or vx.config.* at the root.
	Turbo *config.Turbo
}

// Load reads the workspace's configuration: the root's vx.json or
// vx.config.* (ts, mts, js, mjs), and the projects' own vx.config.* files.
// The root may hold one of these files at most; so may each project. A
// project's file declares its tasks as "<project>#<task>" entries would;
// one also declared at the root is an error naming both places.
//
// JavaScript configs are evaluated by vx-config with node, unless the
// memo holds an evaluation none of whose inputs changed since. Every
// problem is a [*diag.Error] naming a file.
func Load(o Options) (*Result, error) {
	if o.Context == nil {
		o.Context = context.Background()
	}
	rootFiles, err := present(o.Root, append([]string{config.FileName}, FileNames...))
	if err != nil {
		return nil, err
	}
	if len(rootFiles) > 1 {
		return nil, &diag.Error{Path: rootFiles[0], Msg: fmt.Sprintf("%s and %s are both at the workspace root", filepath.Base(rootFiles[0]), filepath.Base(rootFiles[1])), Suggest: "keep one: a vx.config.ts holds all a vx.json can (vx config prints what it evaluates to)"}
	}
	res := &Result{}
	var js []string // the files node evaluates
	var projects []Project
	if len(rootFiles) == 1 {
		res.Files = append(res.Files, rootFiles[0])
		if filepath.Base(rootFiles[0]) != config.FileName {
			js = append(js, rootFiles[0])
		}
	}
	for _, p := range o.Projects {
		files, err := present(p.Dir, FileNames)
		if err != nil {
			return nil, err
		}
		if len(files) > 1 {
			return nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("%s and %s are both in project %q", filepath.Base(files[0]), filepath.Base(files[1]), p.Name), Suggest: "keep one"}
		}
		if len(files) == 1 {
			res.Files = append(res.Files, files[0])
			js = append(js, files[0])
			projects = append(projects, p)
		}
	}
	var root *config.Config
	if len(rootFiles) == 0 {
		tr, files, err := LoadTurbo(o)
		if err != nil {
			return nil, err
		}
		if tr != nil {
			for _, w := range tr.Warnings {
				if o.Stderr != nil {
					fmt.Fprintf(o.Stderr, "vx: %s\n", w)
				}
			}
			res.Turbo = tr
			res.Files = append(files, res.Files...)
			root = tr.Config()
		}
	}
	if root == nil && (len(rootFiles) == 1 && filepath.Base(rootFiles[0]) == config.FileName || len(rootFiles) == 0) {
		if root, err = config.Load(o.Root); err != nil {
			return nil, err
		}
	}
	if len(js) == 0 {
		res.Config = root
		root.Sources = sources(res.Files, nil)
		return res, nil
	}
	results, deps, save, err := evaluated(o, js)
	if err != nil {
		return nil, err
	}
	i := 0
	if root == nil {
		if root, err = decodeFile(js[0], results[0].JSON, false); err != nil {
			return nil, err
		}
		i = 1
	}
	for j, p := range projects {
		pc, err := decodeFile(js[i+j], results[i+j].JSON, true)
		if err != nil {
			return nil, err
		}
		if err := merge(root, pc, p, o.Projects); err != nil {
			return nil, err
		}
	}
	res.Config = root
	root.Sources = sources(res.Files, deps)
	res.Memo = save() // valid: worth remembering
	return res, nil
}

// sources are the config files and what their evaluation read (deps),
// each once, in that order: files by their path (a file read, or a
// path whose kind was asked), directories whose listing was read.
func sources(files []string, deps []wire.Dep) []config.Source {
	var out []config.Source
	seen := map[config.Source]bool{}
	add := func(s config.Source) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, f := range files {
		add(config.Source{Path: f})
	}
	for _, d := range deps {
		switch d.Kind {
		case wire.KindFile, wire.KindStat, wire.KindLstat, wire.KindMeta, wire.KindLmeta, wire.KindReadlink:
			add(config.Source{Path: d.Path})
		case wire.KindList:
			add(config.Source{Path: d.Path, Dir: true, Prefix: d.Prefix})
		}
	}
	return out
}

// LoadTurbo reads the root's turbo.json (or turbo.jsonc) and the projects'
// own, when the root has one, whatever other config the root has (vx
// init); nil when it has none. files are the files read, root's first.
// Load uses it when the root has no vx config.
func LoadTurbo(o Options) (*config.Turbo, []string, error) {
	found, err := present(o.Root, config.TurboFileNames)
	if err != nil || len(found) == 0 {
		return nil, nil, err
	}
	if len(found) > 1 {
		return nil, nil, &diag.Error{Path: found[0], Msg: "turbo.json and turbo.jsonc are both at the workspace root", Suggest: "keep one, as turbo wants"}
	}
	read := func(path, project string) (config.TurboFile, error) {
		data, err := inputfile.Read(path)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return config.TurboFile{}, &diag.Error{Path: path, Msg: "cannot read", Err: err}
		}
		return config.TurboFile{Path: path, Data: data, Project: project}, nil
	}
	rootFile, err := read(found[0], "")
	if err != nil {
		return nil, nil, err
	}
	files := []string{found[0]}
	var projects []config.TurboFile
	for _, p := range o.Projects {
		pf, err := present(p.Dir, config.TurboFileNames)
		if err != nil {
			return nil, nil, err
		}
		if len(pf) == 0 {
			continue
		}
		if len(pf) > 1 {
			return nil, nil, &diag.Error{Path: pf[0], Msg: fmt.Sprintf("turbo.json and turbo.jsonc are both in project %q", p.Name), Suggest: "keep one"}
		}
		f, err := read(pf[0], p.Name)
		if err != nil {
			return nil, nil, err
		}
		projects = append(projects, f)
		files = append(files, pf[0])
	}
	tr, err := config.ParseTurbo(rootFile, projects)
	if err != nil {
		return nil, nil, err
	}
	return tr, files, nil
}

// present returns which of names are in dir, as paths. Something of the
// name that is not a regular file (a directory) is an error.
func present(dir string, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
				return nil, &diag.Error{Path: dir, Msg: "the workspace root is not a directory"}
			}
			continue // config.Load reports what is wrong with vx.json
		}
		if n == config.FileName {
			out = append(out, p)
			continue
		}
		if !fi.Mode().IsRegular() {
			return nil, &diag.Error{Path: p, Msg: "is not a regular file"}
		}
		out = append(out, p)
	}
	return out, nil
}

// decodeFile decodes one evaluated file, its problems located in its
// source, and says where each task entry was written.
func decodeFile(file string, value []byte, project bool) (*config.Config, error) {
	c, verr := config.DecodeValue(file, value, project)
	src, _ := os.ReadFile(file)
	if verr != nil {
		e := &diag.Error{Path: file, Msg: verr.Msg, Suggest: verr.Suggest}
		if p := config.KeyPath(verr.Path); p != "" {
			e.Msg = p + ": " + e.Msg
		}
		if at, ok := locate(src, verr.Path, verr.Key); ok {
			e.Line, e.Col = diag.Position(src, at.off)
		}
		return nil, e
	}
	c.Origins = map[string]config.Origin{}
	for key := range c.Tasks {
		o := config.Origin{Path: file}
		if at, ok := locate(src, []any{"tasks", key}, true); ok && at.exact {
			o.Line, o.Col = diag.Position(src, at.off)
		}
		c.Origins[key] = o
	}
	return c, nil
}

// merge adds a project's own tasks to the workspace's configuration as
// "<project>#<task>" entries.
func merge(root, pc *config.Config, p Project, all []Project) error {
	for _, q := range all {
		if q.Name == p.Name && q.Dir != p.Dir {
			return &diag.Error{Path: pc.Path, Msg: fmt.Sprintf("two projects are named %q (%s and %s): a project's own config needs a name no other project has", p.Name, p.Dir, q.Dir)}
		}
	}
	if root.Tasks == nil {
		root.Tasks = map[string]config.Task{}
	}
	if root.Origins == nil {
		root.Origins = map[string]config.Origin{}
	}
	keys := make([]string, 0, len(pc.Tasks))
	for k := range pc.Tasks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, task := range keys {
		key := p.Name + "#" + task
		here := pc.Origins[task]
		if _, dup := root.Tasks[key]; dup {
			there := root.Origins[key]
			where := filepath.Base(there.Path)
			if there.Line > 0 {
				where = fmt.Sprintf("%s:%d:%d", where, there.Line, there.Col)
			}
			return &diag.Error{Path: here.Path, Line: here.Line, Col: here.Col,
				Msg:     fmt.Sprintf("task %q of project %q is also declared at the workspace root, as %q (%s)", task, p.Name, key, where),
				Suggest: "declare it in one place"}
		}
		root.Tasks[key] = pc.Tasks[task]
		root.Origins[key] = here
	}
	return nil
}

// timeout reads VX_CONFIG_TIMEOUT.
func timeout(environ []string, goos string) (time.Duration, error) {
	v, _ := exec.LookupEnv(environ, TimeoutEnv, goos)
	if v == "" {
		return DefaultTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s takes a duration such as 30s or 2m, not %q", TimeoutEnv, v)
	}
	return d, nil
}

// wireError is the helper's error as vx's, its text quoted when it holds
// what a terminal would act on (the message of an exception is the
// config's own text).
func wireError(e *wire.Error, fallback string) *diag.Error {
	path := e.File
	if path == "" {
		path = fallback
	}
	return &diag.Error{Path: path, Line: e.Line, Col: e.Col, Msg: quote.Text(e.Msg), Suggest: quote.Text(e.Suggest)}
}
