package cache

import (
	"bytes"
	"github.com/vxrun/vx/internal/testtool"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/testdir"
)

// TestInputWrittenWhileRunning: an input file given other content while
// the task ran is seen, and the result not stored; one rewritten with the
// same bytes (a generator whose output is committed: hono's ua-blocker
// prebuild) is stored, as is one left alone.
func TestInputWrittenWhileRunning(t *testing.T) {
	root := testdir.New(t)
	src := filepath.Join(root, "p/src/a.js")
	os.MkdirAll(filepath.Dir(src), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	os.WriteFile(src, []byte("export const a = 1\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "p/dist"), 0o755)
	os.WriteFile(filepath.Join(root, "p/dist/a.js"), []byte("built\n"), 0o644) // what the task writes
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"dist/**"}}
	var warn bytes.Buffer
	c, err := New(Options{Dir: testdir.New(t), Root: root, Read: true, Write: true, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := c.Key(spec)
	if err != nil {
		t.Fatal(err)
	}
	// write gives src content while the task runs, until the file's change
	// time moves (the file system's clock ticks every few ms).
	write := func(content string) {
		t.Helper()
		before, _ := key.Lstat(src)
		for deadline := time.Now().Add(5 * time.Second); ; {
			os.WriteFile(src, []byte(content), 0o644)
			if st, _ := key.Lstat(src); st.ChangeTime() != before.ChangeTime() {
				return
			}
			if time.Now().After(deadline) {
				t.Skip("the change time did not move in 5 s")
			}
			time.Sleep(time.Millisecond)
		}
	}

	// An edit while the task runs: not stored.
	cp, err := c.NewCapture(k)
	if err != nil {
		t.Fatal(err)
	}
	write("export const a = 2\n")
	c.Save(k, cp, filepath.Join(root, "p"))
	if c.Has(k) {
		t.Error("stored, though an input was edited while the task ran")
	}
	if want := "vx: p#build: not cached: its inputs changed while it ran (p/src/a.js changed)\n"; warn.String() != want {
		t.Errorf("warning %q, want %q", warn.String(), want)
	}

	// The task writes the file again with the bytes the key holds: stored.
	os.WriteFile(src, []byte("export const a = 1\n"), 0o644)
	warn.Reset()
	cp, _ = c.NewCapture(k)
	write("export const a = 1\n")
	c.Save(k, cp, filepath.Join(root, "p"))
	if !c.Has(k) {
		t.Errorf("not stored, though the input was rewritten with the same bytes; warnings: %q", warn.String())
	}
	if k2, err := c.Key(spec); err != nil || k2.InputRoot != k.InputRoot {
		t.Errorf("the next key differs (%v): a rewrite with the same bytes is a hit", err)
	}
}

// TestInputLeftAloneIsStored: nothing written while the task runs: stored.
func TestInputLeftAloneIsStored(t *testing.T) {
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p/src"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	os.WriteFile(filepath.Join(root, "p/src/a.js"), []byte("export const a = 1\n"), 0o644)
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}}
	var warn bytes.Buffer
	c, err := New(Options{Dir: testdir.New(t), Root: root, Read: true, Write: true, Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k, err := c.Key(spec)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := c.NewCapture(k)
	if err != nil {
		t.Fatal(err)
	}
	c.Save(k, cp, filepath.Join(root, "p"))
	if !c.Has(k) {
		t.Errorf("not stored, though no input was written; warnings: %q", warn.String())
	}
}

// TestIgnoredInputs: a file git ignores is an input when a glob of
// "inputs" other than "**" names it (a literal path, a pattern, from the
// project or from the root); "**" and the default set leave it out, as do
// node_modules and the task's outputs.
func TestIgnoredInputs(t *testing.T) {
	r := testtool.NewGitRepo(t)
	r.Write(".gitignore", ".env*\n*.log\ndist/\ngenerated/\nnode_modules/\n", 0o644)
	r.Write(".env", "ROOT=1\n", 0o644)
	r.Write("p/package.json", `{"name":"p"}`, 0o644)
	r.Write("p/src/a.ts", "a\n", 0o644)
	r.Git("add", "-A")
	r.Git("commit", "-qm", "base")
	r.Write("p/.env.local", "KEY=1\n", 0o644)
	r.Write("p/.env.production.local", "KEY=2\n", 0o644)
	r.Write("p/src/debug.log", "log\n", 0o644)
	r.Write("p/src/generated/api.ts", "generated\n", 0o644)
	r.Write("p/dist/a.js", "built\n", 0o644)
	r.Write("p/node_modules/x/.env", "no\n", 0o644)
	r.Write("p/deep/er/.env.local", "deep\n", 0o644)
	tests := []struct {
		name   string
		inputs []string
		want   []string // beside p/package.json and p/src/a.ts when "**" is there
	}{
		{"default: no ignored file", nil, []string{"p/package.json", "p/src/a.ts"}},
		{"** is the default set", []string{"**"}, []string{"p/package.json", "p/src/a.ts"}},
		{"a literal name", []string{"src/**", ".env.local"}, []string{"p/.env.local", "p/package.json", "p/src/a.ts", "p/src/debug.log", "p/src/generated/api.ts"}},
		{"a pattern, with the default set", []string{"**", ".env*"}, []string{"p/.env.local", "p/.env.production.local", "p/package.json", "p/src/a.ts"}},
		{"at any depth", []string{"**/.env.local"}, []string{"p/.env.local", "p/deep/er/.env.local", "p/package.json"}},
		{"from the root", []string{"src/*.ts", "//.env"}, []string{".env", "p/package.json", "p/src/a.ts"}},
		{"an exclusion", []string{"**", ".env*", "!.env.production.local"}, []string{"p/.env.local", "p/package.json", "p/src/a.ts"}},
		{"never an output", []string{"**", "dist/**"}, []string{"p/package.json", "p/src/a.ts"}},
		{"never node_modules", []string{"node_modules/**", "**/.env"}, []string{"p/package.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(Options{Dir: testdir.New(t), Root: r.Root, Environ: r.Env, Read: true})
			if err != nil {
				t.Fatal(err)
			}
			defer c.CloseReadOnly()
			k, err := c.Key(&TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Inputs: tt.inputs, Outputs: []string{"dist/**"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range k.Inputs {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("inputs %q (-want +got):\n%s", tt.inputs, diff)
			}
		})
	}
}

// taskRunner runs tasks as vx run does, one run each: a hit restores, a
// miss runs the task (a Go func) and stores its result.
type taskRunner struct {
	t     *testing.T
	root  string
	env   []string
	store string
	// afterKey, when set, is called once the key is computed and before
	// the lookup: the user at work while vx runs.
	afterKey func()
}

// run runs the task of spec once; task is what it does when it runs. It
// returns whether it was a hit and the cache's warnings.
func (tr *taskRunner) run(spec *TaskSpec, task func()) (bool, string) {
	tr.t.Helper()
	var warn bytes.Buffer
	c, err := New(Options{Dir: tr.store, Root: tr.root, Environ: tr.env, Read: true, Write: true, Warn: &warn})
	if err != nil {
		tr.t.Fatal(err)
	}
	defer c.Close()
	k, err := c.Key(spec)
	if err != nil {
		tr.t.Fatal(err)
	}
	dir := filepath.Join(tr.root, filepath.FromSlash(spec.RelDir))
	if tr.afterKey != nil {
		tr.afterKey()
		tr.afterKey = nil
	}
	if h, ok := c.Lookup(k); ok && c.Restore(h, dir, io.Discard, io.Discard) == nil {
		return true, warn.String()
	}
	cp, err := c.NewCapture(k)
	if err != nil {
		tr.t.Fatal(err)
	}
	task()
	c.Save(k, cp, dir)
	return false, warn.String()
}

func (tr *taskRunner) write(rel, content string) {
	tr.t.Helper()
	p := filepath.Join(tr.root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *taskRunner) read(rel string) string {
	b, err := os.ReadFile(filepath.Join(tr.root, filepath.FromSlash(rel)))
	if err != nil {
		return "(missing)"
	}
	return string(b)
}

// TestHitKeepsYourFiles: a hit never reverts an edit to, nor removes, a
// file the task's outputs match that is the user's: one git tracks (hono's
// lint outputs hold its committed eslint-suppressions.json; outputs "**"),
// or a new one git would add (src/new.js beside tsc's output, outputs
// "src/**/*.js"). Such a file is an input instead: changing it is a miss.
func TestHitKeepsYourFiles(t *testing.T) {
	tests := []struct {
		name    string
		outputs []string
		change  func(tr *taskRunner) // the user's change after the first run
		file    string               // the user's file, whose content must survive
	}{
		{"a tracked file edited (hono's lint)", []string{".eslintcache", "eslint-suppressions.json"},
			func(tr *taskRunner) { tr.write("p/eslint-suppressions.json", `{"edited": true}`) }, "p/eslint-suppressions.json"},
		{"a tracked file edited, outputs **", []string{"**"},
			func(tr *taskRunner) { tr.write("p/README.md", "edited\n") }, "p/README.md"},
		{"a new file git would add (tsc without outDir)", []string{"src/**/*.js"},
			func(tr *taskRunner) { tr.write("p/src/new.js", "hand-written\n") }, "p/src/new.js"},
		{"a tracked hand-written file beside tsc's output, edited", []string{"src/**/*.js"},
			func(tr *taskRunner) { tr.write("p/src/hand.js", "edited by hand\n") }, "p/src/hand.js"},
		{"a tracked file deleted", []string{"**"},
			func(tr *taskRunner) { os.Remove(filepath.Join(tr.root, "p/README.md")) }, "p/README.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testtool.NewGitRepo(t)
			tr := &taskRunner{t: t, root: r.Root, env: r.Env, store: testdir.New(t)}
			r.Write(".gitignore", "node_modules/\n.eslintcache\n/p/src/a.js\n", 0o644)
			r.Write("p/package.json", `{"name": "p"}`, 0o644)
			r.Write("p/src/a.ts", "export const a = 1\n", 0o644)
			r.Write("p/src/hand.js", "hand-written\n", 0o644)
			r.Write("p/README.md", "readme\n", 0o644)
			r.Write("p/eslint-suppressions.json", "{}\n", 0o644)
			r.Git("add", "-A")
			r.Git("commit", "-qm", "base")
			spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: tt.outputs}
			runs := 0
			task := func() {
				runs++
				tr.write("p/src/a.js", "compiled\n")
				tr.write("p/.eslintcache", "cache\n")
			}
			if hit, warn := tr.run(spec, task); hit || warn != "" {
				t.Fatalf("first run: hit %v, warnings %q", hit, warn)
			}
			if hit, warn := tr.run(spec, task); !hit {
				t.Fatalf("second run, nothing changed: a miss (%q)", warn)
			}
			tt.change(tr)
			want := tr.read(tt.file)
			hit, warn := tr.run(spec, task)
			if got := tr.read(tt.file); got != want {
				t.Errorf("after the user's change, a run made %s %q, want %q (hit %v, %q)", tt.file, got, want, hit, warn)
			}
			if hit {
				t.Errorf("the user's change to %s was a hit", tt.file)
			}
			// And again, now that the cache holds a result made with it.
			hit, warn = tr.run(spec, task)
			if got := tr.read(tt.file); got != want || !hit {
				t.Errorf("third run: hit %v (%q), %s is %q, want a hit leaving %q", hit, warn, tt.file, got, want)
			}
		})
	}
}

// TestRestoreRefusesAFileThatAppeared: a file of the user's that appears
// under the outputs after the key was computed (the key cannot hold it) is
// not removed by the restore: vx asks git, which would add it, so the
// restore is refused, the project left as it was, and the task runs.
func TestRestoreRefusesAFileThatAppeared(t *testing.T) {
	r := testtool.NewGitRepo(t)
	tr := &taskRunner{t: t, root: r.Root, env: r.Env, store: testdir.New(t)}
	r.Write(".gitignore", "/p/src/a.js\n", 0o644)
	r.Write("p/package.json", `{"name": "p"}`, 0o644)
	r.Write("p/src/a.ts", "v1\n", 0o644)
	r.Git("add", "-A")
	r.Git("commit", "-qm", "base")
	spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"src/**/*.js"}}
	task := func() { tr.write("p/src/a.js", "compiled "+tr.read("p/src/a.ts")) }
	tr.run(spec, task)
	tr.write("p/src/a.ts", "v2\n")
	tr.run(spec, task)
	tr.write("p/src/a.ts", "v1\n") // back to the first result
	tr.afterKey = func() { tr.write("p/src/new.js", "hand-written\n") }
	hit, warn := tr.run(spec, task)
	if got := tr.read("p/src/new.js"); got != "hand-written\n" {
		t.Errorf("a restore made the user's new file %q (hit %v)", got, hit)
	}
	if want := "vx: p#build: not restored from the cache: it would replace or remove src/new.js, which git would add and vx did not write; running the task\n"; !strings.HasPrefix(warn, want) {
		t.Errorf("warnings %q, want first %q", warn, want)
	}
	if got := tr.read("p/src/a.js"); got != "compiled v1\n" {
		t.Errorf("src/a.js %q: the task should have run", got)
	}
}

// TestRestoreRemovesWhatVxWrote: where git does not ignore the outputs, or
// without git, a restore replaces and removes the files vx itself wrote
// (restored) and that did not change since, so the outputs become the
// entry's; a file of the user's among them stays as it is, and is an
// input. A file that only appeared while the task ran (stored as its
// output) may be the user's, saved meanwhile: a restore neither replaces
// nor removes it, and the task runs instead.
func TestRestoreRemovesWhatVxWrote(t *testing.T) {
	for _, useGit := range []bool{true, false} {
		t.Run(map[bool]string{true: "outputs git would add", false: "no git"}[useGit], func(t *testing.T) {
			r := &testtool.GitRepo{T: t, Root: testdir.New(t), Env: []string{"PATH=" + os.Getenv("PATH")}}
			if useGit {
				r = testtool.NewGitRepo(t)
			}
			tr := &taskRunner{t: t, root: r.Root, env: r.Env, store: testdir.New(t)}
			r.Write("p/package.json", `{"name": "p"}`, 0o644)
			r.Write("p/src.txt", "v1", 0o644)
			r.Write("p/out/mine.txt", "the user's\n", 0o644)
			if useGit {
				r.Git("add", "-A")
				r.Git("commit", "-qm", "base")
				r.Git("rm", "-q", "--cached", "p/out/mine.txt") // untracked, not ignored
			}
			spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"out/**"}}
			task := func() {
				v := tr.read("p/src.txt")
				tr.write("p/out/"+v+".txt", v)
				tr.write("p/out/common.txt", v)
			}
			rm := func(names ...string) {
				for _, n := range names {
					os.Remove(filepath.Join(r.Root, "p/out", n))
				}
			}
			state := func() map[string]string {
				got := map[string]string{}
				for _, name := range []string{"v1.txt", "v2.txt", "v3.txt", "common.txt", "mine.txt"} {
					got[name] = tr.read("p/out/" + name)
				}
				return got
			}
			if hit, warn := tr.run(spec, task); hit || warn != "" {
				t.Fatalf("first run: hit %v, %q", hit, warn)
			}
			if hit, warn := tr.run(spec, task); !hit {
				t.Fatalf("second run: a miss (%q)", warn)
			}
			rm("v1.txt")
			tr.write("p/src.txt", "v2")
			if hit, warn := tr.run(spec, task); hit || warn != "" {
				t.Fatalf("v2: hit %v, %q", hit, warn)
			}
			// A checkout without the outputs: v1's restored, and then
			// known as vx's; v2's replaces and removes them.
			rm("v2.txt", "common.txt")
			tr.write("p/src.txt", "v1")
			if hit, warn := tr.run(spec, task); !hit {
				t.Fatalf("back to v1, no outputs: a miss (%q)", warn)
			}
			tr.write("p/src.txt", "v2")
			if hit, warn := tr.run(spec, task); !hit {
				t.Fatalf("v2 again: a miss (%q)", warn)
			}
			want := map[string]string{"v1.txt": "(missing)", "v2.txt": "v2", "v3.txt": "(missing)", "common.txt": "v2", "mine.txt": "the user's\n"}
			if diff := cmp.Diff(want, state()); diff != "" {
				t.Errorf("after the restore of v2's result over v1's (-want +got):\n%s", diff)
			}
			// v3 runs: its files appeared while it ran. Back to v2 would
			// replace common.txt and remove v3.txt: refused, and run.
			tr.write("p/src.txt", "v3")
			if hit, warn := tr.run(spec, task); hit || warn != "" {
				t.Fatalf("v3: hit %v, %q", hit, warn)
			}
			tr.write("p/src.txt", "v2")
			hit, warn := tr.run(spec, task)
			if wantWarn := "appeared while the task last ran; vx cannot tell whether the task or you wrote it; running the task"; hit || !strings.Contains(warn, wantWarn) {
				t.Errorf("back to v2 over v3's files: hit %v, %q; want a refusal saying %q", hit, warn, wantWarn)
			}
			if got := tr.read("p/out/v3.txt"); got != "v3" {
				t.Errorf("out/v3.txt, which appeared while the task ran, is %q", got)
			}
			// The user's file is an input: an edit is a miss, not reverted.
			tr.write("p/out/mine.txt", "edited\n")
			if hit, _ := tr.run(spec, task); hit || tr.read("p/out/mine.txt") != "edited\n" {
				t.Errorf("an edit to the user's file under the outputs: hit %v, file %q", hit, tr.read("p/out/mine.txt"))
			}
		})
	}
}

// TestFileSavedDuringTheRun: with outputs "src/**/*.js" (tsc beside its
// sources), a hand-written src/helper.js saved while the build ran is
// stored with the task's outputs, as vx cannot tell who wrote it; a later
// hit on an older entry, which does not hold it, must not delete it.
func TestFileSavedDuringTheRun(t *testing.T) {
	for _, useGit := range []bool{true, false} {
		t.Run(map[bool]string{true: "git", false: "no git"}[useGit], func(t *testing.T) {
			r := &testtool.GitRepo{T: t, Root: testdir.New(t), Env: []string{"PATH=" + os.Getenv("PATH")}}
			if useGit {
				r = testtool.NewGitRepo(t)
			}
			tr := &taskRunner{t: t, root: r.Root, env: r.Env, store: testdir.New(t)}
			r.Write("p/package.json", `{"name": "p"}`, 0o644)
			r.Write("p/src/a.ts", "v1\n", 0o644)
			if useGit {
				r.Git("add", "-A")
				r.Git("commit", "-qm", "base")
			}
			spec := &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Outputs: []string{"src/**/*.js"}}
			tsc := func() { tr.write("p/src/a.js", "compiled "+tr.read("p/src/a.ts")) }
			tr.run(spec, tsc)
			tr.write("p/src/a.ts", "v2\n")
			tr.run(spec, func() {
				tsc()
				tr.write("p/src/helper.js", "hand-written\n") // the user saves it, meanwhile
			})
			tr.write("p/src/a.ts", "v1\n") // v1's entry holds no helper.js
			hit, warn := tr.run(spec, tsc)
			if got := tr.read("p/src/helper.js"); got != "hand-written\n" {
				t.Errorf("a hit on an older entry made the user's src/helper.js %q (hit %v, %q)", got, hit, warn)
			}
			if want := ", which appeared while the task last ran; vx cannot tell whether the task or you wrote it; running the task\n"; hit || !strings.HasPrefix(warn, "vx: p#build: not restored from the cache: it would replace or remove src/") || !strings.Contains(warn, want) {
				t.Errorf("warnings %q, want %q", warn, want)
			}
		})
	}
}

// TestTaskChangingYourFileIsNotStored: a task that writes other content
// into a file of the user's among its outputs is not stored (its result
// would not match its key, which holds that file), and vx says which file;
// one that writes the same content again is stored.
func TestTaskChangingYourFileIsNotStored(t *testing.T) {
	for _, tracked := range []bool{true, false} {
		r := testtool.NewGitRepo(t)
		tr := &taskRunner{t: t, root: r.Root, env: r.Env, store: testdir.New(t)}
		r.Write("p/package.json", `{"name": "p"}`, 0o644)
		r.Write("p/gen.json", "{}\n", 0o644)
		r.Git("add", "-A")
		r.Git("commit", "-qm", "base")
		if !tracked {
			r.Git("rm", "-q", "--cached", "p/gen.json")
		}
		spec := &TaskSpec{ID: "p#gen", RelDir: "p", Argv: []string{"gen"}, Outputs: []string{"gen.json"}}
		hit, warn := tr.run(spec, func() { tr.write("p/gen.json", "{}\n") })
		if hit || warn != "" {
			t.Errorf("tracked %v, same content written again: hit %v, warnings %q; want it stored", tracked, hit, warn)
		}
		tr.run(spec, func() {}) // a hit
		r.Write("p/src.txt", "x", 0o644)
		_, warn = tr.run(spec, func() { tr.write("p/gen.json", `{"generated": true}`) })
		want := "vx: p#gen: not cached: it changed p/gen.json, a file of its outputs that git tracks (vx stores no result that changes your files)\n"
		if !tracked {
			want = "vx: p#gen: not cached: it changed p/gen.json, a file of its outputs that git would add and vx did not write (add it to .gitignore, or delete it once, for vx to keep it as an output)\n"
		}
		if warn != want {
			t.Errorf("tracked %v, other content: warnings %q, want %q", tracked, warn, want)
		}
	}
}
