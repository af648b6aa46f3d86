//go:build !unix

package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Read reads the whole regular file name. Errors are *fs.PathError values;
// one wrapping [ErrNotRegular] or [ErrTooLarge] when the file is refused.
func Read(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		kind := "a special file"
		if fi.IsDir() {
			kind = "a directory"
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w but %s", ErrNotRegular, kind)}
	}
	if fi.Size() > MaxSize {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxSize {
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
	}
	return data, nil
}
