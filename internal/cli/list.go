package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/workspace"
)

// listTasks is `vx run` without a task: like `npm run`, it prints the
// scripts that `vx run <task>` would run here, project by project, with
// their commands. At the root of a workspace of several projects the
// root's own scripts come last, with the --filter that runs them.
func listTasks(p *Process, ws *workspace.Workspace, sel run.Selection) (int, error) {
	filters := sel.Filters
	projects, err := run.Projects(ws, sel)
	if err != nil {
		return ExitUsage, err
	}
	type block struct {
		proj *workspace.Project
		note string
	}
	var blocks []block
	for _, pr := range projects {
		if len(pr.Scripts) > 0 {
			blocks = append(blocks, block{proj: pr})
		}
	}
	if len(filters) == 0 && !sel.Affected && ws.Current != nil && ws.Current.IsRoot && len(ws.Projects) > 1 && len(ws.Current.Scripts) > 0 {
		blocks = append(blocks, block{ws.Current, fmt.Sprintf("the root; runs only with --filter %s", quote.Name(quoteArg(ws.Current.Name)))})
	}
	if len(blocks) == 0 {
		where := "this project has"
		if len(projects) > 1 {
			where = "none of these projects has"
		}
		fmt.Fprintf(p.Stderr, "vx: %s no scripts; add some to \"scripts\" in package.json\n", where)
		return ExitOK, nil
	}
	if len(projects) > 1 {
		fmt.Fprintf(p.Stdout, "vx run <task> runs the task in each of these projects that has it:\n\n")
	}
	for i, b := range blocks {
		if i > 0 {
			fmt.Fprintln(p.Stdout)
		}
		head := fmt.Sprintf("%s (%s)", quote.Name(b.proj.Name), quote.Name(b.proj.RelDir))
		if b.note != "" {
			head += ", " + b.note
		}
		fmt.Fprintln(p.Stdout, head+":")
		names := make([]string, 0, len(b.proj.Scripts))
		width := 0
		for name := range b.proj.Scripts {
			names = append(names, name)
			width = max(width, quote.Width(quote.Name(name)))
		}
		sort.Strings(names)
		for _, name := range names {
			shown := quote.Name(name)
			fmt.Fprintf(p.Stdout, "  %s%s  %s\n", shown, strings.Repeat(" ", width-quote.Width(shown)), showScript(oneLine(b.proj.Scripts[name])))
		}
	}
	return ExitOK, nil
}

// oneLine shows a script on one line: line breaks become spaces.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// showScript returns a script the way the task list shows it: as it is,
// double quotes included, when every character is printable; otherwise
// quoted with Go escapes, as [quote.Name] shows names.
func showScript(s string) string {
	bare := strings.ReplaceAll(s, `"`, "")
	if quote.Name(bare) == bare {
		return s
	}
	return strconv.Quote(s)
}

// quoteArg quotes s for a POSIX shell when it holds anything but the
// characters project names are usually made of.
func quoteArg(s string) string {
	safe := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@/._-+:=,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
