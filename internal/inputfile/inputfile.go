// Package inputfile reads the files vx takes its input from — package.json,
// vx.json and pnpm-workspace.yaml, the store's entries, a task's input
// files — refusing those it must not read whole: a name that leads to
// something other than a regular file (a named pipe would block or end
// early, a device such as /dev/zero never ends) and a file larger than the
// limit. It also opens the files vx writes in place ([OpenWrite]) without
// following a symbolic link it did not make.
//
// Platform special cases: on Unix a named pipe is opened non-blocking, so
// that opening it never waits for a writer, and refused by fstat; a write
// opens with O_NOFOLLOW. On Windows, where opening a file never waits for a
// writer, a write refuses a name whose last element is a symbolic link,
// junction or other reparse point (checked with Lstat just before the open).
package inputfile

import "errors"

// MaxSize is the largest input file vx reads: 16 MiB. The largest
// package.json files of real monorepos are a few hundred KiB.
const MaxSize = 16 << 20

// ErrNotRegular is wrapped by the error [Read] returns for a name that
// leads (perhaps through symbolic links) to something other than a regular
// file: a directory, a named pipe, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error [Read] returns for a file larger
// than [MaxSize].
var ErrTooLarge = errors.New("larger than 16 MiB, the most vx reads from package.json, vx.json or pnpm-workspace.yaml")

// ErrLarger is wrapped by the error [ReadLimit] returns for a file larger
// than its limit.
var ErrLarger = errors.New("larger than the most vx reads from such a file")

// ErrLink is wrapped by the error [OpenWrite] returns for a name that is a
// symbolic link (or, on Windows, another reparse point): vx does not write
// through a link it did not make.
var ErrLink = errors.New("is a symbolic link, which vx does not write through")

// Read reads the whole regular file name, at most [MaxSize] bytes. Errors
// are *fs.PathError values; one wrapping [ErrNotRegular] or [ErrTooLarge]
// when the file is refused.
func Read(name string) ([]byte, error) {
	return read(name, MaxSize, ErrTooLarge)
}

// ReadLimit reads the whole regular file name as [Read] does, refusing one
// larger than limit bytes with an error wrapping [ErrLarger].
func ReadLimit(name string, limit int64) ([]byte, error) {
	return read(name, limit, ErrLarger)
}
