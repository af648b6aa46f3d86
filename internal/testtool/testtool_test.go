package testtool

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestMissing runs a test that needs a program no machine has, in a child
// test process, with and without CI=true: one line naming it and a skip,
// or a failure under CI.
func TestMissing(t *testing.T) {
	if os.Getenv("TESTTOOL_CHILD") == "1" {
		Need(t, "apt-get install vx-no-such-tool", "vx-no-such-tool-1", "vx-no-such-tool-2")
		t.Error("Need returned for a program that is not installed")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, ci := range []string{"", "false", "true"} {
		cmd := exec.Command(exe, "-test.run=^TestMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTTOOL_CHILD=1", CIEnv+"="+ci)
		out, err := cmd.CombinedOutput()
		line := "vx-no-such-tool-1 is not installed (apt-get install vx-no-such-tool)"
		if strings.Count(string(out), line) != 1 {
			t.Errorf("CI=%q: the output does not name the tool once:\n%s", ci, out)
		}
		switch {
		case ci == "true" && (err == nil || !strings.Contains(string(out), "--- FAIL: TestMissing")):
			t.Errorf("CI=true: the missing tool did not fail the test (%v):\n%s", err, out)
		case ci != "true" && (err != nil || !strings.Contains(string(out), "--- SKIP: TestMissing")):
			t.Errorf("CI=%q: the missing tool did not skip the test (%v):\n%s", ci, err, out)
		}
	}
}

// TestNeedFinds: a program on PATH is found, by the first name that is.
func TestNeedFinds(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := testdir.New(t)
	name := "vx-testtool-found"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if err := os.Symlink(self, dir+string(os.PathSeparator)+name); err != nil {
		t.Skipf("cannot make a symbolic link here: %v", err)
	}
	t.Setenv("PATH", dir)
	if got := Need(t, "nothing to install", "vx-no-such-tool", strings.TrimSuffix(name, ".exe")); got == "" {
		t.Errorf("Need did not find %s on PATH", name)
	}
}
