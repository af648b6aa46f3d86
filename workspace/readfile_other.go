//go:build !unix

package workspace

import "os"

// readFile is os.ReadFile where no leaner read is written (Windows, Plan 9,
// WebAssembly); see readfile_unix.go.
func readFile(name string) ([]byte, error) { return os.ReadFile(name) }
