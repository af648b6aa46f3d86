//go:build !linux

package exec

import (
	"errors"
	"time"
)

// BecomeSubreaper makes vx the child subreaper of its descendants; only
// Linux has one (PR_SET_CHILD_SUBREAPER). macOS and the BSDs other than
// FreeBSD's procctl have no equivalent a process can set on itself, and on
// Windows a task's job object already holds every process it starts.
func BecomeSubreaper() error { return errors.ErrUnsupported }

// EndOrphans ends the children vx still has; without a subreaper there
// are none to find, and it returns 0.
func EndOrphans(time.Duration) int { return 0 }
