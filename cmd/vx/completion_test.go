package main

import (
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// The completion scripts run in real shells here: each test sources what
// `vx completion <shell>` prints and completes command lines in a small
// workspace, with the vx under test first on PATH. A shell that is not
// installed is skipped (.ci/run installs zsh and fish).

func completionWorkspace(t *testing.T) string {
	t.Helper()
	root := testdir.New(t)
	files := map[string]string{
		"package.json":             `{"name": "acme", "workspaces": ["apps/*", "packages/*"]}`,
		"apps/web/package.json":    `{"name": "web", "scripts": {"build": "next build", "build:prod": "next build --prod", "dev": "next dev"}}`,
		"packages/ui/package.json": `{"name": "@acme/ui", "scripts": {"build": "tsc", "test": "vitest"}}`,
		"notes.txt":                "",
	}
	for name, content := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func needShell(t *testing.T, name string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the POSIX shells' completion is tested on Unix")
	}
	path, err := osexec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed; install it to test its completion script", name)
	}
	return path
}

func shellOutput(t *testing.T, dir, shell string, args ...string) string {
	t.Helper()
	cmd := osexec.Command(shell, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, out)
	}
	return string(out)
}

func TestCompletionBash(t *testing.T) {
	bash := needShell(t, "bash")
	root := completionWorkspace(t)
	// Each line completes one command line, as bash would with the cursor at
	// its end, and prints COMPREPLY joined by "|".
	script := `source <(vx completion bash) || exit 1
t() { COMP_LINE=$1; COMP_POINT=${#1}; COMP_WORDS=(); COMP_CWORD=0; _vx; local IFS='|'; echo "${COMPREPLY[*]}"; }
t 'vx '
t 'vx r'
t 'vx run b'
t 'vx run build:'
t 'vx run --filter=w'
t 'vx run --filter @'
t 'vx run --filter web '
t 'vx run build -- no'
t 'vx completion f'
`
	got := shellOutput(t, root, bash, "-c", script)
	want := strings.Join([]string{
		"run|watch|why|env|ls|graph|config|init|cache|prune|completion|help",
		"run",
		"build|build:prod",
		"prod", // bash replaces only what follows the ":"
		"web",  // and what follows the "="
		"@acme/ui",
		"build|build:prod|dev",
		"notes.txt",
		"fish",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bash completion (-want +got):\n%s", diff)
	}
}

func TestCompletionZsh(t *testing.T) {
	zsh := needShell(t, "zsh")
	root := completionWorkspace(t)
	// zsh's completion system needs a terminal; the script's own work is
	// checked by standing in for the two functions it hands its results to.
	script := `compdef() { print -r -- "compdef $*"; }
_describe() { print -rl -- "${(@P)4}"; }
_files() { print -r -- "(files)"; }
source <(vx completion zsh) || exit 1
words=(vx run b); CURRENT=3; _vx
words=(vx run --filter ''); CURRENT=4; _vx
words=(vx run build -- ''); CURRENT=5; _vx
`
	got := shellOutput(t, root, zsh, "-f", "-c", script)
	want := strings.Join([]string{
		"compdef _vx vx",
		"build:in 2 projects: web, @acme/ui",
		`build\:prod:next build --prod`,
		"acme:.",
		"web:apps/web",
		"@acme/ui:packages/ui",
		"(files)",
	}, "\n") + "\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("zsh completion (-want +got):\n%s", diff)
	}
}

func TestCompletionFish(t *testing.T) {
	fish := needShell(t, "fish")
	root := completionWorkspace(t)
	script := `vx completion fish | source; or exit 1
complete -C 'vx run b'
echo ==
complete -C 'vx run --filter=w'
echo ==
complete -C 'vx run build -- no'
`
	got := shellOutput(t, root, fish, "--no-config", "-c", script)
	want := "build\tin 2 projects: web, @acme/ui\nbuild:prod\tnext build --prod\n==\n--filter=web\tapps/web\n==\nnotes.txt\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fish completion (-want +got):\n%s", diff)
	}
}

func TestCompletionZshInteractive(t *testing.T) {
	// The real thing: an interactive zsh on a pseudo-terminal (zsh/zpty),
	// compinit, the script loaded as the docs say, and a Tab pressed.
	zsh := needShell(t, "zsh")
	root := completionWorkspace(t)
	script := `zmodload zsh/zpty || exit 3
complete_line() {
  zpty z 'zsh -f -i'
  zpty -w z 'PS1="> "; autoload -Uz compinit; compinit -u -D; source <(vx completion zsh)'
  zpty -w -n z "$1"$'\t'
  local out="" chunk
  local end=$(( SECONDS + 20 ))
  while (( SECONDS < end )); do
    if zpty -rt z chunk; then out+=$chunk; else sleep 0.05; fi
    [[ $out == *"$2"* ]] && break
  done
  zpty -d z
  [[ $out == *"$2"* ]] && print -r -- "ok: $2" || print -r -- "no $2 in: $out"
}
complete_line 'vx run b' 'vx run build'
complete_line 'vx run --filter=w' 'vx run --filter=web'
complete_line 'vx completion f' 'vx completion fish'
`
	got := shellOutput(t, root, zsh, "-f", "-c", script)
	want := "ok: vx run build\nok: vx run --filter=web\nok: vx completion fish\n"
	if got != want {
		t.Errorf("zsh on a pseudo-terminal:\n%s\nwant:\n%s", got, want)
	}
}
