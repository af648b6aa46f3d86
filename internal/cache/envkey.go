package cache

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/quote"
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
//   - [Store.EnvKey]: a random secret of one store, for a machine without a
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

// envKeyProperty is the platform property that names the EnvKey of a key.
const envKeyProperty = "env-key"

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
func (c *Cache) HideArg(a string) string { return c.envKey.hash(argName, a) }

// envKeyName is the file of the store that holds its EnvKey's secret.
const envKeyName = "env-key"

const envKeyMagic = "vx-env-key 1\n"

// EnvKey returns the store's own EnvKey: a random 32-byte secret created
// with the store (the file env-key, readable by its owner only) and read
// by every later run, so that keys stay the same from run to run on this
// machine and nowhere else. Concurrent runs creating it agree on one
// secret: each writes its own under tmp/ and links it into place, and the
// first link wins. A damaged file (or a named pipe, device or link in its
// place) is replaced, which makes every entry made with it a miss. A
// secret this user cannot read (another user's store) is never replaced:
// that is an *EnvKeyError.
func (s *Store) EnvKey() (*EnvKey, error) {
	p := filepath.Join(s.Dir, envKeyName)
	if k, err := readEnvKey(p); k != nil || err != nil {
		return k, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("cache: cannot make the store's secret: %w", err)
	}
	data := []byte(envKeyMagic + hex.EncodeToString(secret) + "\n")
	f, err := os.CreateTemp(filepath.Join(s.Dir, "tmp"), "w-env-key-*") // "w-": prune removes it when stale
	if err != nil {
		return nil, fmt.Errorf("cache: cannot write the store's secret: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.Write(data) // CreateTemp made it readable by its owner only (0600)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("cache: cannot write the store's secret: %w", err)
	}
	err = os.Link(tmp, p)
	if err == nil {
		return newEnvKey("store", secret), nil
	}
	if errors.Is(err, fs.ErrExist) {
		if k, err := readEnvKey(p); k != nil || err != nil {
			return k, err // another vx made it first
		}
	}
	// Damaged, or no hard link possible here: a rename is as whole,
	// though two first runs may then use two secrets (misses, once).
	if err := os.Rename(tmp, p); err != nil {
		// Windows refuses a rename over a file another vx has open: that
		// vx put its secret in place first.
		if k, _ := readEnvKey(p); k != nil {
			return k, nil
		}
		return nil, fmt.Errorf("cache: cannot write the store's secret: %w", err)
	}
	return newEnvKey("store", secret), nil
}

// EnvKeyError is a store's secret that exists but that this user cannot
// read: the store is shared with another user, who made it. vx does not
// replace it (that would turn the other user's entries into misses, and
// theirs would turn ours).
type EnvKeyError struct {
	Path string
	Err  error
}

func (e *EnvKeyError) Error() string {
	return fmt.Sprintf("cache: cannot read the store's secret %s (%v): the store belongs to another user, and vx does not replace "+
		"a secret it cannot read; use a store of your own (--cache-dir or VX_CACHE_DIR), or have its owner share it "+
		"(chmod 0640 on the file, with a group you are in)", quote.Q(e.Path), e.Err)
}

func (e *EnvKeyError) Unwrap() error { return e.Err }

// readEnvKey reads the store's secret from p: nil and no error when there
// is none or it is damaged (it may be replaced), an *EnvKeyError when it
// exists but cannot be read.
func readEnvKey(p string) (*EnvKey, error) {
	data, err := inputfile.ReadLimit(p, 4096)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &EnvKeyError{Path: p, Err: err}
		}
		return nil, nil
	}
	h, ok := bytes.CutPrefix(data, []byte(envKeyMagic))
	h = bytes.TrimSuffix(h, []byte("\n"))
	secret, err := hex.DecodeString(string(h))
	if !ok || err != nil || len(secret) != 32 {
		return nil, nil
	}
	return newEnvKey("store", secret), nil
}
