//go:build unix

package cache

import (
	"os"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/filelock"
)

// TestMain lets the test binary act as another vx holding a task's lock
// (VXTEST_LOCK_HOLD set): it takes the lock, says "held", and waits.
func TestMain(m *testing.M) {
	if p := os.Getenv("VXTEST_LOCK_HOLD"); p != "" {
		if _, err := filelock.TryLock(p); err != nil {
			os.Stdout.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("held\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}
