package cache

import (
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/testdir"
)

// TestCacheMissesUnderAnotherSecret: an entry stored with one secret is
// not found with another: a changed secret makes misses, never a hit on
// another secret's entry.
func TestCacheMissesUnderAnotherSecret(t *testing.T) {
	dir := testdir.New(t)
	open := func(ek *EnvKey) *Cache {
		c, err := New(Options{Dir: dir, Root: testdir.New(t), Read: true, Write: true, EnvKey: ek})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	spec := &TaskSpec{ID: "web#build", RelDir: "web", Argv: []string{"build"}, Env: []reapi.Property{{Name: "NODE_ENV", Value: "production"}}}
	first := open(nil) // the store's own secret
	k := key.Compute(spec, nil, first.keys.Platform(), first.keys.EnvKey())
	f := &whyFixture{c: first}
	f.store(t, k)
	if !first.Has(k) {
		t.Fatal("the stored entry is not found with its own secret")
	}
	if !open(nil).Has(key.Compute(spec, nil, first.keys.Platform(), open(nil).keys.EnvKey())) {
		t.Error("the store's secret changed between two runs")
	}
	for _, ek := range []*EnvKey{SigningEnvKey("team-key-0123456789"), PublicEnvKey()} {
		c := open(ek)
		if c.Has(key.Compute(spec, nil, c.keys.Platform(), c.keys.EnvKey())) {
			t.Errorf("%s: a hit on the entry of another secret", ek.Name)
		}
	}
}

// TestWhySecretChanged: when the secret changed, vx why says so once and
// does not claim that every variable changed.
func TestWhySecretChanged(t *testing.T) {
	f := newWhyFixture(t)
	f.store(t, f.key())
	f.ek = SigningEnvKey("team-key-0123456789")
	f.spec.Env = append(f.spec.Env, reapi.Property{Name: "ADDED", Value: "1"})
	w := f.c.Why(f.key(), nil)
	var kinds []string
	for _, c := range w.Changes {
		kinds = append(kinds, c.Kind+" "+c.Change+" "+c.Name)
	}
	want := "platform modified env-key,env added ADDED"
	if strings.Join(kinds, ",") != want {
		t.Errorf("changes %q, want %q", kinds, want)
	}
	if !strings.HasPrefix(w.Reason, "the secret the variables' values are hashed with changed (store:") ||
		!strings.Contains(w.Reason, "→ signing-key:") {
		t.Errorf("reason %q", w.Reason)
	}
}
