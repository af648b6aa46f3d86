package wire

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestNamesState: a listing's state is its names, sorted, those starting
// with the prefix only; on Windows and macOS, whose file systems ignore
// case, the prefix matches whatever the case.
func TestNamesState(t *testing.T) {
	t.Parallel()
	all := NamesState([]string{"b.ts", "a.ts"}, "", "linux")
	if all != NamesState([]string{"a.ts", "b.ts"}, "", "linux") {
		t.Error("the order of the names counts")
	}
	if all == NamesState([]string{"a.ts"}, "", "linux") {
		t.Error("a name more or less does not count")
	}
	for _, tc := range []struct {
		goos  string
		names []string
		same  bool // the same state as {"preset.ts"}
	}{
		{"linux", []string{"preset.ts", "other.ts"}, true},
		{"linux", []string{"preset.ts", "Preset.js"}, true},
		{"linux", []string{"preset.ts", "preset.js"}, false},
		{"windows", []string{"preset.ts", "Preset.js"}, false},
		{"darwin", []string{"preset.ts", "PRESET"}, false},
		{"windows", []string{"preset.ts", "pre"}, true},
	} {
		got := NamesState(tc.names, "preset", tc.goos)
		if (got == NamesState([]string{"preset.ts"}, "preset", tc.goos)) != tc.same {
			t.Errorf("%s: %v with prefix preset: same state = %v, want %v", tc.goos, tc.names, !tc.same, tc.same)
		}
	}
}

// TestCurrent: each kind of dependency read back, and the environment's
// names matched as the system does.
func TestCurrent(t *testing.T) {
	t.Parallel()
	dir := testdir.New(t)
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"Path=/bin", "MODE=", "X=1"}
	for _, tc := range []struct {
		dep  Dep
		goos string
		want string
	}{
		{Dep{Kind: KindFile, Path: file}, "linux", ContentState([]byte("a"))},
		{Dep{Kind: KindFile, Path: filepath.Join(dir, "none")}, "linux", Absent},
		{Dep{Kind: KindFile, Path: filepath.Join(file, "below")}, "linux", Absent},
		{Dep{Kind: KindFile, Path: dir}, "linux", Other},
		{Dep{Kind: KindList, Path: dir}, "linux", NamesState([]string{"a.txt"}, "", "linux")},
		{Dep{Kind: KindList, Path: dir, Prefix: "b"}, "linux", NamesState(nil, "", "linux")},
		{Dep{Kind: KindList, Path: filepath.Join(dir, "none")}, "linux", Absent},
		{Dep{Kind: KindStat, Path: dir}, "linux", "dir"},
		{Dep{Kind: KindStat, Path: file}, "linux", "file"},
		{Dep{Kind: KindLstat, Path: filepath.Join(dir, "none")}, "linux", Absent},
		{Dep{Kind: KindEnv, Path: "MODE"}, "linux", "="},
		{Dep{Kind: KindEnv, Path: "UNSET"}, "linux", ""},
		{Dep{Kind: KindEnv, Path: "PATH"}, "linux", ""},
		{Dep{Kind: KindEnv, Path: "PATH"}, "windows", "=/bin"},
		{Dep{Kind: KindEnviron}, "linux", EnvironState([]string{"X=1", "MODE=", "Path=/bin"})},
	} {
		if got := Current(tc.dep, tc.goos, env); got != tc.want {
			t.Errorf("Current(%+v, %s) = %q, want %q", tc.dep, tc.goos, got, tc.want)
		}
	}
	deps := []Dep{{Kind: KindEnv, Path: "X", State: "=1"}, {Kind: KindFile, Path: file, State: ContentState([]byte("a"))}}
	if d := Changed(deps, "linux", env); d != nil {
		t.Errorf("Changed = %+v, want nil", d)
	}
	if d := Changed(deps, "linux", []string{"X=2"}); d == nil || d.Path != "X" {
		t.Errorf("Changed after X changed = %+v", d)
	}
}
