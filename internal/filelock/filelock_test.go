package filelock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TestMain lets the test binary hold a lock as another process would:
// with LOCKFILE_HOLD set, it takes that lock, says "held", and waits to be
// killed.
func TestMain(m *testing.M) {
	if p := os.Getenv("LOCKFILE_HOLD"); p != "" {
		if _, err := TryLock(p); err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestLockInProcess(t *testing.T) {
	p := filepath.Join(testdir.New(t), "lock")
	l, err := TryLock(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(p); !errors.Is(err, ErrHeld) {
		t.Fatalf("second TryLock = %v, want ErrHeld", err)
	}
	if got := Holder(p); got != os.Getpid() {
		t.Errorf("Holder = %d, want %d", got, os.Getpid())
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l, err = TryLock(p)
	if err != nil {
		t.Fatalf("TryLock after Unlock: %v", err)
	}
	l.Unlock()
}

// TestLockReleasedWhenHolderDies: a process killed outright leaves no
// lock behind.
func TestLockReleasedWhenHolderDies(t *testing.T) {
	p := filepath.Join(testdir.New(t), "lock")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "LOCKFILE_HOLD="+p)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("the holder said %q", line)
	}
	if _, err := TryLock(p); !errors.Is(err, ErrHeld) {
		t.Fatalf("TryLock while another process holds it = %v, want ErrHeld", err)
	}
	if got := Holder(p); got != cmd.Process.Pid {
		t.Errorf("Holder = %d, want the holder's pid %d", got, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := TryLock(p)
	if err != nil {
		t.Fatalf("TryLock after the holder was killed: %v", err)
	}
	l.Unlock()
}
