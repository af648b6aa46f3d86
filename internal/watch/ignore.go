package watch

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	gitcmd "github.com/vxrun/vx/internal/git"
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
		stdout, err := gitcmd.Run(git, root, env, strings.NewReader(strings.Join(paths, "\x00")+"\x00"), "check-ignore", "--stdin", "-z")
		var ge *gitcmd.Error
		switch {
		case err == nil:
		case errors.As(err, &ge) && ge.Code == 1:
			return nil, nil // none is ignored
		case errors.As(err, &ge) && ge.NotARepo():
			mu.Lock()
			noRepo = true
			mu.Unlock()
			return nil, nil
		default:
			return nil, fmt.Errorf("watch: %w", err)
		}
		out := map[string]bool{}
		for _, p := range strings.Split(string(stdout), "\x00") {
			if p != "" {
				out[p] = true
			}
		}
		return out, nil
	}
}
