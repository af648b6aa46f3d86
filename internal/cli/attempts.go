package cli

import (
	"time"

	"github.com/vxrun/vx/internal/config"
)

// attemptFlags are the flags vx run and vx watch share for a task's
// attempts: each applies to the tasks whose entry has no "timeout" or
// "retries" of its own (the entry wins), never to persistent tasks.
var attemptFlags = []flagSpec{
	{name: "timeout", kind: stringFlag, arg: "<duration>", usage: "stop a task running longer than this (10m, 1h30m; its tree gets SIGTERM, then is killed after --grace) and fail it; for tasks without \"timeout\""},
	{name: "retries", kind: stringFlag, arg: "N", usage: "run a failed task again, up to N more times (0-10); one that then passes is flaky; for tasks without \"retries\""},
}

func init() {
	runCmd.flags = append(runCmd.flags, attemptFlags...)
	watchCmd.flags = append(watchCmd.flags, attemptFlags...)
}

// readAttemptFlags reads --timeout (default: none) and --retries (default
// 0); its errors are usage errors.
func readAttemptFlags(a *parsed) (timeout time.Duration, retries int, err error) {
	if a.set["timeout"] {
		v := a.str("timeout")
		var reason string
		if timeout, reason = config.ParseTimeout(v); reason != "" {
			return 0, 0, usagef("--timeout %q: %s", v, reason)
		}
	}
	if a.set["retries"] {
		v := a.str("retries")
		var reason string
		if retries, reason = config.ParseRetries(v); reason != "" {
			return 0, 0, usagef("--retries takes %s, not %q", reason, v)
		}
	}
	return timeout, retries, nil
}
