package watch

import (
	"bytes"
	"errors"
	"fmt"
	osexec "os/exec"
	"strings"
	"sync"
)

// GitIgnored returns a function for [Options.Ignored] that asks git (the
// program at git, run in root with env) which of the paths, relative to
// root, it ignores: `git check-ignore --stdin`, which reads .gitignore
// files, .git/info/exclude and core.excludesFile as `git status` does
// and never counts a tracked file as ignored. Outside a git work tree
// nothing is ignored.
func GitIgnored(git, root string, env []string) func([]string) (map[string]bool, error) {
	var mu sync.Mutex
	noRepo := false
	return func(paths []string) (map[string]bool, error) {
		mu.Lock()
		skip := noRepo
		mu.Unlock()
		if skip || len(paths) == 0 {
			return nil, nil
		}
		cmd := osexec.Command(git, "check-ignore", "--stdin", "-z")
		cmd.Dir, cmd.Env = root, append(append([]string{}, env...), "GIT_OPTIONAL_LOCKS=0")
		cmd.Stdin = strings.NewReader(strings.Join(paths, "\x00") + "\x00")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *osexec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ExitCode() == 1:
			return nil, nil // none is ignored
		case errors.As(err, &ee) && strings.Contains(stderr.String(), "not a git repository"):
			mu.Lock()
			noRepo = true
			mu.Unlock()
			return nil, nil
		default:
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("git check-ignore: %s", msg)
		}
		out := map[string]bool{}
		for _, p := range strings.Split(stdout.String(), "\x00") {
			if p != "" {
				out[p] = true
			}
		}
		return out, nil
	}
}
