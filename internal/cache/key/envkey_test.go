package key

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
