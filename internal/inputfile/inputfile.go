// Package inputfile reads the files vx takes its input from — package.json,
// vx.json and pnpm-workspace.yaml — refusing those it must not read whole:
// a name that leads to something other than a regular file (a named pipe
// would block or end early, a device such as /dev/zero never ends) and a
// file larger than [MaxSize].
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
