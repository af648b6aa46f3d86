package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeclaredValuesNeverInClear runs tasks that declare distinctive
// values (passThrough and define), changes them, and asks every command
// that shows keys or misses; then no output, and no file of the store or
// of node_modules/.cache, holds a value, in clear or as its plain SHA-256
// (which anyone can check a guess against). A task's own log is the task's
// business: these tasks do not print their values (docs/cache.md,
// "Declared values").
func TestDeclaredValuesNeverInClear(t *testing.T) {
	t.Parallel()
	w := newCacheWS(t, true)
	w.write("vx.json", strings.Replace(cacheVXJSON, `"MODE": "release"`, `"MODE": "vxdefine-7f3k2q"`, 1))
	w.write("packages/a/build.sh", `set -e
mkdir -p dist ../../.runs
test -n "$DECLARED" && test -n "$MODE"
echo "building a"
cat src/in.txt > dist/out.txt
echo ran >> ../../.runs/a
`)
	w.git("add", "-A")
	w.git("commit", "-qm", "values")
	values := []string{"vxpass-493817", "vxpass-changed-5521", "vxdefine-7f3k2q", "vxdefine-other-9d2m"}
	out := map[string]string{} // what a command printed, by the command
	files := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	do := func(env string, args ...string) {
		t.Helper()
		r := w.vx([]string{"DECLARED=" + env}, args...)
		if r.code > 1 {
			t.Fatalf("vx %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		out["DECLARED="+env+" vx "+strings.Join(args, " ")] = r.stdout + r.stderr
	}
	do("vxpass-493817", "run", "build", "--explain-misses", "--summary", filepath.Join(files, "summary1.json"), "--profile", filepath.Join(files, "profile1.json"))
	do("vxpass-changed-5521", "run", "build", "--explain-misses", "--summary", filepath.Join(files, "summary2.json"), "--profile", filepath.Join(files, "profile2.json"))
	if a, _ := w.runs(); a != 2 {
		t.Fatalf("a#build ran %d times, want 2: the changed value must miss", a)
	}
	w.write("vx.json", strings.Replace(cacheVXJSON, `"MODE": "release"`, `"MODE": "vxdefine-other-9d2m"`, 1))
	for _, env := range []string{"vxpass-493817", "vxpass-changed-5521"} {
		do(env, "run", "build", "--dry-run")
		do(env, "run", "build", "--dry-run=json")
		do(env, "why", "build")
		do(env, "why", "build", "--json")
		do(env, "graph", "build", "--json")
		do(env, "run", "build", "--summary", "json", "--explain-misses")
	}
	do("vxpass-493817", "cache", "status", "--json")
	if why := out["DECLARED=vxpass-changed-5521 vx why build"]; !strings.Contains(why, "DECLARED") {
		t.Errorf("vx why does not name the changed variable:\n%s", why)
	}

	find := func(where string, data []byte) {
		for _, v := range values {
			sum := sha256.Sum256([]byte(v))
			for _, form := range []string{v, hex.EncodeToString(sum[:])} {
				if strings.Contains(string(data), form) {
					t.Errorf("%s holds %q (the value %q)", where, form, v)
				}
			}
		}
	}
	for cmd, o := range out {
		find(cmd, []byte(o))
	}
	for _, dir := range []string{w.store, files, filepath.Join(w.root, "node_modules", ".cache")} {
		n := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
			}
			n++
			find(p, data)
			return nil
		})
		if dir == w.store && n < 10 {
			t.Fatalf("the store holds only %d files: nothing was stored", n)
		}
	}
}

// TestEnvKeyAcrossMachines: two machines (two clones, two stores) make the
// same keys when they share a secret: the signing key, or with a remote
// cache and no signing key the public one; without a remote each store's
// own secret makes its own keys. Every command of one setup agrees.
func TestEnvKeyAcrossMachines(t *testing.T) {
	t.Parallel()
	m1, m2 := newCacheWS(t, false), newCacheWS(t, false)
	key := func(w *cacheWS, env ...string) string {
		t.Helper()
		saved := w.env
		w.env = append(append([]string{}, w.env...), env...)
		defer func() { w.env = saved }()
		return w.keyOf("a#build").Hash
	}
	const remote = "VX_REMOTE_CACHE=grpc://127.0.0.1:1" // nothing listens: lookups fail, keys are still made
	signed := []string{"VX_REMOTE_SIGNING_KEY=team-key-0123456789abcdef"}
	if key(m1, "DECLARED=x") == key(m2, "DECLARED=x") {
		t.Error("without a remote cache, two stores make the same key: their secrets are not their own")
	}
	if key(m1, "DECLARED=x") != key(m1, "DECLARED=x") {
		t.Error("one store makes two keys for one value")
	}
	if k1, k2 := key(m1, "DECLARED=x", remote), key(m2, "DECLARED=x", remote); k1 != k2 {
		t.Errorf("with a remote cache and no signing key, two machines make two keys: %s, %s", k1, k2)
	}
	k1, k2 := key(m1, append(signed, "DECLARED=x", remote)...), key(m2, append(signed, "DECLARED=x")...)
	if k1 != k2 {
		t.Errorf("with one signing key, two machines (one without the remote configured) make two keys: %s, %s", k1, k2)
	}
	if k1 == key(m1, "DECLARED=x", remote) || k1 == key(m1, "VX_REMOTE_SIGNING_KEY=another-key-0123456789", "DECLARED=x") {
		t.Error("another secret makes the same key")
	}
	if k1 == key(m1, append(signed, "DECLARED=y")...) {
		t.Error("another value makes the same key")
	}
}

// TestArgsNeverInClear: the arguments after -- (vx run build --
// --password=...) are treated as the declared values are: a changed one
// misses, and no command (the run with --summary, --profile and
// --explain-misses, the dry runs, vx why) prints one, nor any file of the
// store or report holds one or its plain SHA-256.
func TestArgsNeverInClear(t *testing.T) {
	t.Parallel() // its own workspace and store
	w := newCacheWS(t, true)
	values := []string{"--password=vxarg-493817", "--password=vxarg-changed-5521"}
	out := map[string]string{}
	files := filepath.Join(t.TempDir(), "reports")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	do := func(args ...string) {
		t.Helper()
		r := w.vx(nil, args...)
		if r.code > 1 {
			t.Fatalf("vx %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
		out["vx "+strings.Join(args, " ")] = r.stdout + r.stderr
	}
	do("run", "build", "--filter", "a", "--explain-misses", "--summary", filepath.Join(files, "summary1.json"), "--profile", filepath.Join(files, "profile1.json"), "--", values[0])
	do("run", "build", "--filter", "a", "--explain-misses", "--summary", filepath.Join(files, "summary2.json"), "--profile", filepath.Join(files, "profile2.json"), "--", values[1])
	if a, _ := w.runs(); a != 2 {
		t.Fatalf("a#build ran %d times, want 2: the changed argument must miss", a)
	}
	do("run", "build", "--filter", "a", "--", values[1])
	if a, _ := w.runs(); a != 2 {
		t.Fatalf("a#build ran %d times, want 2: the same argument must hit", a)
	}
	for _, v := range values {
		do("run", "build", "--filter", "a", "--dry-run", "--", v)
		do("run", "build", "--filter", "a", "--dry-run=json", "--", v)
		do("why", "a#build", "--", v)
		do("why", "a#build", "--json", "--", v)
		do("run", "build", "--filter", "a", "--summary", "json", "--explain-misses", "--", v)
	}
	find := func(where string, data []byte) {
		for _, v := range values {
			sum := sha256.Sum256([]byte(v))
			for _, form := range []string{strings.TrimPrefix(v, "--password="), hex.EncodeToString(sum[:])} {
				if strings.Contains(string(data), form) {
					t.Errorf("%s holds %q (the argument %q)", where, form, v)
				}
			}
		}
	}
	for cmd, o := range out {
		find(cmd, []byte(o))
	}
	for _, dir := range []string{w.store, files, filepath.Join(w.root, "node_modules", ".cache")} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				data, _ := os.ReadFile(p)
				find(p, data)
			}
			return nil
		})
	}
}
