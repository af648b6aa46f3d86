package run

import (
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/nodeprog"
	"github.com/vxrun/vx/workspace"
)

// keyRule says how one variable of a task's environment enters the task's
// cache key. Every variable a task can see has one (docs/cache.md's table
// lists them): what the task sees is in its key, or it is a machine's own
// value that the key leaves out on purpose, so that machines share keys.
type keyRule int

const (
	// keyValue: the value, as the task sees it.
	keyValue keyRule = iota + 1
	// keyRootRel: an absolute path, as the path from the workspace root
	// (slash-separated, "." for the root, "../x" outside it): the part of
	// it that does not depend on where the workspace is.
	keyRootRel
	// keyRootRelList: a list of absolute paths joined by the PATH list
	// separator, each from the workspace root.
	keyRootRelList
	// keyWithColor: the value, when FORCE_COLOR is set too: then the
	// terminal variables decide the colour depth of what tools print
	// into the pipe vx reads; without it, a cached task's output is a pipe,
	// and the value describes the user's terminal, not the task's result.
	keyWithColor
	// keyScript: the script's text, which the key holds already as its
	// Command's arguments.
	keyScript
	// keyMachine: not in the key: a path or a value of this machine or
	// user (HOME, PATH, TMPDIR...), so that two machines share keys. A task
	// that needs one to be part of its key declares it (passThrough or
	// define): a declared variable always enters the key with its value.
	keyMachine
)

// keyRules decides, for each variable vx gives a task without its
// declaring it (the essentials of [exec.EssentialEnv] and the task
// variables vx sets), how it enters the key. Names are spelled as vx
// spells them; on Windows they are compared by [exec.EnvNameKey].
var keyRules = map[string]keyRule{
	// Essentials whose values change what tools do and that a team's
	// machines share.
	"CI":           keyValue,
	"NODE_OPTIONS": keyValue,
	"LANG":         keyValue,
	"LC_ALL":       keyValue,
	"LC_CTYPE":     keyValue,
	"FORCE_COLOR":  keyValue,
	"NO_COLOR":     keyValue,
	// Windows' name of the machine's architecture: the key's platform
	// (ISA) fixes it already.
	"PROCESSOR_ARCHITECTURE": keyValue,
	// The user's terminal: colour depth under FORCE_COLOR.
	"TERM":      keyWithColor,
	"COLORTERM": keyWithColor,
	// Paths and values of this machine and user.
	"PATH": keyMachine, "HOME": keyMachine, "SHELL": keyMachine, "USER": keyMachine,
	"LOGNAME": keyMachine, "TMPDIR": keyMachine, "TEMP": keyMachine, "TMP": keyMachine,
	"SYSTEMROOT": keyMachine, "APPDATA": keyMachine, "LOCALAPPDATA": keyMachine,
	"PROGRAMDATA": keyMachine, "PROGRAMFILES": keyMachine, "PROGRAMFILES(X86)": keyMachine,
	"COMSPEC": keyMachine, "PATHEXT": keyMachine, "SYSTEMDRIVE": keyMachine, "WINDIR": keyMachine,
	"USERPROFILE": keyMachine, "HOMEDRIVE": keyMachine, "HOMEPATH": keyMachine,
	"NUMBER_OF_PROCESSORS": keyMachine,

	// The task variables (exec.TaskVars).
	exec.TaskEnv:            keyValue,  // VX_RUN_TASK: the task's id
	"npm_lifecycle_event":   keyValue,  // the script's name: two scripts of one text differ by it
	"npm_lifecycle_script":  keyScript, // for a pre or post script its text, in the key too
	"npm_package_name":      keyValue,
	"npm_package_version":   keyValue,
	"npm_config_user_agent": keyValue, // the package manager and its version, node's, the OS and architecture
	exec.WorkspaceEnv:       keyRootRel,
	"npm_package_json":      keyRootRel,
	"PWD":                   keyRootRel,
	"INIT_CWD":              keyRootRel, // the project's directory, wherever vx was started
	exec.ChainEnv:           keyRootRelList,
	// The package manager's entry point, a path of this machine: which
	// package manager and which version it is are in the key through
	// npm_config_user_agent.
	"npm_execpath": keyMachine,
}

// keyRuleOf returns the rule of the variable name under goos's naming
// rules, whether name is one of the task variables vx sets (which replace
// a declared variable of the same name), and false when it has no rule.
func keyRuleOf(name, goos string) (rule keyRule, taskVar, ok bool) {
	k := name
	rules := keyRulesByKey.linux
	if isWindows(goos) {
		k, rules = exec.EnvNameKey(name, goos), keyRulesByKey.windows
	}
	r, ok := rules[k]
	return r.rule, r.taskVar, ok
}

type ruleOf struct {
	rule    keyRule
	taskVar bool
}

// keyRulesByKey are keyRules under each naming rule's keys.
var keyRulesByKey = func() (m struct{ linux, windows map[string]ruleOf }) {
	m.linux, m.windows = map[string]ruleOf{}, map[string]ruleOf{}
	tv := map[string]bool{}
	for _, name := range taskVarNames {
		tv[name] = true
	}
	for name, r := range keyRules {
		m.linux[name] = ruleOf{r, tv[name]}
		m.windows[exec.EnvNameKey(name, "windows")] = ruleOf{r, tv[name]}
	}
	return m
}()

// taskVarNames are the names of [exec.TaskVars].
var taskVarNames = []string{exec.WorkspaceEnv, exec.TaskEnv, exec.ChainEnv, "npm_lifecycle_event",
	"npm_lifecycle_script", "npm_package_name", "npm_package_version", "npm_package_json", "PWD",
	"INIT_CWD", "npm_config_user_agent", "npm_execpath"}

func isWindows(goos string) bool { return listSeparator(goos) == ";" }

// taskEnviron is the one place that says what n sees and what of it n's
// cache key holds: env is n's environment ([TaskEnv]), key the variables of
// env its key holds, each under its name as goos identifies it
// ([exec.EnvNameKey]: upper case on Windows), with the value the key holds
// (see [keyRule]). A variable n declares (passThrough, define) is in key
// with the value it declared (for PATH: without the bin paths vx puts in
// front); a task variable vx sets replaces a declared one of the same name
// in env, and in key. Nothing in env depends on the directory vx was
// started in (INIT_CWD is the project's directory, as `npm run` in the
// project sets it), so runs from any directory share keys. A variable without a rule, which the tests keep from
// happening, is in key with its value. node is the version of the node n
// runs (in env's PATH, from n's directory; "" when none, [nodeprog.Unknown]
// when it did not say), the one in env's user agent.
func taskEnviron(ws *workspace.Workspace, n *Node, parent []string, goos string) (env []string, key []cache.Property, node string) {
	opts := envOptions(ws, n, parent, goos)
	agent, execPath := pmVars(ws, parent, goos)
	env = exec.TaskEnviron(opts, exec.TaskVars{
		Workspace:      ws.Root,
		ID:             n.ID,
		Chain:          taskChain(ws.Root, parent, goos),
		Event:          n.Task,
		Script:         n.Script,
		PackageName:    packageName(n.Project),
		PackageVersion: n.Project.Version,
		PackageJSON:    n.Project.Manifest,
		Dir:            n.Project.Dir,
		InitCwd:        n.Project.Dir, // as its package manager run in the project sets it: not where vx started
		UserAgent:      agent,
		ExecPath:       execPath,
	})
	// The version of the node the task runs (in its PATH, from its
	// directory: behind a version manager's shim, the one its pins
	// choose), in the user agent.
	node = nodeFinder(ws, goos).Version(env, n.Project.Dir)
	if v := node; v != "" && v != nodeprog.Unknown && agent != "" {
		ua := "npm_config_user_agent=" + withNode(agent, v)
		for i, kv := range env {
			if name, _, _ := strings.Cut(kv, "="); exec.EnvNameKey(name, goos) == exec.EnvNameKey("npm_config_user_agent", goos) {
				env[i] = ua
			}
		}
	}
	// What n declared, by key: define wins over passThrough, as in env.
	declared := make(map[string]string, len(opts.PassThrough)+len(opts.Define))
	for _, name := range opts.PassThrough {
		if v, ok := exec.LookupEnv(parent, name, goos); ok {
			declared[exec.EnvNameKey(name, goos)] = v
		}
	}
	for name, v := range opts.Define {
		declared[exec.EnvNameKey(name, goos)] = v
	}
	_, color := exec.LookupEnv(env, "FORCE_COLOR", goos)
	sep := listSeparator(goos)
	key = make([]cache.Property, 0, len(env))
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		k := exec.EnvNameKey(name, goos)
		rule, taskVar, ok := keyRuleOf(name, goos)
		if dv, isDeclared := declared[k]; isDeclared && !taskVar {
			key = append(key, cache.Property{Name: k, Value: dv})
			continue
		}
		switch {
		case !ok, rule == keyValue, rule == keyWithColor && color:
		case rule == keyRootRel:
			v = rootRel(ws.Root, v)
		case rule == keyRootRelList:
			parts := strings.Split(v, sep)
			for i, p := range parts {
				parts[i] = rootRel(ws.Root, p)
			}
			v = strings.Join(parts, sep)
		default: // keyScript, keyMachine, keyWithColor without FORCE_COLOR
			continue
		}
		key = append(key, cache.Property{Name: k, Value: v})
	}
	return env, key, node
}

// rootRel returns the absolute path p from root, slash-separated ("." for
// root itself, "../x" outside it), or p itself when it has none (another
// drive).
func rootRel(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(rel)
}
