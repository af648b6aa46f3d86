package cache

import "github.com/vxrun/vx/internal/cache/key"

// keyBytes are the encodings of a key's Action, Command and input list.
type keyBytes struct{ action, command, manifest []byte }

// keyBytesOf returns k's encoded parts ([key.Key.Parts]).
func keyBytesOf(k *Key) keyBytes {
	a, c, m := k.Parts()
	return keyBytes{a, c, m}
}

// envHash is the value of the variable name as a key made with ek holds it.
func envHash(ek *EnvKey, name, value string) string {
	return key.Compute(&TaskSpec{Env: []Property{{Name: name, Value: value}}}, nil, nil, ek).Env[0].Value
}
