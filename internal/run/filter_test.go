package run

import (
	"bufio"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/workspace"
)

// pnpmDiffers lists the rows of testdata/pnpm-filter/pnpm.txt where vx
// deliberately answers otherwise than pnpm, with the error vx gives. (A
// name or directory that matches no project is an error in vx and an
// empty selection in pnpm; the test accepts that everywhere.)
var pnpmDiffers = map[string]string{
	// pnpm drops "..." and "^" around a ./path and selects the project
	// alone; vx says how to write what was meant.
	"./packages/kit...": `pnpm ignores "..." and "^" around a ./path; write {./packages/kit} instead`,
	"...^.":             `pnpm ignores "..." and "^" around a ./path; write {.} instead`,
}

// TestFilterAgainstPnpm checks vx's selection against what pnpm selected
// for the same filters in the same workspace and git history, as recorded
// by testdata/pnpm-filter/oracle.js.
func TestFilterAgainstPnpm(t *testing.T) {
	src := filepath.Join("testdata", "pnpm-filter")
	root := filepath.Join(testdir.New(t), "ws")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(src, "ws"))); err != nil {
		t.Fatal(err)
	}
	haveGit := gitScenario(t, src, root)
	rows := readOracle(t, filepath.Join(src, "pnpm.txt"))
	if len(rows) < 50 {
		t.Fatalf("pnpm.txt has %d rows; regenerate it with oracle.js", len(rows))
	}
	for _, r := range rows {
		t.Run(r.cwd+" "+r.filters, func(t *testing.T) {
			if strings.Contains(r.filters, "[") && !haveGit {
				t.Skip("needs git and sh to build the repository's history")
			}
			dir := filepath.Join(root, filepath.FromSlash(r.cwd))
			ws, err := workspace.Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			sel := Selection{Filters: strings.Fields(r.filters), Dir: dir, GOOS: runtime.GOOS, Git: NewGit(os.Environ())}
			got, err := selectProjects(ws, sel)
			if want, ok := pnpmDiffers[r.filters]; ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("selectProjects() error = %v, want one containing %q", err, want)
				}
				return
			}
			if err != nil {
				if (r.want == "-" && strings.Contains(err.Error(), "matches no project")) || r.want == "error" {
					return
				}
				t.Fatalf("selectProjects() error = %v; pnpm selects %s", err, r.want)
			}
			if r.want == "error" {
				t.Fatalf("selectProjects() = %s; pnpm refuses the filter", relDirs(got.projects))
			}
			if diff := cmp.Diff(r.want, relDirs(got.projects)); diff != "" {
				t.Errorf("selection differs from pnpm's (-pnpm +vx):\n%s", diff)
			}
		})
	}
}

type oracleRow struct{ cwd, filters, want string }

func readOracle(t *testing.T, file string) []oracleRow {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []oracleRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() == "" || strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < 3 {
			t.Fatalf("%s: bad row %q", file, sc.Text())
		}
		rows = append(rows, oracleRow{cols[0], cols[1], cols[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// gitScenario runs scenario.sh on the copy at root; false when git or sh
// is missing.
func gitScenario(t *testing.T, src, root string) bool {
	t.Helper()
	for _, prog := range []string{"git", "sh"} {
		if _, err := osexec.LookPath(prog); err != nil {
			t.Logf("no %s: the [ref] rows are skipped", prog)
			return false
		}
	}
	script, err := filepath.Abs(filepath.Join(src, "scenario.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := osexec.Command("sh", script, root).CombinedOutput(); err != nil {
		t.Fatalf("scenario.sh: %v\n%s", err, out)
	}
	return true
}

// relDirs renders projects as pnpm.txt does: sorted slash paths relative to
// the root, "-" for none.
func relDirs(ps []*workspace.Project) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.RelDir)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, " ")
}

func TestParseSelector(t *testing.T) {
	tests := []struct {
		raw     string
		want    selector
		wantErr string
	}{
		{raw: "web", want: selector{name: "web"}},
		{raw: "@scope/*", want: selector{name: "@scope/*"}},
		{raw: "web...", want: selector{name: "web", dependencies: true}},
		{raw: "web^...", want: selector{name: "web", dependencies: true, excludeSelf: true}},
		{raw: "...web", want: selector{name: "web", dependents: true}},
		{raw: "...^web", want: selector{name: "web", dependents: true, excludeSelf: true}},
		{raw: "...web...", want: selector{name: "web", dependents: true, dependencies: true}},
		{raw: "!web", want: selector{name: "web", exclude: true}},
		{raw: "./apps/web", want: selector{dir: "./apps/web"}},
		{raw: ".", want: selector{dir: "."}},
		{raw: "..", want: selector{dir: ".."}},
		{raw: `..\apps`, want: selector{dir: `..\apps`}},
		{raw: "!./apps/*", want: selector{dir: "./apps/*", exclude: true}},
		{raw: "{apps/**}", want: selector{dir: "apps/**"}},
		{raw: "@acme/*{packages/**}", want: selector{name: "@acme/*", dir: "packages/**"}},
		{raw: "[origin/main]", want: selector{ref: "origin/main"}},
		{raw: "...[origin/main]", want: selector{ref: "origin/main", dependents: true}},
		{raw: "{packages}[HEAD~2]...", want: selector{dir: "packages", ref: "HEAD~2", dependencies: true}},
		{raw: "web{apps/*}[main]", want: selector{name: "web", dir: "apps/*", ref: "main"}},
		{raw: "...", wantErr: "it names no project"},
		{raw: "!", wantErr: "it names no project"},
		{raw: "./apps/web...", wantErr: `write {./apps/web} instead, e.g. --filter "{./apps/web}..."`},
		{raw: "...^.", wantErr: `write {.} instead, e.g. --filter "...^{.}"`},
		{raw: "{}", wantErr: "a {dir} needs a directory"},
		{raw: "{apps", wantErr: "a {dir} needs a directory and a closing }"},
		{raw: "[]", wantErr: "a [ref] needs a git ref"},
		{raw: "[--output=x]", wantErr: `a git ref cannot start with "-"`},
		{raw: "web[main]x", wantErr: `"x" is not understood`},
		{raw: "[main]{apps}", wantErr: `"{apps}" is not understood`},
		{raw: ".hidden", wantErr: `a name cannot start with "."`},
		{raw: "a}b", wantErr: "a name cannot hold } or ]"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := parseSelector(tt.raw)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseSelector(%q) error = %v, want one containing %q", tt.raw, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.raw = tt.raw
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(selector{})); diff != "" {
				t.Errorf("parseSelector(%q) mismatch (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"web", "web", true},
		{"web", "webx", false},
		{"*", "@scope/web", true},
		{"@scope/*", "@scope/web", true},
		{"@scope/*", "@other/web", false},
		{"w?b", "web", true},
		{"w?b", "wb", false},
		{"*-app", "my-app", true},
		{"*-app", "my-apps", false},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"", "", true},
		{"", "a", false},
		{"**", "", true},
		// Characters, not bytes.
		{"caf?", "café", true},
		{"caf??", "café", false},
		{"?", "é", true},
		{"?", "日", true},
		{"??", "日", false},
		{"*é", "café", true},
		{"*?", "日本", true},
		{"日*語", "日本語", true},
		{"é", "e", false},
		{"*x", "ééx", true},
		{"*x", "ééy", false},
	}
	for _, tt := range tests {
		if got := globMatch(tt.pattern, tt.name); got != tt.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// TestFilterThroughSymlink: vx started in a directory reached through a
// symbolic link (macOS /tmp and /var are links) finds the projects of
// ./path and . by their real paths, on both sides.
func TestFilterThroughSymlink(t *testing.T) {
	ws := testWorkspace(t, "root::build", "a::build", "b::build")
	link := filepath.FromSlash("/link")
	real := map[string]string{
		filepath.Join(link, "packages", "b"): filepath.Join(ws.Root, "packages", "b"),
		link:                                 ws.Root,
	}
	realPath := func(p string) (string, error) {
		if r, ok := real[p]; ok {
			return r, nil
		}
		return p, nil
	}
	tests := []struct {
		dir, filter, want string
	}{
		{filepath.Join(link, "packages", "b"), ".", "packages/b"},
		{filepath.Join(link, "packages", "b"), "../a", "packages/a"},
		{link, "./packages/*", "packages/a packages/b"},
		{link, "{packages/b}", "packages/b"},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			got, err := selectProjects(ws, Selection{Filters: []string{tt.filter}, Dir: tt.dir, RealPath: realPath})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, relDirs(got.projects)); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilterSuggestion: a --filter name that matches no project gets the
// closest project name, with the selector's operators kept; a glob, a
// directory or a name nothing is close to gets none.
func TestFilterSuggestion(t *testing.T) {
	ws := testWorkspace(t, "root", "web::build", "@acme/utils::build", "@acme/ui::build", "@other/ui::build", "docs::build")
	tests := []struct {
		filter string
		want   string // the error
	}{
		{"wbe", `--filter "wbe" matches no project; did you mean --filter "web"? vx ls lists the projects`},
		{"Web", `--filter "Web" matches no project; did you mean --filter "web"? vx ls lists the projects`},
		{"wbe...", `--filter "wbe..." matches no project; did you mean --filter "web..."? vx ls lists the projects`},
		{"...^wbe", `--filter "...^wbe" matches no project; did you mean --filter "...^web"? vx ls lists the projects`},
		{"@acme/utlis", `--filter "@acme/utlis" matches no project; did you mean --filter "@acme/utils"? vx ls lists the projects`},
		// the part after the scope, as --filter utils selects @acme/utils
		{"utlis", `--filter "utlis" matches no project; did you mean --filter "utils"? vx ls lists the projects`},
		// two scopes have ui: "ui" alone selects neither, so it is no suggestion
		{"uu", `--filter "uu" matches no project; run vx ls to see the projects`},
		{"zzz", `--filter "zzz" matches no project; run vx ls to see the projects`},
		{"wb*x", `--filter "wb*x" matches no project; run vx ls to see the projects`},
		{"./packages/wbe", `--filter "./packages/wbe" matches no project; run vx ls to see the projects`},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			_, err := Plan(ws, mustConfig(t, "{}"), Selection{Tasks: []string{"build"}, Filters: []string{tt.filter}, Dir: ws.Root})
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
