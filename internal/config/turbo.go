package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/vxrun/vx/internal/diag"
)

// This file reads a Turborepo turbo.json (or turbo.jsonc), with the
// projects' own turbo.json files that extend it, into vx's own Config: a
// workspace that has no vx config runs as its turbo.json says, and
// everything after the Config (plan, keys, env) is unchanged. What vx does
// not do is named in a warning, once; what it cannot honour is refused.

// TurboFileNames are the names of turbo's config file, in the order vx
// looks for them at the workspace root and in each project.
var TurboFileNames = []string{"turbo.json", "turbo.jsonc"}

// TurboFile is one turbo.json to read: the root's, or a project's.
type TurboFile struct {
	Path    string // as shown in messages and origins
	Data    []byte
	Project string // the project's name; "" for the root's file
}

// Turbo is a translated turbo.json: the settings every task shares, kept
// apart so that vx init can write them once, and each task's own.
type Turbo struct {
	Path string // the root's file
	// Shared is what turbo applies to every task (globalEnv,
	// globalPassThroughEnv, globalDependencies): PassThrough and Inputs.
	Shared Task
	// Own holds each task's own declarations, keyed as vx keys them
	// ("build", "web#build", "//#lint"), projects' files merged in.
	Own map[string]Task
	// Keys are the keys of Own in the order of the files.
	Keys []string
	// Origins says where each entry was written.
	Origins map[string]Origin
	// Warnings are what vx did not carry over, one line each, without
	// "vx: " in front.
	Warnings []string
	// Remote is the root's "remoteCache" object; nil without one.
	Remote *TurboRemote
}

// TurboRemote is what vx takes from turbo.json's "remoteCache" for a turbo
// remote cache server. Package cli applies it under vx's own settings and
// turbo's variables, as turbo applies turbo.json under its variables:
// a flag, then VX_REMOTE_*, then (without turbo.json) vx's config, then
// TURBO_*, then this (docs/from-turbo.md).
type TurboRemote struct {
	Path string // the file, for messages
	// Disabled is "enabled": false: no remote cache from turbo's
	// settings (TURBO_API, Vercel's by TURBO_TOKEN, apiUrl); vx's own
	// still apply.
	Disabled bool
	// Signature is "signature": true: without a signing key, vx uses no
	// turbo remote cache (it would read unsigned entries).
	Signature bool
	// APIURL is "apiUrl", used when a token is set (as turbo needs one).
	APIURL string
	// TeamID ("teamId", only when it starts with "team_", as turbo) and
	// TeamSlug ("teamSlug") name the team when turbo's variables do not.
	TeamID, TeamSlug string
	// Timeout is "timeout" in seconds; 0 when unset or 0 (turbo's "no
	// deadline", which vx does not honour).
	Timeout int
}

// turboDef is one task definition as a turbo.json writes it, before the
// projects' files are merged in: which keys it set, and their values.
type turboDef struct {
	set                                     map[string]bool
	extends                                 map[string]bool // arrays holding "$TURBO_EXTENDS$"
	dependsOn, inputs, outputs, env, passTh []string
	persistent, noCache                     bool
	outputLogs                              string
	notCached                               string // why vx does not cache it, when it cannot honour its outputs
}

// Top-level keys vx does not use, and what to say about each.
var turboIgnored = map[string]string{
	"ui":                                    "vx prints each task's lines with a prefix; there is no TUI",
	"daemon":                                "vx has no daemon",
	"boundaries":                            "vx does not check imports between packages",
	"futureFlags":                           "turbo's own feature switches",
	"concurrency":                           "use vx run --concurrency",
	"cacheDir":                              "use vx run --cache-dir or VX_CACHE_DIR",
	"cacheMaxAge":                           "vx's store is pruned by vx cache prune (docs/cache.md)",
	"cacheMaxSize":                          "vx's store is pruned by vx cache prune (docs/cache.md)",
	"dangerouslyDisablePackageManagerCheck": "vx does not check the package manager's version",
	"noUpdateNotifier":                      "vx has no update notifier",
	"tags":                                  "vx has no package tags",
	"experimentalUI":                        "vx prints each task's lines with a prefix; there is no TUI",
	"experimentalSpaces":                    "turbo's own service",
	"allowNoPackageManager":                 "turbo's own switch",
}

// ParseTurbo translates the root's turbo.json and the projects' own files.
// A problem vx cannot run with is a [*diag.Error] at its place in its file.
func ParseTurbo(root TurboFile, projects []TurboFile) (*Turbo, error) {
	t := &Turbo{Path: root.Path, Own: map[string]Task{}, Origins: map[string]Origin{}}
	warned := map[string]bool{}
	warn := func(key, format string, args ...any) {
		if !warned[key] {
			warned[key] = true
			t.Warnings = append(t.Warnings, fmt.Sprintf(format, args...))
		}
	}
	defs, order, at, err := t.readFile(root, warn)
	if err != nil {
		return nil, err
	}
	for _, p := range projects {
		pdefs, porder, pat, err := t.readFile(p, warn)
		if err != nil {
			return nil, err
		}
		for _, task := range porder {
			key := p.Project + "#" + task
			base, ok := defs[key]
			if !ok {
				base = defs[task]
			}
			defs[key] = mergeTurbo(base, pdefs[task])
			if !slices.Contains(order, key) {
				order = append(order, key)
			}
			at[key] = pat[task]
		}
	}
	for _, key := range order {
		d := defs[key]
		if d.notCached != "" {
			warn("notcached:"+key, "%s: task %q: %s; vx does not cache it", filepath.Base(root.Path), key, d.notCached)
		}
		t.Own[key] = d.task()
		t.Keys = append(t.Keys, key)
		t.Origins[key] = at[key]
	}
	return t, nil
}

// Config is the configuration vx runs with: every task's own declarations
// and the shared ones.
func (t *Turbo) Config() *Config {
	c := &Config{Path: t.Path, Tasks: map[string]Task{}, Origins: maps.Clone(t.Origins), TurboRemote: t.Remote}
	for k, own := range t.Own {
		c.Tasks[k] = t.withShared(own)
	}
	return c
}

// withShared adds the shared declarations to a task's own, as turbo
// applies its global keys to every task.
func (t *Turbo) withShared(own Task) Task {
	task := own
	if len(t.Shared.PassThrough) > 0 {
		task.PassThrough = append(slices.Clone(t.Shared.PassThrough), own.PassThrough...)
	}
	if len(t.Shared.Inputs) > 0 {
		in := own.Inputs
		if in == nil {
			in = []string{"**"} // the default set, and the shared files
		}
		task.Inputs = append(slices.Clone(in), t.Shared.Inputs...)
	}
	return task
}

// readFile reads one turbo.json: its task definitions by key, in order,
// and where each is. The root's global keys go into t.Shared.
func (t *Turbo) readFile(f TurboFile, warn func(key, format string, args ...any)) (map[string]turboDef, []string, map[string]Origin, error) {
	name := f.Path
	if f.Project == "" {
		name = filepath.Base(f.Path)
	}
	fail := func(e *syntaxError) error {
		line, col := diag.Position(f.Data, e.off)
		return &diag.Error{Path: f.Path, Line: line, Col: col, Msg: e.msg, Suggest: e.hint}
	}
	root, serr := parseJSONC(f.Data)
	if serr != nil {
		return nil, nil, nil, fail(serr)
	}
	defs := map[string]turboDef{}
	at := map[string]Origin{}
	var order []string
	if root == nil {
		return defs, order, at, nil
	}
	if root.kind != kindObject {
		return nil, nil, nil, fail(errAt(root.off, "the top level must be an object, found %s", root.describe()))
	}
	var tasks *member
	extends := false
	for i := range root.members {
		m := &root.members[i]
		switch m.key {
		case "$schema":
		case "tasks", "pipeline":
			if tasks != nil {
				return nil, nil, nil, fail(errAt(m.keyOff, `"tasks" and "pipeline" are both here; "pipeline" is turbo 1.x's name for "tasks": keep one`))
			}
			if m.key == "pipeline" {
				warn("pipeline", `%s: "pipeline" is turbo 1.x's name for "tasks": vx reads it as "tasks" (turbo 2 wants "tasks")`, name)
			}
			tasks = m
		case "extends":
			if f.Project == "" {
				return nil, nil, nil, fail(errAt(m.keyOff, `the workspace root's turbo.json cannot extend another`))
			}
			list, err := turboList(m.val, "extends")
			if err != nil {
				return nil, nil, nil, fail(err)
			}
			if !slices.Equal(list, []string{"//"}) {
				return nil, nil, nil, fail(errHint(m.val.off, `write "extends": ["//"]`, "vx reads a project's turbo.json that extends the root's alone, found %s", quotedList(list)))
			}
			extends = true
		case "globalEnv", "globalPassThroughEnv":
			if f.Project != "" {
				return nil, nil, nil, fail(errAt(m.keyOff, "%q belongs in the workspace root's turbo.json", m.key))
			}
			list, err := turboList(m.val, m.key)
			if err != nil {
				return nil, nil, nil, fail(err)
			}
			env, err := turboEnv(m.val, list, m.key, "", warn)
			if err != nil {
				return nil, nil, nil, fail(err)
			}
			t.Shared.PassThrough = append(t.Shared.PassThrough, env...)
		case "globalDependencies", "globalDotEnv":
			if f.Project != "" {
				return nil, nil, nil, fail(errAt(m.keyOff, "%q belongs in the workspace root's turbo.json", m.key))
			}
			list, err := turboList(m.val, m.key)
			if err != nil {
				return nil, nil, nil, fail(err)
			}
			if m.key == "globalDotEnv" {
				warn("globalDotEnv", `%s: "globalDotEnv" (turbo 1.x) is read as files in every task's key, as globalDependencies; vx does not load them`, name)
			}
			for i, g := range list {
				neg := ""
				if rest, ok := strings.CutPrefix(g, "!"); ok {
					neg, g = "!", rest
				}
				g = neg + "//" + strings.TrimPrefix(strings.TrimPrefix(g, "$TURBO_ROOT$/"), "./")
				if reason := checkGlob(g, true); reason != "" {
					return nil, nil, nil, fail(errAt(m.val.elems[i].off, "invalid %s glob %q: %s", m.key, list[i], reason))
				}
				t.Shared.Inputs = append(t.Shared.Inputs, cleanGlob(g))
			}
		case "remoteCache":
			if f.Project != "" {
				return nil, nil, nil, fail(errAt(m.keyOff, "%q belongs in the workspace root's turbo.json", m.key))
			}
			r, err := readTurboRemote(m.val, name, warn)
			if err != nil {
				return nil, nil, nil, fail(err)
			}
			r.Path = f.Path
			t.Remote = r
		case "envMode":
			if f.Project != "" {
				return nil, nil, nil, fail(errAt(m.keyOff, "%q belongs in the workspace root's turbo.json", m.key))
			}
			if m.val.kind != kindString || m.val.str != "strict" && m.val.str != "loose" {
				return nil, nil, nil, fail(errAt(m.val.off, `"envMode" takes "strict" or "loose", found %s`, m.val.describe()))
			}
			if m.val.str == "loose" {
				warn("envMode", `%s: "envMode": "loose" is not honoured: every task gets vx's isolated environment (turbo's strict mode) plus what "env", "passThroughEnv" and the global keys declare; declare what the tasks read there`, name)
			}
		default:
			if why, ok := turboIgnored[m.key]; ok {
				warn(m.key, "%s: %q is not used by vx: %s", name, m.key, why)
			} else {
				warn(m.key, "%s: unknown key %q is not used by vx", name, m.key)
			}
		}
	}
	if f.Project != "" && !extends && tasks != nil {
		return nil, nil, nil, fail(errHint(root.off, `add "extends": ["//"]`, "a project's turbo.json must extend the root's"))
	}
	if tasks == nil {
		return defs, order, at, nil
	}
	if tasks.val.kind != kindObject {
		return nil, nil, nil, fail(errAt(tasks.val.off, "%q must be an object, found %s", tasks.key, tasks.val.describe()))
	}
	for _, m := range tasks.val.members {
		if reason := checkTaskRef(m.key, false); reason != "" {
			return nil, nil, nil, fail(errAt(m.keyOff, "invalid task key %q: %s", m.key, reason))
		}
		if strings.Contains(m.key, "#") && f.Project != "" {
			_, task, _ := strings.Cut(m.key, "#")
			return nil, nil, nil, fail(errHint(m.keyOff, fmt.Sprintf("write %q", task), "invalid task key %q: a project's turbo.json names its own tasks alone", m.key))
		}
		d, err := readTurboTask(m.key, m.val, name, warn)
		if err != nil {
			return nil, nil, nil, fail(err)
		}
		if _, dup := defs[m.key]; !dup {
			order = append(order, m.key)
		}
		defs[m.key] = d
		line, col := diag.Position(f.Data, m.keyOff)
		at[m.key] = Origin{Path: f.Path, Line: line, Col: col}
	}
	return defs, order, at, nil
}

// readTurboRemote reads the "remoteCache" object; what vx does not do is
// named once.
func readTurboRemote(n *node, file string, warn func(key, format string, args ...any)) (*TurboRemote, *syntaxError) {
	if n.kind != kindObject {
		return nil, errAt(n.off, `"remoteCache" must be an object, found %s`, n.describe())
	}
	r := &TurboRemote{}
	boolean := func(m member) (bool, *syntaxError) {
		if m.val.kind != kindBool {
			return false, errAt(m.val.off, `"remoteCache.%s" must be true or false, found %s`, m.key, m.val.describe())
		}
		return m.val.boolean, nil
	}
	str := func(m member) (string, *syntaxError) {
		if m.val.kind != kindString {
			return "", errAt(m.val.off, `"remoteCache.%s" must be a string, found %s`, m.key, m.val.describe())
		}
		return m.val.str, nil
	}
	seconds := func(m member) (int, *syntaxError) {
		v, err := strconv.Atoi(m.val.str)
		if m.val.kind != kindNumber || err != nil || v < 0 {
			found := m.val.describe()
			if m.val.kind == kindNumber {
				found = m.val.str
			}
			return 0, errAt(m.val.off, `"remoteCache.%s" takes whole seconds (0 or more), found %s`, m.key, found)
		}
		return v, nil
	}
	for _, m := range n.members {
		var err *syntaxError
		switch m.key {
		case "enabled":
			var on bool
			on, err = boolean(m)
			r.Disabled = !on
		case "signature":
			r.Signature, err = boolean(m)
		case "preflight":
			var on bool
			if on, err = boolean(m); on {
				warn("remote:preflight", `%s: "remoteCache.preflight" is not used by vx: it sends no OPTIONS request before its calls`, file)
			}
		case "timeout":
			if r.Timeout, err = seconds(m); err == nil && r.Timeout == 0 {
				warn("remote:timeout", `%s: "remoteCache.timeout": 0 (no deadline) is not honoured: vx keeps its deadline of one call (VX_REMOTE_TIMEOUT, 5s by default)`, file)
			}
		case "uploadTimeout":
			if _, err = seconds(m); err == nil {
				warn("remote:uploadTimeout", `%s: "remoteCache.uploadTimeout" is not used by vx: an upload gets the call's deadline ("timeout", VX_REMOTE_TIMEOUT) plus one second per MiB`, file)
			}
		case "apiUrl":
			r.APIURL, err = str(m)
		case "loginUrl":
			if _, err = str(m); err == nil {
				warn("remote:loginUrl", `%s: "remoteCache.loginUrl" is not used by vx: it has no login; set TURBO_TOKEN or VX_REMOTE_TOKEN`, file)
			}
		case "teamId":
			var id string
			if id, err = str(m); err == nil {
				if strings.HasPrefix(id, "team_") {
					r.TeamID = id
				} else {
					warn("remote:teamId", `%s: "remoteCache.teamId" %q is not used: a team id starts with "team_" (turbo ignores it too); a slug goes in "teamSlug"`, file, id)
				}
			}
		case "teamSlug":
			r.TeamSlug, err = str(m)
		default:
			warn("remote:"+m.key, `%s: unknown key "remoteCache.%s" is not used by vx`, file, m.key)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// readTurboTask reads one task definition of a turbo.json.
func readTurboTask(key string, n *node, file string, warn func(key, format string, args ...any)) (turboDef, *syntaxError) {
	d := turboDef{set: map[string]bool{}, extends: map[string]bool{}}
	if n.kind != kindObject {
		return d, errAt(n.off, "task %q must be an object, found %s", key, n.describe())
	}
	boolean := func(m member) (bool, *syntaxError) {
		if m.val.kind != kindBool {
			return false, errAt(m.val.off, "%q of task %q must be true or false, found %s", m.key, key, m.val.describe())
		}
		return m.val.boolean, nil
	}
	for _, m := range n.members {
		var err *syntaxError
		var list []string
		switch m.key {
		case "dependsOn", "inputs", "outputs", "env", "passThroughEnv", "dotEnv", "with":
			if list, err = turboList(m.val, m.key); err != nil {
				return d, err
			}
			if i := slices.Index(list, "$TURBO_EXTENDS$"); i >= 0 {
				d.extends[m.key] = true
				list = slices.Delete(list, i, i+1)
			}
		}
		d.set[m.key] = true
		switch m.key {
		case "dependsOn":
			for i, dep := range list {
				if v, ok := strings.CutPrefix(dep, "$"); ok && v != "" {
					// turbo 1.x's variables in dependsOn: keyed, as env.
					warn("dependsOn$", `%s: a "$NAME" entry of "dependsOn" (turbo 1.x) is read as "env": ["NAME"]`, file)
					d.env = append(d.env, v)
					d.set["env"] = true
					continue
				}
				if reason := checkTaskRef(dep, true); reason != "" {
					return d, errAt(m.val.elems[i].off, "invalid dependsOn entry %q in task %q: %s", dep, key, reason)
				}
				d.dependsOn = append(d.dependsOn, dep)
			}
		case "inputs", "dotEnv":
			if m.key == "dotEnv" {
				warn("dotEnv", `%s: "dotEnv" (turbo 1.x) is read as "inputs" added to the default set; vx does not load the files`, file)
				if !d.set["inputs"] {
					d.inputs = append(d.inputs, "**")
				}
				d.set["inputs"] = true
			}
			for i, g := range list {
				g = turboGlob(g)
				if slices.Contains(strings.Split(strings.TrimPrefix(g, "!"), "/"), "..") {
					// The project's own directory decides where "../" leads: a
					// key without the file would hit when it changed.
					d.notCached = fmt.Sprintf("its inputs glob %q leaves the project through \"..\" (write $TURBO_ROOT$/... for a path from the root)", list[i])
					continue
				}
				if reason := checkGlob(g, true); reason != "" {
					return d, errAt(m.val.elems[i].off, "invalid inputs glob %q in task %q: %s", list[i], key, reason)
				}
				d.inputs = append(d.inputs, cleanGlob(g))
			}
			if d.inputs == nil {
				d.inputs = []string{}
			}
		case "outputs":
			d.outputs = []string{}
			for i, g := range list {
				if strings.Contains(g, "$TURBO_ROOT$") || strings.HasPrefix(strings.TrimPrefix(g, "!"), "../") {
					d.notCached = fmt.Sprintf("its outputs glob %q is outside the project, which vx's cache does not restore", g)
					continue
				}
				if reason := checkGlob(g, false); reason != "" {
					return d, errAt(m.val.elems[i].off, "invalid outputs glob %q in task %q: %s", g, key, reason)
				}
				if c := cleanGlob(g); strings.TrimLeft(c, "!/") != "" {
					d.outputs = append(d.outputs, c)
				} else {
					d.outputs = append(d.outputs, strings.TrimSuffix(c, "/")+"**")
				}
			}
		case "env", "passThroughEnv":
			env, err := turboEnv(m.val, list, m.key, key, warn)
			if err != nil {
				return d, err
			}
			if m.key == "env" {
				d.env = append(d.env, env...)
			} else {
				d.passTh = env
			}
		case "persistent":
			if d.persistent, err = boolean(m); err != nil {
				return d, err
			}
		case "cache":
			var c bool
			if c, err = boolean(m); err != nil {
				return d, err
			}
			d.noCache = !c
		case "interactive":
			var on bool
			if on, err = boolean(m); err != nil {
				return d, err
			}
			if on {
				warn("interactive", `%s: "interactive": vx hands a task the terminal's input when it runs alone (vx run web#dev), not within a run of several`, file)
			}
		case "outputLogs", "outputMode":
			if m.val.kind != kindString || !slices.Contains(OutputLogModes, m.val.str) {
				found := m.val.describe()
				if m.val.kind == kindString {
					found = strconv.Quote(m.val.str)
				}
				return d, errHint(m.val.off, "it takes "+quotedOr(OutputLogModes), "invalid %q of task %q: found %s", m.key, key, found)
			}
			if m.key == "outputMode" {
				warn("outputMode", `%s: "outputMode" is turbo 1.x's name for "outputLogs": read as "outputLogs"`, file)
				d.set["outputLogs"] = true
			}
			d.outputLogs = m.val.str
		case "description":
			// Documentation only.
		case "with":
			warn("with", `%s: "with" is not used by vx: run the sibling tasks in the same vx run (vx run dev api#dev)`, file)
		default:
			warn("task:"+m.key, "%s: unknown task key %q is not used by vx", file, m.key)
		}
	}
	return d, nil
}

// turboList reads an array of strings.
func turboList(n *node, key string) ([]string, *syntaxError) {
	if n.kind != kindArray {
		return nil, errAt(n.off, "%q must be an array of strings, found %s", key, n.describe())
	}
	list := make([]string, 0, len(n.elems))
	for i, e := range n.elems {
		if e.kind != kindString {
			return nil, errAt(e.off, "%q: entry %d must be a string, found %s", key, i+1, e.describe())
		}
		list = append(list, e.str)
	}
	return list, nil
}

// turboGlob turns turbo's spelling of an inputs glob into vx's:
// $TURBO_DEFAULT$ is the default set ("**"), $TURBO_ROOT$/ the root ("//").
func turboGlob(g string) string {
	neg := ""
	if rest, ok := strings.CutPrefix(g, "!"); ok {
		neg, g = "!", rest
	}
	switch {
	case g == "$TURBO_DEFAULT$":
		g = "**"
	case strings.HasPrefix(g, "$TURBO_ROOT$/"):
		g = "//" + strings.TrimPrefix(g, "$TURBO_ROOT$/")
	}
	return neg + g
}

// turboEnv checks a list of turbo's variable patterns, which vx's
// passThrough spells alike: names, "*" anywhere, "!" to exclude. An
// entry vx refuses ("*" alone: the whole environment) is left out with a
// warning.
func turboEnv(n *node, list []string, key, task string, warn func(key, format string, args ...any)) ([]string, *syntaxError) {
	var out []string
	where := "in " + strconv.Quote(key)
	if task != "" {
		where += " of task " + strconv.Quote(task)
	}
	for i, v := range list {
		if strings.Trim(v, "*") == "" {
			warn("star:"+key+task, `%q %s is left out: it would hand the task vx's whole environment; list the names or patterns it reads`, v, where)
			continue
		}
		if strings.HasPrefix(v, `\`) {
			warn("escape:"+key+task, `%q %s is left out: vx has no escaped "!" or "*" in variable names`, v, where)
			continue
		}
		if reason := checkPassThrough(v); reason != "" {
			return nil, errAt(n.elems[i].off, "invalid variable %q %s: %s", v, where, reason)
		}
		out = append(out, v)
	}
	return out, nil
}

// mergeTurbo lays a project's definition over the root's, as turbo's
// "extends": each key the project sets replaces the root's, and an array
// holding "$TURBO_EXTENDS$" adds to it.
func mergeTurbo(base, over turboDef) turboDef {
	out := turboDef{set: map[string]bool{}, extends: map[string]bool{}}
	if base.set != nil {
		out = base
		out.set = maps.Clone(base.set)
	}
	pick := func(key string, b, o []string) []string {
		if !over.set[key] {
			return b
		}
		out.set[key] = true
		if over.extends[key] {
			return append(slices.Clone(b), o...)
		}
		return o
	}
	out.dependsOn = pick("dependsOn", base.dependsOn, over.dependsOn)
	out.inputs = pick("inputs", base.inputs, over.inputs)
	out.outputs = pick("outputs", base.outputs, over.outputs)
	out.env = pick("env", base.env, over.env)
	out.passTh = pick("passThroughEnv", base.passTh, over.passTh)
	if over.set["persistent"] {
		out.persistent = over.persistent
	}
	if over.set["cache"] {
		out.noCache = over.noCache
	}
	if over.set["outputLogs"] {
		out.outputLogs = over.outputLogs
	}
	if over.notCached != "" || over.set["outputs"] || over.set["inputs"] {
		out.notCached = over.notCached
	}
	return out
}

// task is the definition in vx's terms.
func (d turboDef) task() Task {
	t := Task{
		DependsOn:  d.dependsOn,
		Persistent: d.persistent,
		NoCache:    d.noCache || d.notCached != "",
		OutputLogs: d.outputLogs,
		Outputs:    d.outputs,
	}
	if len(t.Outputs) == 0 {
		t.Outputs = nil
	}
	if d.set["inputs"] {
		t.Inputs = d.inputs
		if t.Inputs == nil {
			t.Inputs = []string{}
		}
	}
	if pt := append(slices.Clone(d.env), d.passTh...); len(pt) > 0 {
		t.PassThrough = pt
	}
	return t
}
