package testtool

import (
	"os"
	"os/exec"
	"testing"
)

// CIEnv is the variable that turns a missing tool into a failure when it
// is "true", as CI services set it.
const CIEnv = "CI"

// Need returns the path of the first of names found on PATH. When none
// is, it calls [Missing] with names[0] and install.
func Need(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Missing(t, names[0], install)
	return ""
}

// Missing ends t for want of tool: a skip with one line, "skipped: <tool>
// is not installed (<install>)", or, with CI=true, a failure that says
// so and why it fails.
func Missing(t testing.TB, tool, install string) {
	t.Helper()
	msg := tool + " is not installed (" + install + ")"
	if os.Getenv(CIEnv) == "true" {
		t.Fatal(msg + "; CI=true: a test may not skip for want of a tool in CI")
	}
	t.Skip("skipped: " + msg)
}
