package guard

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"

	"github.com/google/go-cmp/cmp"
)

// workspaces makes a workspace root, a second workspace and a symlink to the
// first in a fresh directory, and returns their absolute paths.
//
// link is "" when this system cannot make symlinks: Windows without the
// privilege, or Wine 8, whose os.Symlink reports success and creates nothing.
func workspaces(t *testing.T) (base, root, other, link string) {
	t.Helper()
	base = testdir.New(t)
	root = filepath.Join(base, "ws")
	other = filepath.Join(base, "other")
	for _, d := range []string{root, other, filepath.Join(root, "packages", "web")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link = filepath.Join(base, "link")
	if err := os.Symlink(root, link); err != nil {
		return base, root, other, ""
	}
	if _, err := os.Lstat(link); err != nil {
		return base, root, other, ""
	}
	return base, root, other, link
}

func TestCheck(t *testing.T) {
	t.Parallel()
	base, root, other, link := workspaces(t)
	nested := &NestedError{Workspace: root, Task: "web#build"}
	noLink := ""
	if link == "" {
		noLink = "this system cannot create symlinks (Windows without the privilege, or Wine, whose os.Symlink creates nothing)"
	}
	tests := []struct {
		name  string
		root  string
		outer string
		task  string
		want  *NestedError
		skip  string
	}{
		{name: "unset", root: root, outer: "", task: "web#build", want: nil},
		{name: "unset with a stray task", root: root, outer: "", task: "", want: nil},
		{name: "same directory", root: root, outer: root, task: "web#build", want: nested},
		{name: "same directory, task unknown", root: root, outer: root, task: "",
			want: &NestedError{Workspace: root}},
		{name: "same directory spelled with a trailing separator", root: root,
			outer: root + string(filepath.Separator), task: "web#build", want: nested},
		{name: "same directory through dot-dot", root: root,
			outer: filepath.Join(root, "packages") + string(filepath.Separator) + "..", task: "web#build", want: nested},
		{name: "outer through a symlink", root: root, outer: link, task: "web#build", want: nested,
			skip: noLink},
		{name: "root through a symlink", root: link, outer: root, task: "web#build",
			want: &NestedError{Workspace: link, Task: "web#build"},
			skip: noLink},
		{name: "a project directory is not the workspace", root: root,
			outer: filepath.Join(root, "packages", "web"), task: "web#build", want: nil},
		{name: "another workspace", root: root, outer: other, task: "api#build", want: nil},
		{name: "parent directory", root: root, outer: base, task: "web#build", want: nil},
		{name: "stale value naming a missing directory", root: root,
			outer: filepath.Join(base, "gone"), task: "web#build", want: nil},
		{name: "stale value naming a file", root: root,
			outer: filepath.Join(base, "ws-file"), task: "web#build", want: nil},
		{name: "both missing but spelled alike", root: filepath.Join(base, "gone"),
			outer: filepath.Join(base, "gone"), task: "web#build",
			want: &NestedError{Workspace: filepath.Join(base, "gone"), Task: "web#build"}},
	}
	if err := os.WriteFile(filepath.Join(base, "ws-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.skip != "" {
				t.Skip(tt.skip)
			}
			err := Check(tt.root, tt.outer, tt.task)
			var got *NestedError
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("Check(%q, %q, %q) = %v, want nil or *NestedError", tt.root, tt.outer, tt.task, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Check(%q, %q, %q) mismatch (-want +got):\n%s", tt.root, tt.outer, tt.task, diff)
			}
		})
	}
}

// TestCheckRelative covers relative values: both sides are resolved against
// the current directory before they are compared.
func TestCheckRelative(t *testing.T) {
	base, root, other, _ := workspaces(t)
	t.Chdir(base)
	tests := []struct {
		name      string
		root      string
		outer     string
		wantBlock bool
	}{
		{name: "relative outer, absolute root", root: root, outer: "ws", wantBlock: true},
		{name: "dot-relative outer", root: root, outer: "." + string(filepath.Separator) + "ws", wantBlock: true},
		{name: "relative root, absolute outer", root: "ws", outer: root, wantBlock: true},
		{name: "relative outer naming another workspace", root: root, outer: "other", wantBlock: false},
		{name: "relative outer that is missing", root: root, outer: "gone", wantBlock: false},
		{name: "absolute other, relative root", root: "ws", outer: other, wantBlock: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.root, tt.outer, "web#build")
			var ne *NestedError
			if got := errors.As(err, &ne); got != tt.wantBlock {
				t.Fatalf("Check(%q, %q) = %v, want blocked=%v", tt.root, tt.outer, err, tt.wantBlock)
			}
			if ne != nil && !filepath.IsAbs(ne.Workspace) {
				t.Errorf("NestedError.Workspace = %q, want an absolute path", ne.Workspace)
			}
		})
	}
}

// TestCheckCase: on Windows a differently-cased spelling is the same
// directory; on a case-sensitive file system it is a missing one.
func TestCheckCase(t *testing.T) {
	t.Parallel()
	_, root, _, _ := workspaces(t)
	upper := strings.ToUpper(root)
	if upper == root {
		t.Skip("the temporary directory has no lower-case letters")
	}
	err := Check(root, upper, "web#build")
	switch _, statErr := os.Stat(upper); {
	case runtime.GOOS == "windows":
		var ne *NestedError
		if !errors.As(err, &ne) {
			t.Errorf("Check(%q, %q) = %v, want *NestedError on Windows", root, upper, err)
		}
	case statErr != nil:
		if err != nil {
			t.Errorf("Check(%q, %q) = %v, want nil on a case-sensitive file system", root, upper, err)
		}
	default:
		t.Skip("case-insensitive file system that is not Windows: nothing to compare")
	}
}

func TestNestedErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *NestedError
		want string
	}{
		{
			name: "with task",
			err:  &NestedError{Workspace: "/abs/root", Task: "web#build"},
			want: `refusing to run inside task "web#build" of the same workspace "/abs/root"; ` +
				`a script that calls vx run on its own workspace would recurse: declare the task in "dependsOn" in vx.json instead`,
		},
		{
			name: "task unknown",
			err:  &NestedError{Workspace: "/abs/root"},
			want: `refusing to run inside a task of the same workspace "/abs/root"; ` +
				`a script that calls vx run on its own workspace would recurse: declare the task in "dependsOn" in vx.json instead`,
		},
		{
			name: "windows path keeps single backslashes",
			err:  &NestedError{Workspace: `C:\work\ws`, Task: "build"},
			want: `refusing to run inside task "build" of the same workspace "C:\work\ws"; ` +
				`a script that calls vx run on its own workspace would recurse: declare the task in "dependsOn" in vx.json instead`,
		},
		{
			name: "control characters escaped",
			err:  &NestedError{Workspace: "/tmp/a\nb", Task: "x#y"},
			want: `refusing to run inside task "x#y" of the same workspace "/tmp/a\nb"; ` +
				`a script that calls vx run on its own workspace would recurse: declare the task in "dependsOn" in vx.json instead`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.err.Error()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Error() mismatch (-want +got):\n%s", diff)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("Error() = %q, want one line", got)
			}
		})
	}
}

// TestCheckChain: a run is refused when its workspace is anywhere in the
// chain, not only last; a workspace nested inside a running one, or one
// not in the chain, runs.
func TestCheckChain(t *testing.T) {
	base, root, other, link := workspaces(t)
	nested := filepath.Join(root, "examples", "basic")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		root  string
		chain []string
		at    int // -1: allowed
	}{
		{"empty chain", root, nil, -1},
		{"direct parent", root, []string{other, root}, 1},
		{"further up", root, []string{root, other}, 0},
		{"stale entries do not block", root, []string{filepath.Join(base, "gone"), other}, -1},
		{"nested workspace runs", nested, []string{root, other}, -1},
		{"another workspace runs", other, []string{root}, -1},
		{"empty entries skipped", root, []string{"", other}, -1},
	}
	if link != "" {
		tests = append(tests, struct {
			name  string
			root  string
			chain []string
			at    int
		}{"through a symlink further up", root, []string{link, other}, 0})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckChain(tt.root, tt.chain, "b#build")
			var ne *NestedError
			if tt.at < 0 {
				if err != nil {
					t.Fatalf("CheckChain() = %v, want nil", err)
				}
				return
			}
			if !errors.As(err, &ne) || ne.At != tt.at {
				t.Fatalf("CheckChain() = %v, want a NestedError at %d", err, tt.at)
			}
			msg := err.Error()
			if tt.at < len(tt.chain)-1 && !strings.Contains(msg, "further up this chain") {
				t.Errorf("error %q does not name the chain", msg)
			}
		})
	}
}

func TestParseChain(t *testing.T) {
	tests := []struct {
		chain, ws string
		want      []string
	}{
		{"", "", nil},
		{"", "/a", []string{"/a"}},
		{"/a", "/a", []string{"/a"}},
		{"/a:/b", "/b", []string{"/a", "/b"}},
		{"/a:/b", "/c", []string{"/a", "/b", "/c"}},
		{"/a::/b:", "", []string{"/a", "/b"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, ParseChain(tt.chain, tt.ws, ":")); diff != "" {
			t.Errorf("ParseChain(%q, %q) mismatch (-want +got):\n%s", tt.chain, tt.ws, diff)
		}
	}
}
