package cli

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/workspace"
)

// The completion scripts are thin: each sends the words of the line up to
// the cursor to `vx __complete` and offers what it prints, so what is
// offered always matches this vx and the workspace it would run in.
//
//go:embed completion/vx.bash completion/vx.zsh completion/vx.fish completion/vx.ps1
var completionScripts embed.FS

var shells = []struct{ name, file, summary string }{
	{"bash", "vx.bash", "bash 3.2 and later"},
	{"zsh", "vx.zsh", "zsh"},
	{"fish", "vx.fish", "fish 3 and later"},
	{"powershell", "vx.ps1", "PowerShell 5.1 and 7"},
}

var completionCmd = &command{
	name:    "completion",
	summary: "print a shell completion script: bash, zsh, fish or powershell",
	usage: "vx completion bash|zsh|fish|powershell\n\n" +
		"  bash:        source <(vx completion bash)\n" +
		"  zsh:         source <(vx completion zsh)      (after compinit)\n" +
		"  fish:        vx completion fish | source\n" +
		"  powershell:  vx completion powershell | Out-String | Invoke-Expression\n\n" +
		"Add the line to the shell's start-up file (~/.bashrc, ~/.zshrc,\n" +
		"~/.config/fish/config.fish, $PROFILE) to keep it.",
	run: runCompletion,
}

func runCompletion(p *Process, a *parsed) (int, error) {
	names := make([]string, len(shells))
	for i, s := range shells {
		names[i] = s.name
	}
	if len(a.pos) != 1 {
		return ExitUsage, usagef("name a shell: %s", strings.Join(names, ", "))
	}
	for _, s := range shells {
		if s.name == a.pos[0] {
			b, err := completionScripts.ReadFile("completion/" + s.file)
			if err != nil {
				return ExitUsage, fmt.Errorf("completion: %w", err)
			}
			_, err = p.Stdout.Write(b)
			return ExitOK, err
		}
	}
	return ExitUsage, usagef("unknown shell %q; shells: %s", a.pos[0], strings.Join(names, ", "))
}

// completeCommand is the hidden command the scripts call.
const completeCommand = "__complete"

// Directives, the first line `vx __complete` prints: the shell offers the
// candidates that follow, and file names too after ":files".
const (
	directivePlain = ":plain"
	directiveFiles = ":files"
)

// candidate is a word the shell may offer, with a description for the
// shells that show one (zsh, fish, PowerShell).
type candidate struct {
	word, desc string
}

// runComplete is `vx __complete <word>... <current>`: the words of the
// command line after "vx" up to the cursor, the last being the word being
// completed ("" for a new word). It prints a directive line, then one
// candidate per line as word<TAB>description. It never fails: a workspace
// it cannot read just offers nothing.
func runComplete(p *Process, words []string) int {
	if len(words) == 0 {
		words = []string{""}
	}
	cands, files := complete(p, words[:len(words)-1], words[len(words)-1])
	var b strings.Builder
	if files {
		b.WriteString(directiveFiles + "\n")
	} else {
		b.WriteString(directivePlain + "\n")
	}
	for _, c := range cands {
		if strings.ContainsFunc(c.word, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			continue // a control character: it would break the answer or reach the terminal
		}
		b.WriteString(c.word)
		if c.desc != "" {
			b.WriteString("\t" + showScript(strings.ReplaceAll(oneLine(c.desc), "\t", " ")))
		}
		b.WriteString("\n")
	}
	fmt.Fprint(p.Stdout, b.String())
	return ExitOK
}

// complete returns the candidates for cur after the words before it, and
// whether file names fit there too.
func complete(p *Process, before []string, cur string) ([]candidate, bool) {
	if cur == `""` || cur == `''` {
		cur = "" // how older PowerShell passes an empty word
	}
	var cands []candidate
	files := false
	if len(before) == 0 {
		if strings.HasPrefix(cur, "-") {
			cands = []candidate{{"--help", "show help"}, {"--version", "print vx's version"}}
		} else {
			for _, c := range commands {
				cands = append(cands, candidate{c.name, c.summary})
			}
			cands = append(cands, candidate{"help", "show help for a command"})
		}
		return matching(cands, cur), false
	}
	switch before[0] {
	case "help":
		if len(before) == 1 {
			for _, c := range commands {
				cands = append(cands, candidate{c.name, c.summary})
			}
		}
		return matching(cands, cur), false
	case completionCmd.name:
		if len(before) == 1 && !strings.HasPrefix(cur, "-") {
			for _, s := range shells {
				cands = append(cands, candidate{s.name, s.summary})
			}
		}
		return matching(cands, cur), false
	}
	c := findCommand(before[0])
	if c == nil {
		return nil, false
	}

	// Walk the words already typed: the flag waiting for its value, the
	// --filter values (they narrow the tasks offered), the tasks named.
	var pending *flagSpec
	var filters, named []string
	for _, w := range before[1:] {
		if pending != nil {
			if pending.name == "filter" {
				filters = append(filters, w)
			}
			pending = nil
			continue
		}
		if w == "--" {
			return nil, true // arguments for the scripts
		}
		if strings.HasPrefix(w, "-") && w != "-" {
			name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
			spec, ok := findFlag(c.flags, name)
			if !ok {
				continue
			}
			switch {
			case hasVal && name == "filter":
				filters = append(filters, val)
			case !hasVal && (spec.kind == stringFlag || spec.kind == listFlag):
				pending = &spec
			}
			continue
		}
		named = append(named, w)
	}

	if pending != nil {
		cands, files = flagValues(p, c, pending.name)
		return matching(cands, cur), files
	}
	if strings.HasPrefix(cur, "--") && strings.Contains(cur, "=") {
		name, _, _ := strings.Cut(cur[2:], "=")
		spec, ok := findFlag(c.flags, name)
		if !ok || spec.kind == boolFlag {
			return nil, false
		}
		vals, _ := flagValues(p, c, name)
		for _, v := range vals {
			cands = append(cands, candidate{"--" + name + "=" + v.word, v.desc})
		}
		return matching(cands, cur), false
	}
	if strings.HasPrefix(cur, "-") {
		for _, f := range c.flags {
			cands = append(cands, candidate{"--" + f.name, f.usage})
		}
		cands = append(cands, candidate{"--help", "show help"})
		return matching(cands, cur), false
	}
	switch c.name {
	case runCmd.name, watchCmd.name, graphCmd.name:
		cands = runTasks(p, filters, named)
	case whyCmd.name:
		// What vx run takes; <project>#<task> once a # is typed (every
		// project's tasks at once would be thousands in a large workspace).
		if strings.Contains(cur, "#") {
			cands = projectTasks(p)
		} else {
			cands = runTasks(p, filters, named)
		}
	case envCmd.name:
		if len(named) == 0 {
			cands = envTasks(p)
		}
	case pruneCmd.name:
		all, _ := flagValues(p, c, "filter")
		for _, cand := range all {
			if !slices.Contains(named, cand.word) && cand.desc != "." {
				cands = append(cands, cand)
			}
		}
	case "cache":
		if len(named) == 0 {
			cands = []candidate{{"status", "what the cache holds"}, {"prune", "remove entries by size or age"}}
		}
	}
	return matching(cands, cur), false
}

// flagValues offers the values of a flag of c.
func flagValues(p *Process, c *command, flag string) ([]candidate, bool) {
	switch flag {
	case "filter":
		ws, err := workspace.Discover(p.Dir)
		if err != nil {
			return nil, false
		}
		var cands []candidate
		for _, pr := range ws.Projects {
			cands = append(cands, candidate{pr.Name, pr.RelDir})
		}
		return cands, false
	case "dry-run":
		return []candidate{{"json", "the plan as JSON"}}, false
	case "log-order":
		return []candidate{{"grouped", "each task's output in one block when it ends"}, {"stream", "lines as they come, prefixed with the task"}}, false
	case "output-logs":
		return []candidate{{"full", "every task's output"}, {"hash-only", "only whether each task came from the cache, and its key"},
			{"new-only", "the output of the tasks that ran"}, {"errors-only", "the output of the tasks that failed"}, {"none", "no task output"}}, false
	case "framework-inference":
		return []candidate{{"true", "add each project's framework variables (turbo.json)"}, {"false", "add none"}}, false
	case "summary":
		return []candidate{{"json", "the summary as JSON on stdout"}}, true
	case "cache-dir", "profile", "html", "out-dir":
		return nil, true
	}
	return nil, false
}

// runTasks offers the tasks `vx run` would accept here with these filters:
// the scripts of the projects it selects, described by their command when
// one project has the script, else by how many projects have it.
func runTasks(p *Process, filters, named []string) []candidate {
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return nil
	}
	projects, err := run.Projects(ws, run.Selection{Filters: filters, Dir: p.Dir})
	if err != nil {
		projects, _ = run.Projects(ws, run.Selection{Dir: p.Dir})
	}
	type seen struct {
		script string
		in     []string
	}
	tasks := map[string]*seen{}
	for _, pr := range projects {
		for name, script := range pr.Scripts {
			s := tasks[name]
			if s == nil {
				s = &seen{script: script}
				tasks[name] = s
			}
			s.in = append(s.in, pr.Name)
		}
	}
	var cands []candidate
	for name, s := range tasks {
		if slices.Contains(named, name) {
			continue
		}
		desc := s.script
		if len(s.in) > 1 {
			desc = fmt.Sprintf("in %d projects: %s", len(s.in), strings.Join(firstN(s.in, 3), ", "))
		}
		cands = append(cands, candidate{name, desc})
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].word < cands[j].word })
	return cands
}

// envTasks offers what `vx env` takes: the current project's scripts, and
// <project>#<task> for every project.
func envTasks(p *Process) []candidate {
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return nil
	}
	var cands []candidate
	if cur := ws.Current; cur != nil && (!cur.IsRoot || len(ws.Projects) == 1) {
		for name, script := range cur.Scripts {
			cands = append(cands, candidate{name, script})
		}
	}
	cands = append(cands, taskIDs(ws)...)
	sort.Slice(cands, func(i, j int) bool { return cands[i].word < cands[j].word })
	return cands
}

// projectTasks offers <project>#<task> for every project's scripts.
func projectTasks(p *Process) []candidate {
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return nil
	}
	cands := taskIDs(ws)
	sort.Slice(cands, func(i, j int) bool { return cands[i].word < cands[j].word })
	return cands
}

func taskIDs(ws *workspace.Workspace) []candidate {
	var cands []candidate
	for _, pr := range ws.Projects {
		for name, script := range pr.Scripts {
			cands = append(cands, candidate{pr.Name + "#" + name, script})
		}
	}
	return cands
}

// matching keeps the candidates that start with prefix, as every shell
// would; doing it here keeps the scripts small.
func matching(cands []candidate, prefix string) []candidate {
	out := cands[:0]
	for _, c := range cands {
		if strings.HasPrefix(c.word, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func firstN(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	return append(append([]string{}, list[:n]...), "...")
}
