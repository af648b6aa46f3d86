package exec

import (
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// envDump is what the "env-dump" helper child prints: its whole environment
// and, for each name given as an argument, what the operating system's own
// lookup (os.LookupEnv, GetEnvironmentVariable on Windows) returns.
type envDump struct {
	Environ []string
	Lookups map[string]*string // nil when the name is not set
}

func init() {
	registerHelper("env-dump", func(args []string) int {
		d := envDump{Environ: os.Environ(), Lookups: map[string]*string{}}
		for _, name := range args {
			if v, ok := os.LookupEnv(name); ok {
				d.Lookups[name] = &v
			} else {
				d.Lookups[name] = nil
			}
		}
		if err := json.NewEncoder(os.Stdout).Encode(d); err != nil {
			return 1
		}
		return 0
	})
}

// runEnvChild starts the test binary as a child with exactly env plus the
// helper selector, and returns what the child saw.
func runEnvChild(t *testing.T, env []string, lookups ...string) envDump {
	t.Helper()
	cmd := osexec.Command(os.Args[0], lookups...)
	cmd.Env = append(slices.Clip(env), helperEnv+"=env-dump")
	cmd.Stderr = new(strings.Builder)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("env-dump child: %v; stderr:\n%s", err, cmd.Stderr)
	}
	var d envDump
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatalf("env-dump child output: %v:\n%s", err, out)
	}
	return d
}

// envWineExtra reports whether Wine adds the variable named name to every
// Windows child, whatever Cmd.Env says (see ../shared/wine/README.md).
func envWineExtra(name string) bool {
	u := strings.ToUpper(name)
	return strings.HasPrefix(u, "WINE") || u == "SYSTEMDRIVE" || u == "SYSTEMROOT"
}

func TestChildReceivesExactlyTheBuiltEnv(t *testing.T) {
	// The parent holds secrets and undeclared variables; the child must
	// see none of them.
	t.Setenv("AWS_SECRET_ACCESS_KEY", "parent-secret")
	t.Setenv("GITHUB_TOKEN", "ghp_parent")
	t.Setenv("NPM_TOKEN", "npm_parent")
	t.Setenv("VX_TEST_UNDECLARED", "undeclared")
	t.Setenv("VX_TEST_PASSED", "passed = through")
	t.Setenv("VX_TEST_EMPTY", "")
	t.Setenv("HOME", envFakeDir("home"))
	bins := envFakeBins()

	parent := os.Environ()
	built := buildEnv(EnvOptions{
		Source:      parent,
		PassThrough: []string{"VX_TEST_PASSED", "VX_TEST_EMPTY", "VX_TEST_MISSING"},
		Define:      map[string]string{"VX_TEST_DEFINED": "a b=c", "NODE_ENV": "test"},
		BinPaths:    bins,
	}).sorted()
	// Sanity of the input: the parent really holds what must not pass.
	for _, name := range []string{"AWS_SECRET_ACCESS_KEY", "VX_TEST_UNDECLARED"} {
		if _, ok := LookupEnv(parent, name, ""); !ok {
			t.Fatalf("parent env lacks %s", name)
		}
	}

	d := runEnvChild(t, built)
	want := append(slices.Clone(built), helperEnv+"=env-dump")
	got := d.Environ
	if runtime.GOOS == "windows" {
		// Wine adds its own variables; the block order is not ours to
		// keep there, so compare as sets.
		got = slices.DeleteFunc(slices.Clone(got), func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			if !envWineExtra(name) {
				return false
			}
			if _, built := LookupEnv(want, name, "windows"); built {
				return false
			}
			t.Logf("tolerated Wine extra %q", kv)
			return true
		})
		slices.Sort(got)
		slices.Sort(want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("child env mismatch (-want +got):\n%s", diff)
	}
	for _, name := range []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "NPM_TOKEN", "VX_TEST_UNDECLARED", "VX_TEST_MISSING"} {
		if v, ok := LookupEnv(d.Environ, name, ""); ok {
			t.Errorf("child sees %s=%q, want it absent", name, v)
		}
	}
	for name, wantV := range map[string]string{"VX_TEST_PASSED": "passed = through", "VX_TEST_EMPTY": "", "VX_TEST_DEFINED": "a b=c"} {
		if v, ok := LookupEnv(d.Environ, name, ""); !ok || v != wantV {
			t.Errorf("child sees %s = %q, %v, want %q, true", name, v, ok, wantV)
		}
	}
	path, _ := LookupEnv(d.Environ, "PATH", "")
	if prefix := strings.Join(bins, string(os.PathListSeparator)) + string(os.PathListSeparator); !strings.HasPrefix(path, prefix) {
		t.Errorf("child PATH = %q, want prefix %q", path, prefix)
	}
}

// TestEnvWindowsChildSeesEssentials runs only as a Windows binary (under Wine
// on Linux, see .ci/run): a real Windows child must find PATH under the
// parent's spelling with the bins in front, and SystemRoot, ComSpec and
// PATHEXT, through the system's own case-insensitive lookup.
func TestEnvWindowsChildSeesEssentials(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("needs a real Windows child process")
	}
	t.Setenv("GITHUB_TOKEN", "ghp_parent")
	parent := os.Environ()
	pathName := ""
	for _, kv := range parent {
		if name, _, _ := strings.Cut(kv, "="); strings.EqualFold(name, "PATH") {
			pathName = name
		}
	}
	if pathName == "" {
		t.Fatal("parent env has no PATH")
	}
	t.Logf("parent spells PATH %q", pathName)
	bins := envFakeBins()
	built := buildEnv(EnvOptions{Source: parent, BinPaths: bins}).sorted()

	names := []string{"PATH", "SYSTEMROOT", "COMSPEC", "PATHEXT", "GITHUB_TOKEN"}
	d := runEnvChild(t, built, names...)

	// One PATH entry, spelled as the parent spells it, bins in front.
	var paths []string
	for _, kv := range d.Environ {
		if name, _, _ := strings.Cut(kv, "="); strings.EqualFold(name, "PATH") {
			paths = append(paths, kv)
		}
	}
	parentPath, _ := LookupEnv(parent, "PATH", "windows")
	wantPath := pathName + "=" + strings.Join(bins, ";") + ";" + parentPath
	if diff := cmp.Diff([]string{wantPath}, paths); diff != "" {
		t.Errorf("child PATH entries mismatch (-want +got):\n%s", diff)
	}
	// The system's lookup finds each essential with the parent's value.
	for _, name := range names[1:4] {
		want, ok := LookupEnv(parent, name, "windows")
		if !ok {
			t.Errorf("parent env has no %s", name)
			continue
		}
		if got := d.Lookups[name]; got == nil || *got != want {
			t.Errorf("child os.LookupEnv(%q) = %v, want %q", name, envDeref(got), want)
		}
	}
	if got := d.Lookups["PATH"]; got == nil || !strings.HasPrefix(*got, strings.Join(bins, ";")+";") {
		t.Errorf("child os.LookupEnv(\"PATH\") = %v, want the bins in front", envDeref(got))
	}
	if got := d.Lookups["GITHUB_TOKEN"]; got != nil {
		t.Errorf("child os.LookupEnv(\"GITHUB_TOKEN\") = %q, want unset", *got)
	}
}

// envFakeDir returns an absolute path that need not exist: the child only
// prints its env. (Real directories would need t.TempDir, whose cleanup
// fails under Wine.)
func envFakeDir(elem ...string) string {
	root := string(filepath.Separator)
	if runtime.GOOS == "windows" {
		root = `C:\`
	}
	return filepath.Join(append([]string{root, "vx-env-test"}, elem...)...)
}

func envFakeBins() []string {
	return []string{
		envFakeDir("w", "packages", "web", "node_modules", ".bin"),
		envFakeDir("w", "node_modules", ".bin"),
	}
}

// TestEnvWindowsNameRuleMatchesSystem checks the naming rule of
// BuildIsolatedEnv against the system's own lookup (GetEnvironmentVariable):
// for each pair, setting the first name and looking up the second must
// succeed exactly when the rule says they are one variable.
func TestEnvWindowsNameRuleMatchesSystem(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("needs the Windows environment functions")
	}
	pairs := [][2]string{
		{"VX_Path_TEST", "VX_PATH_TEST"},
		{"vx_windir_test", "VX_WINDIR_TEST"},
		{"VX_été_TEST", "VX_ÉTÉ_TEST"},
		{"VX_ı_TEST", "VX_I_TEST"},      // dotless i is not I
		{"VX_ſ_TEST", "VX_S_TEST"},      // long s is not S
		{"VX_k_TEST", "VX_\u212a_TEST"}, // nor the Kelvin sign K
		{"VX_PATH_X_TEST", "VX_PATHEXT_TEST"},
	}
	for _, p := range pairs {
		set, look := p[0], p[1]
		t.Setenv(set, "v")
		_, got := os.LookupEnv(look)
		if want := EnvNameKey(set, "windows") == EnvNameKey(look, "windows"); got != want {
			t.Errorf("with %q set, the system finds %q: %v; the builder's rule says %v", set, look, got, want)
		}
		os.Unsetenv(set)
	}
}

func envDeref(p *string) string {
	if p == nil {
		return "<unset>"
	}
	return `"` + *p + `"`
}
