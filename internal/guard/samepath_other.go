//go:build !windows

package guard

// samePathText compares two cleaned absolute paths as text.
func samePathText(a, b string) bool { return a == b }
