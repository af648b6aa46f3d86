package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/testdir"
)

func sha256Hex(v string) string {
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:])
}

// TestEnvKeyHidesValues: a declared value enters the key as a keyed hash,
// never in plain text nor as its plain SHA-256 (which anyone can check a
// guess against); two secrets give two keys (a miss, never a wrong hit);
// the same secret gives the same key, on any store.
func TestEnvKeyHidesValues(t *testing.T) {
	spec := func() *TaskSpec {
		return &TaskSpec{ID: "web#deploy", RelDir: "web", Argv: []string{"deploy"},
			Env: []reapi.Property{{Name: "DEPLOY_ENV", Value: "prod"}, {Name: "PIN", Value: "493817"}}}
	}
	key := func(ek *EnvKey) *Key { return keyOf(spec(), nil, nil, nil, ek) }

	storeA, err := store.OpenStore(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	storeB, err := store.OpenStore(testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	a, err := storeEnvKey(storeA)
	if err != nil {
		t.Fatal(err)
	}
	b, err := storeEnvKey(storeB)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]*Key{
		"store A": key(a), "store B": key(b),
		"signing key k1": key(SigningEnvKey("k1-0123456789abcdef")), "signing key k2": key(SigningEnvKey("k2-0123456789abcdef")),
		"public": key(PublicEnvKey()),
	}
	seen := map[Digest]string{}
	for name, k := range keys {
		if other, dup := seen[k.Action]; dup {
			t.Errorf("%s and %s give the same key", name, other)
		}
		seen[k.Action] = name
		for i, e := range k.Env {
			v := spec().Env[i].Value
			if !strings.HasPrefix(e.Value, "hmac-sha256:") || strings.Contains(e.Value, v) || strings.Contains(e.Value, sha256Hex(v)) {
				t.Errorf("%s: %s enters the key as %q", name, e.Name, e.Value)
			}
			for _, bytes := range [][]byte{k.command, k.action} {
				if strings.Contains(string(bytes), v) || strings.Contains(string(bytes), sha256Hex(v)) {
					t.Errorf("%s: the key's blobs hold %s's value or its SHA-256", name, e.Name)
				}
			}
		}
	}
	// The same secret, the same key: a store read again, a signing key on
	// another machine.
	again, err := store.OpenStore(storeA.Dir)
	if err != nil {
		t.Fatal(err)
	}
	a2, err := storeEnvKey(again)
	if err != nil {
		t.Fatal(err)
	}
	if key(a2).Action != keys["store A"].Action {
		t.Error("the store's secret read again gives another key")
	}
	if key(SigningEnvKey("k1-0123456789abcdef")).Action != keys["signing key k1"].Action {
		t.Error("one signing key gives two keys")
	}
	// The store's EnvKey is named after its secret without showing it.
	if secret, err := storeA.Secret(); err != nil || !strings.HasPrefix(a.Name, "store:") || strings.Contains(a.Name, hex.EncodeToString(secret)) {
		t.Errorf("the store's EnvKey is named %q (secret: %v)", a.Name, err)
	}
	// The same value under two names hashes apart: keys do not show that
	// two variables are equal.
	if a.hash("X", "v") == a.hash("Y", "v") {
		t.Error("one value under two names hashes the same")
	}
}

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
	k := keyOf(spec, nil, nil, first.platform(), first.envKey)
	f := &whyFixture{c: first}
	f.store(t, k)
	if !first.Has(k) {
		t.Fatal("the stored entry is not found with its own secret")
	}
	if !open(nil).Has(keyOf(spec, nil, nil, first.platform(), open(nil).envKey)) {
		t.Error("the store's secret changed between two runs")
	}
	for _, ek := range []*EnvKey{SigningEnvKey("team-key-0123456789"), PublicEnvKey()} {
		c := open(ek)
		if c.Has(keyOf(spec, nil, nil, c.platform(), c.envKey)) {
			t.Errorf("%s: a hit on the entry of another secret", ek.Name)
		}
	}
}

// TestWhySecretChanged: when the secret changed, vx why says so once and
// does not claim that every variable changed.
func TestWhySecretChanged(t *testing.T) {
	f := newWhyFixture(t)
	f.store(t, f.key())
	f.c.envKey = SigningEnvKey("team-key-0123456789")
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
