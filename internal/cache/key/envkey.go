package key

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// EnvKey is the secret the values of a key's variables are hashed with:
// each value enters the key as HMAC-SHA256(secret, name NUL value), so that
// whoever reads a key (--dry-run=json, the store, a remote cache) cannot
// check a guess of a value without the secret. Keys made with two secrets
// differ: a changed secret makes misses, never a wrong hit.
//
// Where the secret comes from decides who can check guesses, and which
// machines share keys (docs/cache.md, "Declared values"):
//   - [SigningEnvKey]: derived from the remote cache's signing key, shared
//     by the team's machines and CI, which then share entries;
//   - [StoreEnvKey]: the store's own random secret, for a machine without a
//     remote cache;
//   - [PublicEnvKey]: a secret everyone knows, for a remote cache without a
//     signing key: machines share entries, and anyone who reads a key can
//     check a guess of a value in it.
type EnvKey struct {
	secret []byte
	// Name says where the secret comes from, with a fingerprint of it
	// ("store:3f2a9c0b1d4e5f60", "signing-key:…", "public"): the key's
	// platform property env-key, so that `vx why` can tell a changed
	// secret from changed values. The fingerprint reveals nothing of the
	// secret.
	Name string

	mu   sync.Mutex
	seen map[string]string // name NUL value → hash: a run's tasks share most of their variables
}

// EnvKeyProperty is the platform property that names the EnvKey of a key.
const EnvKeyProperty = "env-key"

func newEnvKey(source string, secret []byte) *EnvKey {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("vx env key fingerprint v1"))
	return &EnvKey{secret: secret, Name: source + ":" + hex.EncodeToString(m.Sum(nil)[:8])}
}

// SigningEnvKey returns the EnvKey derived from a remote cache's signing
// key (VX_REMOTE_SIGNING_KEY): HMAC-SHA256(signingKey, "vx env values v1").
// Everyone holding the signing key computes the same keys; nobody without
// it can check a guess of a value. It is only as hard to guess as the
// signing key: a key's variables include values anyone knows (CI=true), so
// a short signing key can be found from a key by trying candidates.
func SigningEnvKey(signingKey string) *EnvKey {
	m := hmac.New(sha256.New, []byte(signingKey))
	m.Write([]byte("vx env values v1"))
	return newEnvKey("signing-key", m.Sum(nil))
}

// PublicEnvKey returns the EnvKey every vx knows: keys still match across
// machines, and a value can be guessed from them (checked against a
// list of candidates), as with a plain hash.
func PublicEnvKey() *EnvKey {
	return &EnvKey{secret: []byte("vx env values public v1"), Name: "public"}
}

// hash is how a variable's value enters the key: never in plain text.
func (k *EnvKey) hash(name, value string) string {
	id := name + "\x00" + value // the bytes the HMAC reads
	k.mu.Lock()
	h, ok := k.seen[id]
	k.mu.Unlock()
	if ok {
		return h
	}
	m := hmac.New(sha256.New, k.secret)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write([]byte(value))
	h = "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
	k.mu.Lock()
	if k.seen == nil {
		k.seen = map[string]string{}
	}
	k.seen[id] = h
	k.mu.Unlock()
	return h
}

// argName is the name an argument after -- is hashed under.
const argName = "--"

// hideArgs returns args each as ek hashes it.
func hideArgs(ek *EnvKey, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = ek.hash(argName, a)
	}
	return out
}

// HideArg returns an argument after -- as the key holds it and as vx
// shows it (the dry run, --summary): its hash with the secret of the
// variables' values ("hmac-sha256:..."), so that a --password=... never
// reaches the store, a remote cache or a report in plain text, and the key
// still changes with it.
func (c *Computer) HideArg(a string) string { return c.envKey.hash(argName, a) }

// StoreEnvKey returns the EnvKey of a store's own secret
// (internal/cache/store's Store.Secret), for a machine without a remote
// cache: 32 random bytes that only this machine's runs know.
func StoreEnvKey(secret []byte) *EnvKey { return newEnvKey("store", secret) }
