package cache

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/testdir"
)

// TestLockHolderStopped: the vx holding a task's lock was stopped with
// Ctrl-Z in another terminal. The waiting task says, once, which pid holds
// it, that it is stopped and what to do.
func TestLockHolderStopped(t *testing.T) {
	root := testdir.New(t)
	dir := filepath.Join(root, "node_modules", ".cache", "vx-locks")
	os.MkdirAll(dir, 0o755)
	sum := sha256.Sum256([]byte("p#build"))
	path := filepath.Join(dir, hex.EncodeToString(sum[:8]))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VXTEST_LOCK_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "held\n" {
		t.Fatalf("the holder said %q", line)
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	var warn bytes.Buffer
	c, err := New(Options{Dir: testdir.New(t), Root: root, Read: true, Write: true, Warn: &warn, Context: ctx})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.LockTask(key.Compute(&TaskSpec{ID: "p#build"}, nil, nil, nil)); ok {
		t.Fatal("took the lock a stopped vx holds")
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	want := "vx: p#build: waiting for another vx (pid " + pid + "), which holds its lock and is stopped (Ctrl-Z?): resume it with \"kill -CONT " + pid + "\""
	if got := warn.String(); !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("warnings:\n%s\nwant one line starting %q", got, want)
	}
}
