//go:build unix

package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary act as a second user of a shared store:
// with VXTEST_ENVKEY_STORE set, it asks that store for its secret and
// prints the error, if any.
func TestMain(m *testing.M) {
	if dir := os.Getenv("VXTEST_ENVKEY_STORE"); dir != "" {
		st := &Store{Dir: dir}
		if _, err := st.Secret(); err != nil {
			os.Stdout.WriteString(err.Error())
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSecretOfAnotherUser: in a store two users share (its directories
// writable by both), the one who cannot read the other's 0600 secret gets
// an error saying what to do, and the secret stays as it was.
func TestSecretOfAnotherUser(t *testing.T) {
	dir, err := os.MkdirTemp("", "vxtest-shared-store")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	st, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Secret(); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "tmp")} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, secretName)
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	if os.Getuid() == 0 {
		// root reads any file: ask as another user (nobody).
		// (a copy of the test binary it can run: go test's is in a 0700 directory)
		bin := filepath.Join(t.TempDir(), "store.test")
		if data, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(bin, data, 0o755) != nil {
			t.Fatal("cannot copy the test binary")
		}
		binDir, err := os.MkdirTemp("", "vxtest-bin")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(binDir) })
		if err := os.Rename(bin, filepath.Join(binDir, "store.test")); err != nil {
			t.Fatal(err)
		}
		os.Chmod(binDir, 0o755)
		cmd := exec.Command(filepath.Join(binDir, "store.test"), "-test.run=^$")
		cmd.Env = append(os.Environ(), "VXTEST_ENVKEY_STORE="+dir)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err = cmd.Output()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Skipf("cannot run the test as another user (nobody): %v", err)
		}
		if err == nil {
			t.Error("another user's Secret succeeded")
		}
	} else {
		if err := os.Chmod(p, 0o000); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(p, 0o600)
		_, err = st.Secret()
		var se *SecretError
		if !errors.As(err, &se) {
			t.Errorf("Secret of an unreadable secret = %v, want a *SecretError", err)
		}
		if err != nil {
			out = []byte(err.Error())
		}
	}
	if msg := string(out); !strings.Contains(msg, "permission denied") || !strings.Contains(msg, "--cache-dir") {
		t.Errorf("error = %q, want one naming the cause and what to do", msg)
	}
	os.Chmod(p, 0o600)
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Error("the other user's secret was replaced")
	}
}
