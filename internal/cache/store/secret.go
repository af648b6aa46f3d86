package store

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/quote"
)

// secretName is the file of the store that holds its secret.
const secretName = "env-key"

const secretMagic = "vx-env-key 1\n"

// Secret returns the store's own secret, which the values of a key's
// variables are hashed with on a machine without a remote cache: 32
// random bytes created with the store (the file env-key, readable by its
// owner only) and read by every later run, so that keys stay the same from
// run to run on this machine and nowhere else. Concurrent runs creating it
// agree on one secret: each writes its own under tmp/ and links it into
// place, and the first link wins. A damaged file (or a named pipe, device
// or link in its place) is replaced, which makes every entry made with it
// a miss. A secret this user cannot read (another user's store) is never
// replaced: that is a *SecretError.
func (s *Store) Secret() ([]byte, error) {
	p := filepath.Join(s.Dir, secretName)
	if k, err := readSecret(p); k != nil || err != nil {
		return k, err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("cache: cannot make the store's secret: %w", err)
	}
	data := []byte(secretMagic + hex.EncodeToString(secret) + "\n")
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
		return secret, nil
	}
	if errors.Is(err, fs.ErrExist) {
		if k, err := readSecret(p); k != nil || err != nil {
			return k, err // another vx made it first
		}
	}
	// Damaged, or no hard link possible here: a rename is as whole,
	// though two first runs may then use two secrets (misses, once).
	if err := os.Rename(tmp, p); err != nil {
		// Windows refuses a rename over a file another vx has open: that
		// vx put its secret in place first.
		if k, _ := readSecret(p); k != nil {
			return k, nil
		}
		return nil, fmt.Errorf("cache: cannot write the store's secret: %w", err)
	}
	return secret, nil
}

// SecretError is a store's secret that exists but that this user cannot
// read: the store is shared with another user, who made it. vx does not
// replace it (that would turn the other user's entries into misses, and
// theirs would turn ours).
type SecretError struct {
	Path string
	Err  error
}

func (e *SecretError) Error() string {
	return fmt.Sprintf("cache: cannot read the store's secret %s (%v): the store belongs to another user, and vx does not replace "+
		"a secret it cannot read; use a store of your own (--cache-dir or VX_CACHE_DIR), or have its owner share it "+
		"(chmod 0640 on the file, with a group you are in)", quote.Q(e.Path), e.Err)
}

func (e *SecretError) Unwrap() error { return e.Err }

// readSecret reads the store's secret from p: nil and no error when there
// is none or it is damaged (it may be replaced), a *SecretError when it
// exists but cannot be read.
func readSecret(p string) ([]byte, error) {
	data, err := inputfile.ReadLimit(p, 4096)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &SecretError{Path: p, Err: err}
		}
		return nil, nil
	}
	h, ok := bytes.CutPrefix(data, []byte(secretMagic))
	h = bytes.TrimSuffix(h, []byte("\n"))
	secret, err := hex.DecodeString(string(h))
	if !ok || err != nil || len(secret) != 32 {
		return nil, nil
	}
	return secret, nil
}
