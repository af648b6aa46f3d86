package exec

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WorkspaceEnv names the variable vx sets on every task to the absolute path
// of the workspace root. A vx started inside a task reads it to detect a
// nested run.
const WorkspaceEnv = "VX_RUN_WORKSPACE"

// TaskEnv names the variable vx sets on every task to the task's id,
// "<project>#<task>".
const TaskEnv = "VX_RUN_TASK"

// ChainEnv names the variable vx sets on every task to the workspace roots
// the task runs inside, outermost first and its own last, joined by the
// PATH list separator: one entry for a task of a top-level vx run, more
// when a task ran vx in another workspace. A vx started inside a task reads
// it to refuse a run in a workspace already running further up the chain.
const ChainEnv = "VX_RUN_CHAIN"

// EssentialEnv is the fixed allowlist of variables every task receives from
// the parent environment when the parent has them: the POSIX essentials
// first, then the Windows ones. It is part of the isolation policy, not a
// setting: vx never reads a configuration that widens or narrows it, and the
// builder works from its own copy, so modifying this slice changes nothing.
// A project that needs more declares it with
// passThrough; one that needs less overrides it with a define.
//
// The names are spelled in capitals. On Windows they match the parent's
// variables whatever their case, so "Path", "SystemRoot", "ComSpec" and
// "windir" are found.
var EssentialEnv = []string{
	// POSIX
	"PATH", "HOME", "SHELL", "USER", "LOGNAME", "TMPDIR", "TEMP", "TMP",
	"LANG", "LC_ALL", "LC_CTYPE", "TERM", "COLORTERM", "FORCE_COLOR",
	"NO_COLOR", "CI", "NODE_OPTIONS",
	// Windows
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
	"PROGRAMFILES(X86)", "COMSPEC", "PATHEXT", "SYSTEMDRIVE", "WINDIR",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "NUMBER_OF_PROCESSORS",
	"PROCESSOR_ARCHITECTURE",
}

// EnvOptions describes one task's environment for [TaskEnviron].
type EnvOptions struct {
	// Source is the parent environment as KEY=VALUE entries (cmd/vx passes
	// os.Environ()). When a name occurs more than once the last occurrence
	// wins. Entries without '=' and entries with an empty name (Windows'
	// per-drive "=C:=C:\dir" entries) are ignored.
	Source []string

	// PassThrough lists exact variable names copied from Source when Source
	// has them. Patterns such as "PREFIX_*" are expanded by the config layer
	// before they reach this package.
	PassThrough []string

	// Define holds literal NAME -> value pairs. They override the
	// essentials and the passThrough names, PATH included.
	Define map[string]string

	// BinPaths are directories put in front of PATH, in the given order,
	// after Define is applied. Empty entries are skipped, and so is any
	// entry [CheckBinPath] refuses (one holding the list separator would
	// split into a relative PATH entry): check them with it first to tell
	// the user.
	BinPaths []string

	// GOOS selects the naming rules: "" means runtime.GOOS; "windows" means
	// case-insensitive names and ';' as the PATH list separator; any other
	// value means case-sensitive names and ':'.
	GOOS string
}

// TaskVars are the variables vx sets on every task, over everything the
// layers of [TaskEnviron] produced.
type TaskVars struct {
	Workspace      string // VX_RUN_WORKSPACE: absolute workspace root
	ID             string // VX_RUN_TASK: "<project>#<task>"
	Chain          string // VX_RUN_CHAIN: the workspace roots the task runs inside, joined by the list separator; left out when empty
	Event          string // npm_lifecycle_event: the script name
	Script         string // npm_lifecycle_script: the script body
	PackageName    string // npm_package_name; left out when empty (unset is not empty)
	PackageVersion string // npm_package_version; left out when empty
	PackageJSON    string // npm_package_json: absolute path of the project's package.json
	Dir            string // PWD: the task's working directory, absolute, as vx reached it (symlinks kept); left out when empty
	InitCwd        string // INIT_CWD: the directory the package manager would be run in (vx: the project's), absolute; left out when empty
	UserAgent      string // npm_config_user_agent: "pnpm/9.1.0 npm/? node/? linux x64"; left out when empty
	ExecPath       string // npm_execpath: the package manager's entry point; left out when empty
}

// TaskEnviron returns the environment of a task's child process: a sorted
// list of KEY=VALUE entries, each name once, ready for the Env field of
// [os/exec.Cmd]. `vx run` and `vx env` both use it.
//
// It applies five layers, each one overriding the ones before it:
//
//  1. every name of [EssentialEnv] that opts.Source has;
//  2. every name of opts.PassThrough that opts.Source has (a name set to the
//     empty string is passed as empty; a name Source lacks is left out, never
//     passed as NAME=);
//  3. opts.Define, literally, PATH included;
//  4. opts.BinPaths, joined with the list separator and put in front of the
//     PATH the first three layers produced. If that PATH is missing or
//     empty, PATH becomes just the bins;
//  5. the task variables v.
//
// Nothing else of Source reaches the result. Values are never altered, and
// names are not validated (the config layer does that).
//
// Each task variable replaces any entry of the same name and is spelled as
// vx spells it (VX_RUN_WORKSPACE, VX_RUN_TASK, VX_RUN_CHAIN, npm_lifecycle_event,
// npm_lifecycle_script, npm_package_name, npm_package_version,
// npm_package_json, PWD, INIT_CWD, npm_config_user_agent, npm_execpath).
// VX_RUN_WORKSPACE, VX_RUN_TASK, npm_lifecycle_* and npm_package_json are
// always set, even to the empty string; VX_RUN_CHAIN only when not empty.
// An empty PackageName or PackageVersion means the package.json has no such
// field, and an empty InitCwd, UserAgent or ExecPath that vx does not know
// it: the variable is then absent from the result, even if a passThrough
// name or a define supplied it, because vx owns these names and a value
// from the parent would describe another package or another package
// manager. PWD is set because os/exec adds it only when
// Cmd.Env is nil: without it a shell takes the physical directory, and a
// project linked into the workspace would see a path outside the workspace.
//
// On Windows (opts.GOOS) names are compared case-insensitively, as Windows
// compares them: by [EnvNameKey]. So Source's "Path" is the essential PATH
// and a passThrough "foo" copies Source's "FOO". When layers name the same
// variable with different spellings, the result keeps the spelling of the
// highest layer that set it (layers 1 and 2 copy Source's entry as it is),
// except that the bins layer keeps the spelling of the PATH entry it
// extends, or writes "PATH" when there is none. If Define holds two
// spellings of one name, the spelling that sorts last byte-wise wins. The
// result is sorted the way CreateProcess expects the environment block: by
// name, case-insensitively (upper-cased), in code point order. On other
// systems names are compared and sorted byte-wise.
func TaskEnviron(opts EnvOptions, v TaskVars) []string {
	e := buildEnv(opts)
	e.set(WorkspaceEnv, v.Workspace)
	e.set(TaskEnv, v.ID)
	e.setOrUnset(ChainEnv, v.Chain)
	e.set("npm_lifecycle_event", v.Event)
	e.set("npm_lifecycle_script", v.Script)
	e.setOrUnset("npm_package_name", v.PackageName)
	e.setOrUnset("npm_package_version", v.PackageVersion)
	e.set("npm_package_json", v.PackageJSON)
	e.setOrUnset("PWD", v.Dir)
	e.setOrUnset("INIT_CWD", v.InitCwd)
	e.setOrUnset("npm_config_user_agent", v.UserAgent)
	e.setOrUnset("npm_execpath", v.ExecPath)
	return e.sorted()
}

// LookupEnv returns the value of the variable name in env, a list of
// KEY=VALUE entries, and whether it is there. The last occurrence wins, as
// it does for a child process. On Windows (goos "windows", or "" on a
// Windows host) names are compared case-insensitively, by [EnvNameKey].
// Entries without '=' or with an empty name are ignored, so an empty name is
// never found.
func LookupEnv(env []string, name, goos string) (string, bool) {
	windows := envIsWindows(goos)
	key := envKey(name, windows)
	for i := len(env) - 1; i >= 0; i-- {
		n, v, ok := strings.Cut(env[i], "=")
		if ok && n != "" && envKey(n, windows) == key {
			return v, true
		}
	}
	return "", false
}

// EnvNameKey returns the key under which goos identifies the variable
// name ("" means runtime.GOOS): elsewhere than on Windows, name itself. On
// Windows, name with each character upper-cased by [unicode.ToUpper], except
// that a non-ASCII letter never becomes an ASCII one (Windows does not equate
// "ı" with "I", "ſ" with "S" nor the Kelvin sign with "K"); a byte of invalid
// UTF-8 stands for itself and sorts after every character.
//
// Two names denote one variable exactly when their keys are equal; a name
// starts with a prefix under goos's rule exactly when its key starts with
// the prefix's key; and keys compared byte-wise sort the way CreateProcess
// expects an environment block (code point order of the upper-cased names).
func EnvNameKey(name, goos string) string {
	return envKey(name, envIsWindows(goos))
}

// envIsWindows reports whether goos selects the Windows naming rules.
func envIsWindows(goos string) bool {
	if goos == "" {
		goos = runtime.GOOS
	}
	return goos == "windows"
}

// envKey is [EnvNameKey] with the naming rule chosen: the one case-folding
// function of the builder.
func envKey(name string, windows bool) string {
	if !windows || !strings.ContainsFunc(name, func(r rune) bool { return r >= utf8.RuneSelf || 'a' <= r && r <= 'z' }) {
		return name // nothing to fold: most names, kept without copying
	}
	key := make([]byte, 0, len(name))
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		switch u := unicode.ToUpper(r); {
		case r == utf8.RuneError && n == 1:
			// 0xFF is in no UTF-8 text: the byte keeps its identity
			// and sorts after every character, as Windows would sort
			// a code unit past the last code point.
			key = append(key, 0xFF, name[i])
		case r >= utf8.RuneSelf && u < utf8.RuneSelf:
			key = utf8.AppendRune(key, r) // ı, ſ, K stay themselves
		default:
			key = utf8.AppendRune(key, u)
		}
		i += n
	}
	return string(key)
}

// essentials is the builder's own copy of EssentialEnv, as a set: changing
// the exported slice changes nothing. The names are upper case, so each is
// its own key under both naming rules.
var essentials = func() map[string]bool {
	m := make(map[string]bool, len(EssentialEnv))
	for _, name := range EssentialEnv {
		m[name] = true
	}
	return m
}()

// env is an environment being built: each variable under its key, as the
// "NAME=value" entry it will be in the result.
type env struct {
	windows bool
	vars    map[string]string
}

// buildEnv applies layers 1 to 4 of [TaskEnviron], one pass each.
func buildEnv(opts EnvOptions) *env {
	e := &env{windows: envIsWindows(opts.GOOS), vars: map[string]string{}}

	// Layers 1 and 2: the essentials and passThrough names that Source has,
	// the last occurrence winning, spelled as Source spells them.
	passThrough := make(map[string]bool, len(opts.PassThrough))
	for _, name := range opts.PassThrough {
		passThrough[envKey(name, e.windows)] = true
	}
	for _, kv := range opts.Source {
		name, _, ok := strings.Cut(kv, "=")
		if key := envKey(name, e.windows); ok && name != "" && (essentials[key] || passThrough[key]) {
			e.vars[key] = kv
		}
	}

	// Layer 3: the defines, in byte order of their names, so that of two
	// spellings of one Windows name the one sorting last wins.
	for _, name := range slices.Sorted(maps.Keys(opts.Define)) {
		e.set(name, opts.Define[name])
	}

	// Layer 4: the bins in front of PATH, in order, keeping PATH's spelling.
	var bins []string
	for _, b := range opts.BinPaths {
		if b != "" && checkBinPath(b, e.windows) == nil {
			bins = append(bins, b)
		}
	}
	if len(bins) > 0 {
		sep := ":"
		if e.windows {
			sep = ";"
		}
		name, old := "PATH", ""
		if kv, ok := e.vars["PATH"]; ok {
			name, old, _ = strings.Cut(kv, "=")
		}
		if old != "" {
			bins = append(bins, old) // never an empty element: it would mean "."
		}
		e.set(name, strings.Join(bins, sep))
	}
	return e
}

// set sets name to value, replacing the variable whatever its spelling.
func (e *env) set(name, value string) {
	e.vars[envKey(name, e.windows)] = name + "=" + value
}

// setOrUnset sets name to value, or removes it when value is "".
func (e *env) setOrUnset(name, value string) {
	if value == "" {
		delete(e.vars, envKey(name, e.windows))
		return
	}
	e.set(name, value)
}

// sorted returns the entries in the order of their keys.
func (e *env) sorted() []string {
	out := make([]string, 0, len(e.vars))
	for _, key := range slices.Sorted(maps.Keys(e.vars)) {
		out = append(out, e.vars[key])
	}
	return out
}

// CheckBinPath reports whether dir can go on a PATH as one entry under
// goos's rules ("" means runtime.GOOS): it must be absolute and hold no
// list separator (':', or ';' on Windows). PATH has no quoting on Unix, and
// on Windows programs disagree on it, so a directory such as
// /home/me/co:lon/node_modules/.bin would split into /home/me/co and the
// relative lon/node_modules/.bin, which the task would search from its own
// directory. The error says which directory and why.
func CheckBinPath(dir, goos string) error {
	if goos == "" {
		goos = runtime.GOOS
	}
	return checkBinPath(dir, goos == "windows")
}

func checkBinPath(dir string, windows bool) error {
	sep := ":"
	if windows {
		sep = ";"
	}
	if strings.Contains(dir, sep) {
		return fmt.Errorf("exec: the directory %q holds %q, the PATH list separator, so it cannot go on a task's PATH: part of it would be read as a relative directory; move or rename the directory", dir, sep)
	}
	if !isAbsPath(dir, windows) {
		return fmt.Errorf("exec: the directory %q is not absolute, so it cannot go on a task's PATH", dir)
	}
	return nil
}

// isAbsPath reports whether p is absolute under the rules of Windows (a
// drive letter and a separator, or a UNC path) or of Unix (a leading /).
func isAbsPath(p string, windows bool) bool {
	if !windows {
		return strings.HasPrefix(p, "/")
	}
	if len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z') {
		return true
	}
	return len(p) >= 2 && (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/')
}
