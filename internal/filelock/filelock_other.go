//go:build (!unix && !windows) || aix || solaris || illumos

package filelock

import "errors"

// Lock is never held where vx has no file locks.
type Lock struct{}

func tryLock(string) (*Lock, error) { return nil, errors.ErrUnsupported }

// Unlock does nothing.
func (l *Lock) Unlock() error { return nil }
