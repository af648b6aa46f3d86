package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/testdir"
)

// whyFixture is a store and the parts of one task's key, to change one at
// a time.
type whyFixture struct {
	c        *Cache
	ek       *EnvKey // the values' secret of the keys the fixture makes
	spec     TaskSpec
	files    []InputFile
	platform []reapi.Property
}

func newWhyFixture(t *testing.T) *whyFixture {
	t.Helper()
	c, err := New(Options{Dir: testdir.New(t), Root: "/src/ws", Read: true, Write: true, Version: "v1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	return &whyFixture{
		c: c, ek: c.keys.EnvKey(),
		spec: TaskSpec{ID: "web#build", RelDir: "web", Argv: []string{"tsc -b"},
			Env:     []reapi.Property{{Name: "NODE_ENV", Value: "production"}, {Name: "API_URL", Value: "https://api.example.com"}},
			Outputs: []string{"dist/**"}},
		files: []InputFile{
			{Path: "pnpm-lock.yaml", ID: "1111111111111111111111111111111111111111"},
			{Path: "web/package.json", ID: "2222222222222222222222222222222222222222"},
			{Path: "web/src/a.ts", ID: "3333333333333333333333333333333333333333"},
			{Path: "web/src/b.ts", ID: "4444444444444444444444444444444444444444"},
		},
		platform: []reapi.Property{{Name: "ISA", Value: "amd64"}, {Name: "OSFamily", Value: "linux"}},
	}
}

// key returns the key of the fixture's task as it is now.
func (f *whyFixture) key() *Key {
	spec := f.spec
	files := append([]InputFile(nil), f.files...)
	return key.Compute(&spec, files, f.platform, f.ek)
}

// store stores k as Save does (without outputs): its parts, an entry and
// the task's record of it.
func (f *whyFixture) store(t *testing.T, k *Key) {
	t.Helper()
	for _, b := range [][]byte{keyBytesOf(k).action, keyBytesOf(k).command, keyBytesOf(k).manifest} {
		if _, err := f.c.store.PutBytes(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.c.store.UpdateActionResult(k.Action, (&reapi.ActionResult{}).Marshal()); err != nil {
		t.Fatal(err)
	}
	f.c.store.WriteLast(f.c.lastUse(k))
}

func TestWhyEachKindOfChange(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *whyFixture)
		want   []Change
		reason string
	}{
		{
			name:   "file modified",
			change: func(f *whyFixture) { f.files[2].ID = "5555555555555555555555555555555555555555" },
			want:   []Change{{Kind: "file", Change: "modified", Name: "web/src/a.ts"}},
			reason: "web/src/a.ts modified",
		},
		{
			name:   "executable bit",
			change: func(f *whyFixture) { f.files[2].Exec = true },
			want:   []Change{{Kind: "file", Change: "modified", Name: "web/src/a.ts"}},
			reason: "web/src/a.ts modified",
		},
		{
			name: "file added",
			change: func(f *whyFixture) {
				f.files = append(f.files, InputFile{Path: "web/src/c.ts", ID: "6666666666666666666666666666666666666666"})
			},
			want:   []Change{{Kind: "file", Change: "added", Name: "web/src/c.ts"}},
			reason: "web/src/c.ts added",
		},
		{
			name:   "file removed",
			change: func(f *whyFixture) { f.files = f.files[:3] },
			want:   []Change{{Kind: "file", Change: "removed", Name: "web/src/b.ts"}},
			reason: "web/src/b.ts removed",
		},
		{
			name:   "file renamed: added and removed",
			change: func(f *whyFixture) { f.files[3].Path = "web/src/z.ts" },
			want: []Change{
				{Kind: "file", Change: "removed", Name: "web/src/b.ts"},
				{Kind: "file", Change: "added", Name: "web/src/z.ts"},
			},
			reason: "web/src/b.ts removed and 1 more file",
		},
		{
			name:   "lockfile",
			change: func(f *whyFixture) { f.files[0].ID = "7777777777777777777777777777777777777777" },
			want:   []Change{{Kind: "lockfile", Change: "modified", Name: "pnpm-lock.yaml"}},
			reason: "lockfile pnpm-lock.yaml modified",
		},
		{
			name: "variable changed",
			change: func(f *whyFixture) {
				f.spec.Env = []reapi.Property{{Name: "NODE_ENV", Value: "development"}, f.spec.Env[1]}
			},
			want:   []Change{{Kind: "env", Change: "modified", Name: "NODE_ENV"}},
			reason: "variable NODE_ENV changed",
		},
		{
			name:   "variable added",
			change: func(f *whyFixture) { f.spec.Env = append(f.spec.Env, reapi.Property{Name: "DEBUG", Value: "1"}) },
			want:   []Change{{Kind: "env", Change: "added", Name: "DEBUG"}},
			reason: "variable DEBUG added",
		},
		{
			name:   "variable removed",
			change: func(f *whyFixture) { f.spec.Env = f.spec.Env[:1] },
			want:   []Change{{Kind: "env", Change: "removed", Name: "API_URL"}},
			reason: "variable API_URL removed",
		},
		{
			name:   "variable set to empty is a change",
			change: func(f *whyFixture) { f.spec.Env = []reapi.Property{{Name: "NODE_ENV", Value: ""}, f.spec.Env[1]} },
			want:   []Change{{Kind: "env", Change: "modified", Name: "NODE_ENV"}},
			reason: "variable NODE_ENV changed",
		},
		{
			name:   "script",
			change: func(f *whyFixture) { f.spec.Argv = []string{"tsc -b --verbose"} },
			want:   []Change{{Kind: "command", Change: "modified", Old: []string{"tsc -b"}, New: []string{"tsc -b --verbose"}}},
			reason: "the script changed",
		},
		{
			name:   "arguments after --",
			change: func(f *whyFixture) { f.spec.Argv = []string{"tsc -b", "--force"} },
			want:   []Change{{Kind: "command", Change: "modified", Old: []string{"tsc -b"}, New: []string{"tsc -b", "--force"}}},
			reason: "the script changed",
		},
		{
			name:   "outputs",
			change: func(f *whyFixture) { f.spec.Outputs = []string{"dist/**", "!dist/**/*.map"} },
			want:   []Change{{Kind: "outputs", Change: "added", Name: "!dist/**/*.map"}},
			reason: `declared outputs: added "!dist/**/*.map"`,
		},
		{
			name: "inputs: the globs and the files they choose",
			change: func(f *whyFixture) {
				f.spec.Inputs = []string{"**", "//scripts/build.mjs"}
				f.files = append(f.files, InputFile{Path: "scripts/build.mjs", ID: "8888888888888888888888888888888888888888"})
			},
			want: []Change{
				{Kind: "inputs", Change: "added", Name: "//scripts/build.mjs"},
				{Kind: "file", Change: "added", Name: "scripts/build.mjs"},
			},
			reason: `declared inputs: added "//scripts/build.mjs"; scripts/build.mjs added`,
		},
		{
			name:   "node's version",
			change: func(f *whyFixture) { f.spec.Node = "v22.3.0" },
			want:   []Change{{Kind: "platform", Change: "modified", Name: "node-version", Old: []string{"none"}, New: []string{"v22.3.0"}}},
			reason: "node-version none → v22.3.0",
		},
		{
			name:   "operating system",
			change: func(f *whyFixture) { f.platform[1].Value = "windows" },
			want:   []Change{{Kind: "platform", Change: "modified", Name: "OSFamily", Old: []string{"linux"}, New: []string{"windows"}}},
			reason: "OSFamily linux → windows",
		},
		{
			name:   "project moved",
			change: func(f *whyFixture) { f.spec.RelDir = "apps/web" },
			want:   []Change{{Kind: "workdir", Change: "modified", Old: []string{"web"}, New: []string{"apps/web"}}},
			reason: "the project's directory changed (web → apps/web)",
		},
		{
			name: "dependency added",
			change: func(f *whyFixture) {
				f.spec.Deps = []DepKey{{ID: "ui#build", Action: reapi.DigestOf([]byte("ui"))}}
			},
			want:   []Change{{Kind: "dependency", Change: "added", Name: "ui#build"}},
			reason: "now depends on ui#build",
		},
		{
			name: "several changes: files counted, format first",
			change: func(f *whyFixture) {
				f.files[2].ID = "5555555555555555555555555555555555555555"
				f.files[3].ID = "5555555555555555555555555555555555555555"
				f.spec.Env = f.spec.Env[:1]
				f.spec.Argv = []string{"tsc"}
			},
			want: []Change{
				{Kind: "command", Change: "modified", Old: []string{"tsc -b"}, New: []string{"tsc"}},
				{Kind: "env", Change: "removed", Name: "API_URL"},
				{Kind: "file", Change: "modified", Name: "web/src/a.ts"},
				{Kind: "file", Change: "modified", Name: "web/src/b.ts"},
			},
			reason: "the script changed; variable API_URL removed; web/src/a.ts modified and 1 more file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newWhyFixture(t)
			before := f.key()
			f.store(t, before)
			tt.change(f)
			now := f.key()
			if now.Action == before.Action {
				t.Fatal("the change did not change the key")
			}
			w := f.c.Why(now, nil)
			if w.Cache != "miss" || w.Previous == nil || w.Previous.Key != before.Action.Hash || w.Previous.VX != "v1.0.0" {
				t.Errorf("cache %q, previous %+v; want a miss compared with %s", w.Cache, w.Previous, before.Action.Hash[:12])
			}
			if diff := cmp.Diff(tt.want, w.Changes); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if w.Reason != tt.reason {
				t.Errorf("reason %q, want %q", w.Reason, tt.reason)
			}
			// A run's explanation of its miss says the same.
			if diff := cmp.Diff(w, f.c.ExplainMiss(now)); diff != "" {
				t.Errorf("ExplainMiss differs from Why (-Why +ExplainMiss):\n%s", diff)
			}
		})
	}
}

// TestWhyNeverShowsValues checks that a variable's value, before or now,
// appears nowhere in what Why returns: only its name.
func TestWhyNeverShowsValues(t *testing.T) {
	f := newWhyFixture(t)
	f.spec.Env = []reapi.Property{{Name: "TOKEN", Value: "hunter2-before"}, {Name: "GONE", Value: "gone-value"}}
	f.store(t, f.key())
	f.spec.Env = []reapi.Property{{Name: "TOKEN", Value: "hunter2-after"}, {Name: "NEW", Value: "new-value"}}
	out, err := json.Marshal(f.c.Why(f.key(), nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"hunter2", "gone-value", "new-value", sha256Hex("hunter2-before"), sha256Hex("hunter2-after"),
		envHash(f.ek, "TOKEN", "hunter2-before"), envHash(f.ek, "TOKEN", "hunter2-after"), "sha256:", "hmac-sha256:"} {
		if strings.Contains(string(out), v) {
			t.Errorf("%s shows %q", out, v)
		}
	}
	for _, name := range []string{"TOKEN", "GONE", "NEW"} {
		if !strings.Contains(string(out), `"`+name+`"`) {
			t.Errorf("%s does not name %s", out, name)
		}
	}
}

func TestWhyHitAndNoRecord(t *testing.T) {
	f := newWhyFixture(t)
	k := f.key()
	w := f.c.Why(k, nil)
	if w.Cache != "miss" || w.Reason != reasonNeverStored || w.Previous != nil || len(w.Changes) != 0 {
		t.Errorf("nothing stored: got %+v, want a miss %q", w, reasonNeverStored)
	}
	f.store(t, k)
	if w := f.c.Why(k, nil); w.Cache != "hit" || len(w.Changes) != 0 {
		t.Errorf("stored: got %+v, want a hit", w)
	}
	// Another workspace (another root) has no record of the task.
	o, err := New(Options{Dir: f.c.store.Dir, Root: "/src/other", Read: true})
	if err != nil {
		t.Fatal(err)
	}
	f.spec.Argv = []string{"other"}
	if w := o.Why(f.key(), nil); w.Reason != reasonNeverStored {
		t.Errorf("another workspace: %q, want %q", w.Reason, reasonNeverStored)
	}
	// --force reads nothing: that is the reason.
	forced, err := New(Options{Dir: f.c.store.Dir, Root: "/src/ws", Write: true})
	if err != nil {
		t.Fatal(err)
	}
	if w := forced.ExplainMiss(k); w.Reason != reasonForced {
		t.Errorf("--force: %q, want %q", w.Reason, reasonForced)
	}
}

// TestWhyAfterPrune: a pruned entry leaves no record (never stored); an
// entry removed some other way, its record kept, is named as gone.
func TestWhyAfterPrune(t *testing.T) {
	f := newWhyFixture(t)
	k := f.key()
	f.store(t, k)
	os.Remove(f.c.store.EntryPath(k.Action))
	if w := f.c.Why(k, nil); cmp.Diff([]Change{{Kind: "entry", Change: "removed"}}, w.Changes) != "" || w.Reason != "its entry is gone (pruned) or unusable" {
		t.Errorf("entry removed, same key: got %+v", w)
	}
	// Its parts gone too: nothing to compare with.
	f.spec.Argv = []string{"other"}
	for _, d := range []Digest{reapi.DigestOf(keyBytesOf(k).action), k.Command, k.InputRoot} {
		os.Remove(f.c.store.BlobPath(d))
	}
	if w := f.c.Why(f.key(), nil); w.Reason != "its last entry is gone (pruned)" || w.Previous == nil {
		t.Errorf("parts removed: got %+v", w)
	}
	// Prune drops the record of an entry that is gone, and keeps the
	// others'.
	kept := f.key()
	f.store(t, kept)
	f.spec.ID, f.spec.Argv = "ui#build", []string{"ui's own"}
	f.store(t, f.key())
	os.Remove(f.c.store.EntryPath(f.key().Action))
	if _, err := f.c.store.Prune(store.PruneOptions{}); err != nil {
		t.Fatal(err)
	}
	if f.c.store.ReadLast("/src/ws", "ui#build") != nil {
		t.Error("the record of a removed entry survived a prune")
	}
	if u := f.c.store.ReadLast("/src/ws", "web#build"); u == nil || u.Action != kept.Action {
		t.Errorf("the record of a kept entry: %+v", u)
	}
	// A prune to a size nothing fits in removes the entry, then its record.
	if _, err := f.c.store.Prune(store.PruneOptions{MaxSize: 1}); err != nil {
		t.Fatal(err)
	}
	if w := f.c.Why(kept, nil); w.Reason != reasonNeverStored {
		t.Errorf("after prune: %q, want %q", w.Reason, reasonNeverStored)
	}
}

// TestWhyFormat: a key of another format (an older vx) is named as such.
func TestWhyFormat(t *testing.T) {
	f := newWhyFixture(t)
	k := f.key()
	a, err := reapi.UnmarshalAction(keyBytesOf(k).action)
	if err != nil {
		t.Fatal(err)
	}
	a.Salt = []byte("vx-cache-0")
	header, rest, _ := strings.Cut(string(keyBytesOf(k).manifest), "\n")
	old := "vx inputs 0\n" + rest
	a.InputRootDigest = reapi.DigestOf([]byte(old))
	ab := a.Marshal()
	for _, b := range [][]byte{ab, keyBytesOf(k).command, []byte(old)} {
		f.c.store.PutBytes(b)
	}
	f.c.store.UpdateActionResult(reapi.DigestOf(ab), (&reapi.ActionResult{}).Marshal())
	f.c.store.WriteLast(store.LastUse{ID: "web#build", Root: "/src/ws", Action: reapi.DigestOf(ab), VX: "v0.9.0"})
	w := f.c.Why(k, nil)
	want := []Change{
		{Kind: "format", Change: "modified", Name: "key", Old: []string{"vx-cache-0"}, New: []string{key.FormatVersion}},
		{Kind: "format", Change: "modified", Name: "input list", Old: []string{"vx inputs 0"}, New: []string{header}},
	}
	if diff := cmp.Diff(want, w.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(w.Reason, "vx's key format changed (vx-cache-0 → "+key.FormatVersion+"): every entry misses") || w.Previous.VX != "v0.9.0" {
		t.Errorf("reason %q, previous %+v", w.Reason, w.Previous)
	}
}

// TestWhyDependencyChain: c depends on b, which depends on a; a's file
// changed. Why names b's key as the change of c, explains b by a's key, and
// a by its file; each dependency is explained once.
func TestWhyDependencyChain(t *testing.T) {
	f := newWhyFixture(t)
	type task struct {
		id   string
		file InputFile
	}
	chain := []task{
		{"a#build", InputFile{Path: "a/src/index.ts", ID: "1111111111111111111111111111111111111111"}},
		{"b#build", InputFile{Path: "b/src/index.ts", ID: "2222222222222222222222222222222222222222"}},
		{"c#build", InputFile{Path: "c/src/index.ts", ID: "3333333333333333333333333333333333333333"}},
	}
	keys := func() map[string]*Key {
		m := map[string]*Key{}
		var prev *Key
		for _, tk := range chain {
			spec := &TaskSpec{ID: tk.id, RelDir: strings.Split(tk.id, "#")[0], Argv: []string{"tsc"}}
			if prev != nil {
				spec.Deps = []DepKey{{ID: prev.Spec().ID, Action: prev.Action}}
			}
			files := []InputFile{tk.file}
			prev = key.Compute(spec, files, f.platform, f.ek)
			m[tk.id] = prev
		}
		return m
	}
	for _, k := range keys() {
		f.store(t, k)
	}
	chain[0].file.ID = "9999999999999999999999999999999999999999"
	now := keys()
	w := f.c.Why(now["c#build"], func(id string) *Key { return now[id] })
	if w.Reason != "dependency b#build changed" {
		t.Errorf("c: %q", w.Reason)
	}
	b := w.Changes[0].Why
	if b == nil || b.ID != "b#build" || b.Reason != "dependency a#build changed" || b.Cache != "miss" || b.Previous == nil || b.Previous.Time == nil {
		t.Fatalf("b: %+v", b)
	}
	a := b.Changes[0].Why
	if a == nil || a.ID != "a#build" {
		t.Fatalf("a: %+v", a)
	}
	if diff := cmp.Diff([]Change{{Kind: "file", Change: "modified", Name: "a/src/index.ts"}}, a.Changes); diff != "" {
		t.Errorf("a's changes (-want +got):\n%s", diff)
	}
	// A dependency whose old key's parts are not in the store (a task
	// that is not cached stores none) is named, its change not explained.
	aOld := b.Changes[0].Why.Previous.Key
	os.Remove(f.c.store.BlobPath(Digest{Hash: aOld}))
	w = f.c.Why(now["c#build"], func(id string) *Key { return now[id] })
	if a := w.Changes[0].Why.Changes[0].Why; a == nil || a.Reason != "what its key was made of before is not in the store (pruned, or the task is not cached)" {
		t.Errorf("a without its old parts: %+v", a)
	}
	// A run names the dependency without explaining it.
	if w := f.c.ExplainMiss(now["c#build"]); w.Changes[0].Why != nil {
		t.Errorf("ExplainMiss explained the dependency: %+v", w.Changes[0].Why)
	}
}

// TestWhyManyFiles: the reason counts the files; the changes list them all.
func TestWhyManyFiles(t *testing.T) {
	f := newWhyFixture(t)
	f.files = nil
	for i := range 120 {
		f.files = append(f.files, InputFile{Path: fmt.Sprintf("web/src/f%03d.ts", i), ID: strings.Repeat("1", 40)})
	}
	f.store(t, f.key())
	for i := range f.files {
		f.files[i].ID = strings.Repeat("2", 40)
	}
	w := f.c.Why(f.key(), nil)
	if len(w.Changes) != 120 || w.Reason != "web/src/f000.ts modified and 119 more files" {
		t.Errorf("%d changes, reason %q", len(w.Changes), w.Reason)
	}
}

func TestParseInputList(t *testing.T) {
	k := key.Compute(&TaskSpec{ID: "x#t", RelDir: "x", Deps: []DepKey{{ID: "we\"ird#t", Action: reapi.DigestOf([]byte("d"))}}},
		[]InputFile{{Path: "x/a b\"c\n.txt", ID: "abc", Exec: true}}, nil, nil)
	l := parseInputList(keyBytesOf(k).manifest)
	header, _, _ := strings.Cut(string(keyBytesOf(k).manifest), "\n")
	want := inputList{header: header,
		lines: map[string]string{"dep\x00we\"ird#t": reapi.DigestOf([]byte("d")).Hash, "file\x00x/a b\"c\n.txt": "abc x"},
		keys:  []string{"dep\x00we\"ird#t", "file\x00x/a b\"c\n.txt"}}
	if diff := cmp.Diff(want, l, cmp.AllowUnexported(inputList{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func sha256Hex(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}
