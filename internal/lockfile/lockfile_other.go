//go:build (!unix && !windows) || aix || solaris || illumos

package lockfile

import (
	"errors"
	"os"
)

func lock(*os.File) error { return errors.ErrUnsupported }

func unlock(*os.File) {}
