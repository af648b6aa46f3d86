package cli

import (
	"strings"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/run"
)

// logLayout returns how `vx run` lays out the output of several tasks:
// the --log-order value when given, else grouped when stdout is not a
// terminal and CI is set (to anything but "", "0" or "false"), else stream;
// and whether grouped blocks are folded for GitHub Actions
// (GITHUB_ACTIONS=true).
func logLayout(p *Process, flag string) (run.LogOrder, bool, error) {
	github := envIs(p, "GITHUB_ACTIONS", "true")
	switch flag {
	case "grouped":
		return run.LogGrouped, github, nil
	case "stream":
		return run.LogStream, github, nil
	case "":
	default:
		return "", false, usagef("--log-order takes grouped or stream, not %q", flag)
	}
	ci, _ := exec.LookupEnv(p.Environ, "CI", p.GOOS)
	if !p.StdoutTerminal && ci != "" && ci != "0" && !strings.EqualFold(ci, "false") {
		return run.LogGrouped, github, nil
	}
	return run.LogStream, github, nil
}

func envIs(p *Process, name, want string) bool {
	v, _ := exec.LookupEnv(p.Environ, name, p.GOOS)
	return strings.EqualFold(v, want)
}
