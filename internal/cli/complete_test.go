package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// writeTree writes files (slash paths relative to root) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestComplete(t *testing.T) {
	t.Parallel()
	root := testdir.New(t)
	writeTree(t, root, map[string]string{
		"package.json":             `{"name": "acme", "workspaces": ["apps/*", "packages/*"], "scripts": {"release": "changeset publish"}}`,
		"apps/web/package.json":    `{"name": "web", "scripts": {"build": "next build", "dev": "next dev", "build:prod": "next build --prod"}}`,
		"packages/ui/package.json": `{"name": "@acme/ui", "scripts": {"build": "tsc", "test": "vitest"}}`,
	})
	web := filepath.Join(root, "apps", "web")
	outside := testdir.New(t)
	tests := []struct {
		name  string
		dir   string
		words []string // after "vx", the last being completed
		want  string   // the whole output
	}{
		{"commands", root, []string{""}, ":plain\nrun\nwatch\nwhy\nenv\nls\ngraph\nconfig\ninit\ncache\nprune\ncompletion\nhelp\n"},
		{"vx prune takes projects, not the root, each once", root, []string{"prune", "web", ""}, ":plain\n@acme/ui\tpackages/ui\n"},
		{"command prefix", root, []string{"c"}, ":plain\nconfig\ncache\ncompletion\n"},
		{"vx config's flags", root, []string{"config", "--"}, ":plain\n--fresh\tevaluate vx.config.ts anew, even when nothing it read changed\n--help\tshow help\n"},
		{"top-level flags", root, []string{"--"}, ":plain\n--help\n--version\n"},
		{"help topics", root, []string{"help", "e"}, ":plain\nenv\n"},
		{"shells", root, []string{"completion", ""}, ":plain\nbash\nzsh\nfish\npowershell\n"},
		{"tasks at the root: every project's scripts, not the root's", root, []string{"run", ""},
			":plain\nbuild\tin 2 projects: web, @acme/ui\nbuild:prod\tnext build --prod\ndev\tnext dev\ntest\tvitest\n"},
		{"task prefix with a colon", root, []string{"run", "build:"}, ":plain\nbuild:prod\tnext build --prod\n"},
		{"tasks already named are not offered again", web, []string{"run", "build", "d"}, ":plain\ndev\tnext dev\n"},
		{"tasks in a project", web, []string{"run", ""},
			":plain\nbuild\tnext build\nbuild:prod\tnext build --prod\ndev\tnext dev\n"},
		{"--filter narrows the tasks", root, []string{"run", "--filter", "@acme/*", ""}, ":plain\nbuild\ttsc\ntest\tvitest\n"},
		{"vx watch takes the tasks vx run does", root, []string{"watch", "--filter", "@acme/*", ""}, ":plain\nbuild\ttsc\ntest\tvitest\n"},
		{"vx watch's flags", root, []string{"watch", "--g"}, ":plain\n--grace\thow long a task being stopped (its inputs changed, or Ctrl-C) gets before it is killed (default 5s)\n"},
		{"--filter= narrows the tasks", root, []string{"run", "--filter=web", "--concurrency", "2", "b"},
			":plain\nbuild\tnext build\nbuild:prod\tnext build --prod\n"},
		{"--filter selecting the root offers its scripts", root, []string{"run", "--filter", "acme", "r"}, ":plain\nrelease\tchangeset publish\n"},
		{"a filter that matches nothing offers every task", root, []string{"run", "--filter", "nope", "t"}, ":plain\ntest\tvitest\n"},
		{"project names for --filter", root, []string{"run", "build", "--filter", ""},
			":plain\nacme\t.\nweb\tapps/web\n@acme/ui\tpackages/ui\n"},
		{"project names for --filter=", web, []string{"run", "--filter=@"}, ":plain\n--filter=@acme/ui\tpackages/ui\n"},
		{"flags of run", root, []string{"run", "--co"},
			":plain\n--concurrency\ttasks run at once (default: the number of CPUs)\n--continue\tafter a failure, run everything that does not depend on it\n"},
		{"no value offered for --concurrency", root, []string{"run", "--concurrency", ""}, ":plain\n"},
		{"after -- the script's arguments: files", root, []string{"run", "build", "--", ""}, ":files\n"},
		{"--summary: json or a file", root, []string{"run", "build", "--summary", ""}, ":files\njson\tthe summary as JSON on stdout\n"},
		{"--dry-run=", root, []string{"run", "--dry-run="}, ":plain\n--dry-run=json\tthe plan as JSON\n"},
		{"--profile: a file", root, []string{"run", "build", "--profile", ""}, ":files\n"},
		{"vx graph: the tasks vx run offers", root, []string{"graph", "--filter", "@acme/*", ""}, ":plain\nbuild\ttsc\ntest\tvitest\n"},
		{"vx graph: its flags", root, []string{"graph", "build", "--h"}, ":plain\n--html\n--help\n"},
		{"vx graph --html: a file", root, []string{"graph", "build", "--html", ""}, ":files\n"},
		{"vx env in a project", web, []string{"env", "d"}, ":plain\ndev\tnext dev\n"},
		{"vx env at the root: project#task", root, []string{"env", "@acme/ui#"}, ":plain\n@acme/ui#build\ttsc\n@acme/ui#test\tvitest\n"},
		{"vx env takes one task", web, []string{"env", "dev", ""}, ":plain\n"},
		{"vx cache: its actions", root, []string{"cache", ""}, ":plain\nstatus\twhat the cache holds\nprune\tremove entries by size or age\n"},
		{"vx cache --cache-dir: a directory", root, []string{"cache", "status", "--cache-dir", ""}, ":files\n"},
		{"ls takes no task", root, []string{"ls", ""}, ":plain\n"},
		{"unknown command", root, []string{"bogus", ""}, ":plain\n"},
		{"outside a workspace: nothing, no error", outside, []string{"run", ""}, ":plain\n"},
		{"an empty word as older PowerShell passes it", web, []string{"run", `""`}, ":plain\nbuild\tnext build\nbuild:prod\tnext build --prod\ndev\tnext dev\n"},
		{"no words at all", root, nil, ":plain\nrun\nwatch\nwhy\nenv\nls\ngraph\nconfig\ninit\ncache\nprune\ncompletion\nhelp\n"},
		{"vx why: the tasks vx run takes", web, []string{"why", "b"}, ":plain\nbuild\tnext build\nbuild:prod\tnext build --prod\n"},
		{"vx why --filter narrows them", root, []string{"why", "--filter", "@acme/ui", ""}, ":plain\nbuild\ttsc\ntest\tvitest\n"},
		{"vx why: project#task once # is typed", web, []string{"why", "@acme/ui#"}, ":plain\n@acme/ui#build\ttsc\n@acme/ui#test\tvitest\n"},
		{"vx why: its flags", root, []string{"why", "--"}, ":plain\n--filter\n--json\n--cache-dir\n--framework-inference\n--help\n"},
		{"vx watch --framework-inference: its values", root, []string{"watch", "build", "--framework-inference", ""}, ":plain\ntrue\tadd each project's framework variables (turbo.json)\nfalse\tadd none\n"},
		{"vx why --cache-dir: a directory", root, []string{"why", "build", "--cache-dir", ""}, ":files\n"},
		{"vx run --explain-misses", root, []string{"run", "--exp"}, ":plain\n--explain-misses\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code, err := Main(Process{Args: append([]string{"__complete"}, tt.words...), Dir: tt.dir, Stdout: &stdout, Stderr: &stderr})
			if code != 0 || err != nil || stderr.Len() > 0 {
				t.Errorf("exit %d, error %v, stderr %q", code, err, stderr.String())
			}
			got := stdout.String()
			// Descriptions of the commands and flags are checked only where the
			// case spells them out.
			if !strings.Contains(tt.want, "\t") || tt.name == "commands" {
				got = stripDescriptions(got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("vx __complete %q (-want +got):\n%s", tt.words, diff)
			}
		})
	}
}

func stripDescriptions(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if word, _, ok := strings.Cut(l, "\t"); ok {
			lines[i] = word + "\n"
		}
	}
	return strings.Join(lines, "")
}

func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ shell, want string }{
		{"bash", "complete -F _vx vx"},
		{"zsh", "compdef _vx vx"},
		{"fish", "complete -c vx"},
		{"powershell", "Register-ArgumentCompleter -Native -CommandName 'vx'"},
	} {
		var stdout, stderr bytes.Buffer
		code, err := Main(Process{Args: []string{"completion", tt.shell}, Stdout: &stdout, Stderr: &stderr})
		if code != 0 || err != nil || !strings.Contains(stdout.String(), tt.want) || !strings.Contains(stdout.String(), "__complete") {
			t.Errorf("vx completion %s: exit %d, error %v, script without %q", tt.shell, code, err, tt.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code, err := Main(Process{Args: []string{"completion", "tcsh"}, Stdout: &stdout, Stderr: &stderr}); code != ExitUsage ||
		err == nil || err.Error() != `unknown shell "tcsh"; shells: bash, zsh, fish, powershell` {
		t.Errorf("vx completion tcsh: exit %d, error %v", code, err)
	}
}
