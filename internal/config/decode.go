package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// This file checks the parsed tree against the layout of vx.json and builds
// the Config. The first problem in document order is reported.

// Keys known at each level, in the order suggestions prefer them.
var (
	topKeys  = []string{"tasks", "remoteCache", "$schema"}
	rcKeys   = []string{"url", "instance"}
	taskKeys = []string{"dependsOn", "env", "persistent", "outputs", "inputs", "cache", "outputLogs", "trace", "timeout", "retries", "readyWhen"}
	envKeys  = []string{"passThrough", "define"}
)

// decode builds the Config of a parsed file. project is set for a
// project's own config file: it declares the tasks of that project only.
func decode(root *node, project bool) (*Config, *syntaxError) {
	c := &Config{Tasks: map[string]Task{}}
	if root == nil {
		return c, nil
	}
	if root.kind != kindObject {
		return nil, errAt(root.off, "the top level must be an object, found %s", root.describe())
	}
	for _, m := range root.members {
		if project && m.key != "tasks" {
			if m.key == "remoteCache" {
				return nil, errHint(m.keyOff, "set it in the workspace root's config", `"remoteCache" belongs to the workspace, not to a project`)
			}
			return nil, errHint(m.keyOff, `a project's config holds "tasks" only`, "unknown top-level key %q", m.key)
		}
		switch m.key {
		case "tasks":
			if err := decodeTasks(c, m.val, project); err != nil {
				return nil, err
			}
		case "$schema":
			if m.val.kind != kindString {
				return nil, errAt(m.val.off, `"$schema" must be a string, found %s`, m.val.describe())
			}
		case "remoteCache":
			if err := decodeRemoteCache(c, m.val); err != nil {
				return nil, err
			}
		default:
			hint := didYouMean(m.key, topKeys)
			if hint == "" {
				hint = `tasks go inside "tasks": {...}`
			}
			return nil, errHint(m.keyOff, hint, "unknown top-level key %q", m.key)
		}
	}
	return c, nil
}

// decodeRemoteCache reads {"url": ..., "instance": ...}: only the
// non-secret parts of the remote cache's settings live in vx.json.
func decodeRemoteCache(c *Config, n *node) *syntaxError {
	if n.kind != kindObject {
		return errAt(n.off, `"remoteCache" must be an object {"url": "grpcs://host", "instance": "name"}, found %s`, n.describe())
	}
	for _, m := range n.members {
		switch m.key {
		case "url", "instance":
			if m.val.kind != kindString {
				return errAt(m.val.off, `"remoteCache.%s" must be a string, found %s`, m.key, m.val.describe())
			}
			if m.key == "url" {
				c.RemoteCache.URL = m.val.str
			} else {
				c.RemoteCache.Instance = m.val.str
			}
		default:
			hint := didYouMean(m.key, rcKeys)
			if hint == "" && (strings.Contains(strings.ToLower(m.key), "header") || strings.Contains(strings.ToLower(m.key), "key") || strings.Contains(strings.ToLower(m.key), "token")) {
				hint = "secrets never go in the configuration: set VX_REMOTE_HEADER or VX_REMOTE_SIGNING_KEY in the environment"
			}
			return errHint(m.keyOff, hint, "unknown key %q in \"remoteCache\" (it takes url and instance)", m.key)
		}
	}
	return nil
}

func decodeTasks(c *Config, n *node, project bool) *syntaxError {
	if n.kind != kindObject {
		return errAt(n.off, `"tasks" must be an object, found %s`, n.describe())
	}
	for _, m := range n.members {
		if reason := checkTaskRef(m.key, false); reason != "" {
			return errAt(m.keyOff, "invalid task key %q: %s", m.key, reason)
		}
		if _, task, ok := strings.Cut(m.key, "#"); ok && project {
			return errHint(m.keyOff, fmt.Sprintf("write %q", task), "invalid task key %q: a project's config declares its own tasks, by their names alone", m.key)
		}
		t, err := decodeTask(m.key, m.val)
		if err != nil {
			return err
		}
		c.Tasks[m.key] = t
	}
	return nil
}

func decodeTask(name string, n *node) (Task, *syntaxError) {
	var t Task
	readyOff := -1
	if n.kind != kindObject {
		hint := ""
		if n.kind == kindArray {
			hint = `did you mean {"dependsOn": [...]}?`
		}
		return t, errHint(n.off, hint, "task %q must be an object, found %s", name, n.describe())
	}
	for _, m := range n.members {
		switch m.key {
		case "dependsOn":
			list, err := stringList(m.val, "dependsOn", name)
			if err != nil {
				return t, err
			}
			for i, dep := range list {
				if reason := checkTaskRef(dep, true); reason != "" {
					return t, errAt(m.val.elems[i].off, "invalid dependsOn entry %q in task %q: %s", dep, name, reason)
				}
			}
			t.DependsOn = list
		case "env":
			if err := decodeEnv(&t, name, m.val); err != nil {
				return t, err
			}
		case "persistent":
			if m.val.kind != kindBool {
				hint := ""
				if m.val.kind == kindString && (m.val.str == "true" || m.val.str == "false") {
					hint = fmt.Sprintf("did you mean %s?", m.val.str)
				}
				return t, errHint(m.val.off, hint, `"persistent" of task %q must be true or false, found %s`, name, m.val.describe())
			}
			t.Persistent = m.val.boolean
		case "outputs", "inputs":
			list, err := stringList(m.val, m.key, name)
			if err != nil {
				return t, err
			}
			for i, g := range list {
				if reason := checkGlob(g, m.key == "inputs"); reason != "" {
					return t, errAt(m.val.elems[i].off, "invalid %s glob %q in task %q: %s", m.key, g, name, reason)
				}
				if list[i] = cleanGlob(g); strings.TrimLeft(list[i], "!/") == "" {
					return t, errAt(m.val.elems[i].off, `invalid %s glob %q in task %q: it names a directory, not its files; write %q`, m.key, g, name, list[i]+"**")
				}
			}
			if list == nil {
				list = []string{}
			}
			if m.key == "outputs" {
				t.Outputs = list
			} else {
				t.Inputs = list
			}
		case "cache":
			if m.val.kind != kindBool {
				hint := ""
				if m.val.kind == kindString && (m.val.str == "true" || m.val.str == "false") {
					hint = fmt.Sprintf("did you mean %s?", m.val.str)
				}
				return t, errHint(m.val.off, hint, `"cache" of task %q must be true or false, found %s`, name, m.val.describe())
			}
			t.NoCache = !m.val.boolean
		case "outputLogs":
			if m.val.kind != kindString || !slices.Contains(OutputLogModes, m.val.str) {
				found := m.val.describe()
				if m.val.kind == kindString {
					found = strconv.Quote(m.val.str)
				}
				return t, errHint(m.val.off, "it takes "+quotedOr(OutputLogModes), `invalid "outputLogs" of task %q: found %s`, name, found)
			}
			t.OutputLogs = m.val.str
		case "trace":
			if m.val.kind != kindString || m.val.str != "strict" {
				found := m.val.describe()
				if m.val.kind == kindString {
					found = strconv.Quote(m.val.str)
				}
				return t, errHint(m.val.off, `it takes "strict" (vx run --trace traces the other tasks)`, `invalid "trace" of task %q: found %s`, name, found)
			}
			t.Trace = m.val.str
		case "timeout":
			d, err := decodeTimeout(name, m.val)
			if err != nil {
				return t, err
			}
			t.Timeout = &d
		case "retries":
			r, err := decodeRetries(name, m.val)
			if err != nil {
				return t, err
			}
			t.Retries = &r
		case "readyWhen":
			r, err := decodeReadyWhen(name, m.val)
			if err != nil {
				return t, err
			}
			t.ReadyWhen, readyOff = r, m.keyOff
		default:
			hint := didYouMean(m.key, taskKeys)
			if hint == "" && didYouMean(m.key, envKeys) != "" {
				hint = `it belongs inside "env": {...}`
			}
			if hint == "" {
				hint = "known keys are " + quotedList(taskKeys)
			}
			return t, errHint(m.keyOff, hint, "unknown key %q in task %q", m.key, name)
		}
	}
	if err := checkAttempts(t, name, n); err != nil {
		return t, err
	}
	if t.ReadyWhen != nil && !t.Persistent {
		return t, errHint(readyOff, `add "persistent": true, or remove "readyWhen"`, `"readyWhen" of task %q is for persistent tasks (dev servers), and the task is not persistent`, name)
	}
	return t, nil
}

func decodeEnv(t *Task, name string, n *node) *syntaxError {
	if n.kind != kindObject {
		return errAt(n.off, `"env" of task %q must be an object, found %s`, name, n.describe())
	}
	for _, m := range n.members {
		switch m.key {
		case "passThrough":
			list, err := stringList(m.val, "passThrough", name)
			if err != nil {
				return err
			}
			for i, p := range list {
				if reason := checkPassThrough(p); reason != "" {
					return errAt(m.val.elems[i].off, "invalid passThrough name %q in task %q: %s", p, name, reason)
				}
			}
			t.PassThrough = list
		case "define":
			if err := decodeDefine(t, name, m.val); err != nil {
				return err
			}
		default:
			hint := didYouMean(m.key, envKeys)
			if hint == "" && didYouMean(m.key, taskKeys) != "" {
				hint = `it belongs in the task, outside "env"`
			}
			if hint == "" {
				hint = "known keys are " + quotedList(envKeys)
			}
			return errHint(m.keyOff, hint, "unknown key %q in task %q", m.key, name)
		}
	}
	return nil
}

func decodeDefine(t *Task, name string, n *node) *syntaxError {
	if n.kind != kindObject {
		return errAt(n.off, `"define" of task %q must be an object of strings, found %s`, name, n.describe())
	}
	for _, m := range n.members {
		if reason := checkVarName(m.key); reason != "" {
			return errAt(m.keyOff, "invalid define name %q in task %q: %s", m.key, name, reason)
		}
		v := m.val
		if v.kind != kindString {
			hint := ""
			if v.kind == kindNumber || v.kind == kindBool {
				lit := v.str
				if v.kind == kindBool {
					lit = strconv.FormatBool(v.boolean)
				}
				hint = fmt.Sprintf("did you mean %q?", lit)
			}
			return errHint(v.off, hint, "define %q in task %q must be a string, found %s", m.key, name, v.describe())
		}
		if strings.IndexByte(v.str, 0) >= 0 {
			return errAt(v.off, "define %q in task %q: a value cannot contain NUL", m.key, name)
		}
		if t.Define == nil {
			t.Define = map[string]string{}
		}
		t.Define[m.key] = v.str
	}
	return nil
}

// quotedList writes keys as "a", "b" and "c".
func quotedList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// quotedOr writes keys as "a", "b" or "c".
func quotedOr(keys []string) string {
	s := quotedList(keys)
	if i := strings.LastIndex(s, " and "); i >= 0 {
		s = s[:i] + " or " + s[i+5:]
	}
	return s
}

// stringList decodes an array of strings; an empty array is nil.
func stringList(n *node, key, task string) ([]string, *syntaxError) {
	if n.kind != kindArray {
		hint := ""
		if n.kind == kindString {
			hint = fmt.Sprintf("did you mean [%q]?", n.str)
		}
		return nil, errHint(n.off, hint, "%q of task %q must be an array of strings, found %s", key, task, n.describe())
	}
	var list []string
	for i, e := range n.elems {
		if e.kind != kindString {
			return nil, errAt(e.off, "%q of task %q: entry %d must be a string, found %s", key, task, i+1, e.describe())
		}
		list = append(list, e.str)
	}
	return list, nil
}

// checkTaskRef returns why s is not a valid task reference, or "". Task keys
// are "task" or "project#task"; dependsOn entries may also be "^task".
func checkTaskRef(s string, caret bool) string {
	if s == "" {
		return "a task name cannot be empty"
	}
	if strings.HasPrefix(s, "^") {
		if !caret {
			return `a task key cannot start with "^"; "^" belongs in "dependsOn"`
		}
		rest := s[1:]
		switch {
		case rest == "":
			return `"^" must be followed by a task name, as in "^build"`
		case strings.HasPrefix(rest, "^"):
			return `only one "^" is allowed`
		case strings.Contains(rest, "#"):
			_, task, _ := strings.Cut(rest, "#")
			if checkTaskRef(rest, false) != "" {
				return `"^" cannot be combined with a project`
			}
			return fmt.Sprintf(`"^" cannot be combined with a project; write %q or %q`, "^"+task, rest)
		}
		return checkChars(rest)
	}
	project, task, found := strings.Cut(s, "#")
	switch {
	case !found:
		return checkChars(s)
	case project == "":
		return `missing project name before "#"`
	case task == "":
		return `missing task name after "#"`
	case strings.Contains(task, "#"):
		return `more than one "#"`
	case strings.HasPrefix(task, "^"):
		return `a task name cannot start with "^"`
	}
	return checkChars(s)
}

// checkChars rejects control characters, which no project or script name
// contains and which would garble vx's output.
func checkChars(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return fmt.Sprintf("control character U+%04X in a name", r)
		}
	}
	return ""
}

// checkVarName returns why s is not a valid environment variable name, or "".
func checkVarName(s string) string {
	switch {
	case s == "":
		return "a name cannot be empty"
	case strings.Contains(s, "="):
		return `a name cannot contain "="`
	case strings.IndexByte(s, 0) >= 0:
		return "a name cannot contain NUL"
	}
	return ""
}

// checkPassThrough returns why s is not a valid passThrough entry, or "".
func checkPassThrough(s string) string {
	if reason := checkVarName(s); reason != "" {
		return reason
	}
	if strings.Trim(s, "*") == "" {
		return `"*" alone would pass vx's whole environment; list names or patterns such as "NEXT_PUBLIC_*"`
	}
	if rest, ok := strings.CutPrefix(s, "!"); ok && (strings.Trim(rest, "*") == "" || strings.HasPrefix(strings.TrimLeft(rest, "*"), "!")) {
		return `"!" must be followed by a name or a pattern, as in "!NEXT_PUBLIC_SECRET"`
	}
	return ""
}

// cleanGlob returns g without what the paths vx matches never hold, which
// would keep it from matching anything: "." elements ("./dist/**" is
// "dist/**") and empty ones (a doubled "/", or a trailing one: "dist/" is
// "dist"). The "!" and "//" in front stay; an absolute glob is left as it
// is (checkGlob refuses it).
func cleanGlob(g string) string {
	prefix, rest := "", g
	if r, ok := strings.CutPrefix(rest, "!"); ok {
		prefix, rest = "!", r
	}
	if r, ok := strings.CutPrefix(rest, "//"); ok {
		prefix, rest = prefix+"//", r
	}
	if strings.HasPrefix(rest, "/") {
		return g
	}
	elems := strings.Split(rest, "/")
	kept := elems[:0:0]
	for _, e := range elems {
		if e != "" && e != "." {
			kept = append(kept, e)
		}
	}
	if len(kept) == len(elems) {
		return g
	}
	return prefix + strings.Join(kept, "/")
}

// checkGlob returns why g is not a valid outputs or inputs glob, or "".
// Globs are slash-separated and relative to the project; a leading "!"
// excludes, and in inputs a leading "//" makes the glob relative to the
// workspace root.
func checkGlob(g string, input bool) string {
	g = strings.TrimPrefix(g, "!")
	if strings.HasPrefix(g, "//") {
		if !input {
			return `outputs are relative to the project; "//" (from the workspace root) is for inputs`
		}
		g = g[2:]
	}
	switch {
	case g == "":
		return "a glob cannot be empty"
	case strings.HasPrefix(g, "/") || len(g) > 1 && g[1] == ':':
		if input {
			return `globs are relative to the project; write "//path" for a path from the workspace root`
		}
		return "globs are relative to the project, not absolute"
	case strings.IndexByte(g, 0) >= 0:
		return "a glob cannot contain NUL"
	case strings.Contains(g, "\\"):
		return `write paths with "/", not "\"`
	}
	for _, elem := range strings.Split(g, "/") {
		if elem == ".." {
			if input {
				return `".." is not allowed; write "//path" for a path from the workspace root`
			}
			return `".." is not allowed: outputs stay inside the project`
		}
	}
	if !doublestar.ValidatePattern(g) {
		return "not a valid glob (an unclosed [ or {?)"
	}
	return ""
}
