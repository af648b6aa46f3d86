package nodeprog

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/testdir"
)

// fakeShim is a version manager's shim as each of them resolves node's
// version, in one script: the managers' variables first, then the pin
// files of the directory and those above it (.tool-versions, .nvmrc,
// .node-version, mise.toml, package.json's "node"), then the global
// defaults (~/.tool-versions, mise's config, volta's platform.json, nvm's
// default alias); a pin without a dot ("20") picks the newest installed
// version it matches, as mise does. Each start is counted in $CALLS.
const fakeShim = `#!/bin/sh
echo x >> "$CALLS"
for var in ASDF_NODEJS_VERSION MISE_NODE_VERSION FNM_NODE_VERSION VOLTA_NODE_VERSION; do
  eval "x=\${$var:-}"
  if [ -n "$x" ]; then echo "v$x"; exit 0; fi
done
v=
d=$(pwd)
while :; do
  if [ -f "$d/.tool-versions" ]; then v=$(sed -n 's/^nodejs *//p' "$d/.tool-versions"); [ -n "$v" ] && break; fi
  if [ -f "$d/.nvmrc" ]; then v=$(cat "$d/.nvmrc"); break; fi
  if [ -f "$d/.node-version" ]; then v=$(cat "$d/.node-version"); break; fi
  if [ -f "$d/mise.toml" ]; then v=$(sed -n 's/^node *= *"\(.*\)"/\1/p' "$d/mise.toml"); [ -n "$v" ] && break; fi
  if [ -f "$d/package.json" ]; then v=$(sed -n 's/.*"node": *"\([0-9.]*\)".*/\1/p' "$d/package.json"); [ -n "$v" ] && break; fi
  [ "$d" = / ] && break
  d=$(dirname "$d")
done
[ -z "$v" ] && [ -f "$HOME/.tool-versions" ] && v=$(sed -n 's/^nodejs *//p' "$HOME/.tool-versions")
[ -z "$v" ] && [ -f "$HOME/.config/mise/config.toml" ] && v=$(sed -n 's/^node *= *"\(.*\)"/\1/p' "$HOME/.config/mise/config.toml")
[ -z "$v" ] && [ -f "$VOLTA_HOME/tools/user/platform.json" ] && v=$(sed -n 's/.*"runtime": *"\([0-9.]*\)".*/\1/p' "$VOLTA_HOME/tools/user/platform.json")
[ -z "$v" ] && [ -f "$NVM_DIR/alias/default" ] && v=$(cat "$NVM_DIR/alias/default")
case "$v" in
*.*) ;;
*) v=$(ls "$HOME/.local/share/mise/installs/node" | grep "^$v\." | sort | tail -n 1) ;;
esac
echo "v$v"
`

// mapMemo is a memo kept across the Finders of a test (one per "run").
type mapMemo struct {
	mu sync.Mutex
	m  map[string]string
}

func (m *mapMemo) NodeVersion(p Program) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	v, ok := m.m[p.ID]
	return v, ok
}

func (m *mapMemo) SetNodeVersion(p Program, v string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[p.ID] = v
}

// TestShimPins: behind a version manager's shim, a change of any pin (a
// pin file of the task's directory or above, a manager's variable, a
// global default, a newly installed version a fuzzy pin picks) gives the
// version the shim now runs, and nothing changed is the memo's answer,
// without starting node.
func TestShimPins(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake shim is a shell script")
	}
	write := func(t *testing.T, p, s string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name        string
		setup       map[string]string // files, from the test's directory ("home/" is HOME)
		env         []string
		change      map[string]string // files written between the runs
		changeEnv   []string
		remove      []string
		before, now string
	}{
		{name: "asdf .tool-versions of the project", setup: map[string]string{"ws/app/.tool-versions": "nodejs 18.19.0\n"},
			change: map[string]string{"ws/app/.tool-versions": "nodejs 20.11.0\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "nvm .nvmrc at the root", setup: map[string]string{"ws/.nvmrc": "18.19.0\n"},
			change: map[string]string{"ws/.nvmrc": "20.11.0\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: ".node-version", setup: map[string]string{"ws/.node-version": "18.19.0\n"},
			change: map[string]string{"ws/.node-version": "20.11.0\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "a pin file added nearer", setup: map[string]string{"ws/.nvmrc": "18.19.0\n"},
			change: map[string]string{"ws/app/.node-version": "20.11.0\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "a pin file removed", setup: map[string]string{"ws/.nvmrc": "18.19.0\n", "ws/app/.nvmrc": "20.11.0\n"},
			remove: []string{"ws/app/.nvmrc"}, before: "v20.11.0", now: "v18.19.0"},
		{name: "mise.toml", setup: map[string]string{"ws/mise.toml": "[tools]\nnode = \"18.19.0\"\n"},
			change: map[string]string{"ws/mise.toml": "[tools]\nnode = \"20.11.0\"\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "volta pin in package.json", setup: map[string]string{"ws/app/package.json": `{"name":"app","volta":{"node": "18.19.0"}}`},
			change: map[string]string{"ws/app/package.json": `{"name":"app","volta":{"node": "20.11.0"}}`}, before: "v18.19.0", now: "v20.11.0"},
		{name: "engines in package.json", setup: map[string]string{"ws/package.json": `{"engines":{"node": "18.19.0"}}`},
			change: map[string]string{"ws/package.json": `{"engines":{"node": "20.11.0"}}`}, before: "v18.19.0", now: "v20.11.0"},
		{name: "ASDF_NODEJS_VERSION", env: []string{"ASDF_NODEJS_VERSION=18.19.0"}, changeEnv: []string{"ASDF_NODEJS_VERSION=20.11.0"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "MISE_NODE_VERSION", env: []string{"MISE_NODE_VERSION=18.19.0"}, changeEnv: []string{"MISE_NODE_VERSION=20.11.0"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "FNM_NODE_VERSION", env: []string{"FNM_NODE_VERSION=18.19.0"}, changeEnv: []string{"FNM_NODE_VERSION=20.11.0"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "global ~/.tool-versions", setup: map[string]string{"home/.tool-versions": "nodejs 18.19.0\n"},
			change: map[string]string{"home/.tool-versions": "nodejs 20.11.0\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "global mise config", setup: map[string]string{"home/.config/mise/config.toml": "[tools]\nnode = \"18.19.0\"\n"},
			change: map[string]string{"home/.config/mise/config.toml": "[tools]\nnode = \"20.11.0\"\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "volta default platform", setup: map[string]string{"home/.volta/tools/user/platform.json": `{"node":{"runtime": "18.19.0"}}`},
			change: map[string]string{"home/.volta/tools/user/platform.json": `{"node":{"runtime": "20.11.0"}}`}, before: "v18.19.0", now: "v20.11.0"},
		{name: "nvm default alias", setup: map[string]string{"home/.nvm/alias/default": "18.19.0\n"},
			change: map[string]string{"home/.nvm/alias/default": "20.11.0\n"}, before: "v18.19.0", now: "v20.11.0"},
		{name: "a fuzzy pin and a newer install", setup: map[string]string{"ws/.tool-versions": "nodejs 20\n", "home/.local/share/mise/installs/node/20.10.0/x": ""},
			change: map[string]string{"home/.local/share/mise/installs/node/20.11.0/x": ""}, before: "v20.10.0", now: "v20.11.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := testdir.New(t)
			shims := filepath.Join(top, "home/.asdf/shims")
			os.MkdirAll(shims, 0o755)
			if err := os.WriteFile(filepath.Join(shims, "node"), []byte(fakeShim), 0o755); err != nil {
				t.Fatal(err)
			}
			for p, s := range tt.setup {
				write(t, filepath.Join(top, p), s)
			}
			dir := filepath.Join(top, "ws/app")
			os.MkdirAll(dir, 0o755)
			calls := filepath.Join(top, "calls")
			home := filepath.Join(top, "home")
			base := []string{"PATH=" + shims + ":/usr/bin:/bin", "HOME=" + home, "CALLS=" + calls,
				"VOLTA_HOME=" + filepath.Join(home, ".volta"), "NVM_DIR=" + filepath.Join(home, ".nvm")}
			env := append(append([]string{}, base...), tt.env...)
			memo := &mapMemo{m: map[string]string{}}
			count := func() int {
				b, _ := os.ReadFile(calls)
				return strings.Count(string(b), "x")
			}
			run := func(env []string) string {
				f := &Finder{Memo: memo}
				p, ok := f.Find(env, dir)
				if !ok || !p.Shim {
					t.Fatalf("Find: %+v, %v; want the shim", p, ok)
				}
				return f.Version(env, dir)
			}
			if v := run(env); v != tt.before {
				t.Fatalf("first run: %q, want %q", v, tt.before)
			}
			if v := run(env); v != tt.before || count() != 1 {
				t.Fatalf("second run: %q with node started %d times, want %q once", v, count(), tt.before)
			}
			for p, s := range tt.change {
				write(t, filepath.Join(top, p), s)
			}
			for _, p := range tt.remove {
				os.Remove(filepath.Join(top, p))
			}
			if tt.changeEnv != nil {
				env = append(append([]string{}, base...), tt.changeEnv...)
			}
			if v := run(env); v != tt.now {
				t.Errorf("after the change: %q, want %q", v, tt.now)
			}
		})
	}
}

// TestShimSharedPins: projects whose pins are alike (the same files,
// contents and levels above them) share one start of node; one with its
// own pin gets its own.
func TestShimSharedPins(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake shim is a shell script")
	}
	top := testdir.New(t)
	shims := filepath.Join(top, "shims")
	os.MkdirAll(shims, 0o755)
	os.WriteFile(filepath.Join(shims, "node"), []byte(fakeShim), 0o755)
	os.WriteFile(filepath.Join(top, ".nvmrc"), []byte("20.11.0\n"), 0o644)
	for _, p := range []string{"a", "b", "c", "d"} {
		os.MkdirAll(filepath.Join(top, "packages", p), 0o755)
		os.WriteFile(filepath.Join(top, "packages", p, "package.json"), []byte(`{"name":"`+p+`","engines":{"npm":">=9"}}`), 0o644)
	}
	os.WriteFile(filepath.Join(top, "packages/d/.nvmrc"), []byte("18.19.0\n"), 0o644)
	calls := filepath.Join(top, "calls")
	env := []string{"PATH=" + shims + ":/usr/bin:/bin", "HOME=" + top, "CALLS=" + calls}
	f := &Finder{}
	got := map[string]string{}
	for _, p := range []string{"a", "b", "c", "d"} {
		got[p] = f.Version(env, filepath.Join(top, "packages", p))
	}
	want := map[string]string{"a": "v20.11.0", "b": "v20.11.0", "c": "v20.11.0", "d": "v18.19.0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("versions (-want +got):\n%s", d)
	}
	b, _ := os.ReadFile(calls)
	if n := strings.Count(string(b), "x"); n != 2 {
		t.Errorf("node started %d times for 4 projects with two kinds of pins, want 2", n)
	}
}

// TestClassify: a node binary is known by its name, its magic and its
// place; anything else is a shim.
func TestClassify(t *testing.T) {
	top := testdir.New(t)
	elf := "\x7fELF rest of a binary"
	tests := []struct {
		name     string
		file     string // the file, from top
		content  string
		link     string // when set, PATH's node is a link to file at this path
		goos     string
		wantShim bool
	}{
		{name: "an ELF node binary", file: "opt/node/bin/node", content: elf},
		{name: "a Mach-O node binary", file: "usr/local/bin/node", content: "\xcf\xfa\xed\xfe..."},
		{name: "nvm's versioned node, linked", file: "nvm/versions/node/v20.1.0/bin/node", content: elf, link: "nvmbin/node"},
		{name: "a script", file: "bin1/node", content: "#!/bin/sh\nexec /opt/node \"$@\"\n", wantShim: true},
		{name: "asdf's shims", file: "asdf/shims/node", content: elf, wantShim: true},
		{name: "volta's shim binary", file: "volta/bin/volta-shim", content: elf, link: "volta/bin2/node", wantShim: true},
		{name: "mise's shims, links to mise", file: "mise/bin/mise", content: elf, link: "mise/shims/node", wantShim: true},
		{name: "a Windows node.exe", file: "win/node.exe", content: "MZ\x90\x00", goos: "windows"},
		{name: "Volta's node.exe on Windows", file: "Volta/bin/node.exe", content: "MZ\x90\x00", goos: "windows", wantShim: true},
		{name: "Volta's node.exe in Program Files", file: "Program Files/Volta/node.exe", content: "MZ\x90\x00", goos: "windows", wantShim: true},
		{name: "Volta's real node.exe", file: "AppData/Local/Volta/tools/image/node/20.1.0/node.exe", content: "MZ\x90\x00", goos: "windows"},
		{name: "Chocolatey's shim", file: "ProgramData/chocolatey/bin/node.exe", content: "MZ\x90\x00", goos: "windows", wantShim: true},
		{name: "scoop's shim", file: "scoop/shims/node.exe", content: "MZ\x90\x00", goos: "windows", wantShim: true},
		{name: "volta's real node", file: "home/.volta/tools/image/node/20.1.0/bin/node", content: elf},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(top, filepath.FromSlash(tt.file))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(tt.content), 0o755); err != nil {
				t.Fatal(err)
			}
			path := p
			if tt.link != "" {
				if runtime.GOOS == "windows" {
					t.Skip("symbolic links")
				}
				path = filepath.Join(top, filepath.FromSlash(tt.link))
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.Symlink(p, path); err != nil {
					t.Fatal(err)
				}
			}
			goos := tt.goos
			if goos == "" {
				goos = runtime.GOOS
			}
			if k := classify(path, goos); k.err != nil || k.shim != tt.wantShim {
				t.Errorf("classify(%s): shim %v (%v), want %v", tt.link+tt.file, k.shim, k.err, tt.wantShim)
			}
		})
	}
}

// TestBinaryIdentity: a node binary's ID changes when the file does, and
// not with the directory or the pins.
func TestBinaryIdentity(t *testing.T) {
	bin := testdir.New(t)
	node := filepath.Join(bin, "node")
	if runtime.GOOS == "windows" {
		node += ".exe"
	}
	os.WriteFile(node, []byte("\x7fELF version 1"), 0o755)
	os.WriteFile(filepath.Join(bin, ".nvmrc"), []byte("18\n"), 0o644)
	env := []string{"PATH=" + bin, "PATHEXT=.EXE"}
	f := &Finder{}
	p1, ok := f.Find(env, bin)
	p2, _ := (&Finder{}).Find(env, testdir.New(t))
	if !ok || p1.Shim || p1.ID != p2.ID {
		t.Fatalf("Find: %+v, %v and %+v: want one binary's identity", p1, ok, p2)
	}
	os.WriteFile(node, []byte("\x7fELF version 2, longer"), 0o755)
	if p3, _ := (&Finder{}).Find(env, bin); p3.ID == p1.ID {
		t.Error("the binary was replaced and its identity stayed")
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{"v20.1.0\n": "v20.1.0", "warning: x\nv18.0.0\n": "v18.0.0", "": "", "mise ERROR untrusted\n": ""} {
		if got := parseVersion(in); got != want {
			t.Errorf("parseVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReset: a Finder reset for a new run (vx watch's next batch) reads
// the pins anew; one not reset keeps what it read.
func TestReset(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake shim is a shell script")
	}
	top := testdir.New(t)
	shims := filepath.Join(top, "shims")
	os.MkdirAll(shims, 0o755)
	os.WriteFile(filepath.Join(shims, "node"), []byte(fakeShim), 0o755)
	os.WriteFile(filepath.Join(top, ".nvmrc"), []byte("18.19.0\n"), 0o644)
	env := []string{"PATH=" + shims + ":/usr/bin:/bin", "HOME=" + top, "CALLS=" + filepath.Join(top, "calls")}
	f := &Finder{}
	if v := f.Version(env, top); v != "v18.19.0" {
		t.Fatalf("version %q", v)
	}
	os.WriteFile(filepath.Join(top, ".nvmrc"), []byte("20.11.0\n"), 0o644)
	if v := f.Version(env, top); v != "v18.19.0" {
		t.Errorf("within one run: %q, want what the run read first", v)
	}
	f.Reset(nil)
	if v := f.Version(env, top); v != "v20.11.0" {
		t.Errorf("after Reset: %q, want v20.11.0", v)
	}
}
