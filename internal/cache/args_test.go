package cache

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/testdir"
)

// TestArgsHidden: the arguments after -- (vx run build -- --password=...)
// reach neither the store nor a remote cache in plain text, each is hashed
// with the secret of the variables' values, and the key still changes with
// them.
func TestArgsHidden(t *testing.T) {
	const secret = "--password=hunter2-s3cret"
	root := testdir.New(t)
	os.MkdirAll(filepath.Join(root, "p/dist"), 0o755)
	os.WriteFile(filepath.Join(root, "p/package.json"), []byte(`{"name":"p"}`), 0o644)
	store := testdir.New(t)
	remote := newFakeRemote()
	c, err := New(Options{Dir: store, Root: root, Read: true, Write: true, Remote: remote, RemoteWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	spec := func(args ...string) *TaskSpec {
		return &TaskSpec{ID: "p#build", RelDir: "p", Argv: []string{"build"}, Args: args, Outputs: []string{"dist/**"}}
	}
	k, err := c.Key(spec(secret))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := c.Key(spec("--password=other"))
	none, _ := c.Key(spec())
	if k.Action == other.Action || k.Action == none.Action {
		t.Error("the key does not change with the arguments after --")
	}
	if bytes.Contains(keyBytesOf(k).command, []byte("hunter2")) {
		t.Errorf("the key's Command holds the argument: %q", keyBytesOf(k).command)
	}
	if !bytes.Contains(keyBytesOf(k).command, []byte(c.HideArg(secret))) {
		t.Errorf("the key's Command does not hold the argument's keyed hash: %q", keyBytesOf(k).command)
	}
	cp, _ := c.NewCapture(k)
	os.WriteFile(filepath.Join(root, "p/dist/out.js"), []byte("out"), 0o644)
	c.Save(k, cp, filepath.Join(root, "p"))
	c.Close()
	if !c.Has(k) || remote.updates != 1 {
		t.Fatalf("not stored (%v) or not uploaded (%d)", c.Has(k), remote.updates)
	}
	for d, b := range remote.cas {
		if bytes.Contains(b, []byte("hunter2")) {
			t.Errorf("the remote's blob %s holds the argument", d)
		}
	}
	filepath.WalkDir(store, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("hunter2")) {
				t.Errorf("the store's %s holds the argument", strings.TrimPrefix(p, store))
			}
		}
		return nil
	})
	// Another store, another secret: another hash, never the text.
	c2, _ := New(Options{Dir: testdir.New(t), Root: root, Read: true})
	if h1, h2 := c.HideArg(secret), c2.HideArg(secret); h1 == h2 || !strings.HasPrefix(h1, "hmac-sha256:") {
		t.Errorf("HideArg: %q and %q with two secrets", h1, h2)
	}
	c2.CloseReadOnly()
}
