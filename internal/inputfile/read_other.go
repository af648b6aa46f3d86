//go:build !unix

package inputfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

func read(name string, limit int64, tooLarge error) ([]byte, error) {
	f, fi, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: tooLarge}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: tooLarge}
	}
	return data, nil
}

// Open opens name for reading when it leads to a regular file, and returns
// the file and what it is. Errors are *fs.PathError values; one wrapping
// [ErrNotRegular] for anything else.
func Open(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		kind := "a special file"
		if fi.IsDir() {
			kind = "a directory"
		}
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w but %s", ErrNotRegular, kind)}
	}
	return f, fi, nil
}

// OpenWrite opens name as os.OpenFile does, refusing a name that is a
// symbolic link or another reparse point (an error wrapping [ErrLink]) or
// leads to something other than a regular file ([ErrNotRegular]). The
// check is made just before the open: Windows has no O_NOFOLLOW that keeps
// the file's ordinary opening.
func OpenWrite(name string, flag int, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(name); err == nil {
		if fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: ErrLink}
		}
		if !fi.Mode().IsRegular() {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w", ErrNotRegular)}
		}
	}
	return os.OpenFile(name, flag, perm)
}
