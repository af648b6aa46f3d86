package workspace

import (
	"errors"
	"io/fs"

	"github.com/vxrun/vx/internal/diag"
)

// ErrNoPackageJSON is wrapped by the error Discover returns when neither the
// start directory nor any directory above it holds a package.json.
var ErrNoPackageJSON = errors.New("no package.json found")

// posError is a problem found while parsing a file's bytes, before the
// caller knows how to name the file. The caller turns it into a
// *diag.Error with fileError.
type posError struct {
	line, col int
	msg       string
	err       error
}

func (e *posError) Error() string {
	// Only seen if a posError escapes unnamed, which the callers prevent;
	// kept readable anyway.
	return fileError("?", e).Error()
}

// fileError names the file a parse error came from, as a *diag.Error. Other
// errors pass through.
func fileError(path string, err error) error {
	var pe *posError
	if errors.As(err, &pe) {
		return &diag.Error{Path: path, Line: pe.line, Col: pe.col, Msg: pe.msg, Err: pe.err}
	}
	return err
}

// readError is the error for a file that exists but cannot be read.
func readError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is already in front; keep the cause only, still wrapped
	}
	return &diag.Error{Path: path, Msg: "cannot read", Err: err}
}
