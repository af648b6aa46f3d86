package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/internal/view"
)

// profileOut is where `vx run --profile` writes its trace: a file created
// before the run, so that a path that cannot be written fails before
// anything runs, and written after it, also when the run failed or was
// stopped. vx watch rewrites it after each round (keep: it stays open).
type profileOut struct {
	file *os.File
	name string
	prof view.Profile
	keep bool
}

func openProfile(p *Process, name string) (*profileOut, error) {
	if name == "" {
		return nil, usagef("--profile needs a file name, e.g. --profile trace.json")
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Dir, path)
	}
	f, err := createOwn(path)
	if err != nil {
		return nil, fmt.Errorf("--profile: cannot write %s: %w", quote.Q(name), err)
	}
	// A file there already is replaced only when it is a trace vx wrote:
	// `--profile vx.json` must not replace the config.
	head := make([]byte, len(traceHead))
	n, _ := io.ReadFull(f, head)
	if n > 0 && string(head[:n]) != traceHead {
		f.Close()
		return nil, fmt.Errorf("--profile: %s exists and is not a trace vx wrote; vx does not replace it: choose another name, or remove it first", quote.Q(name))
	}
	_, err = f.Seek(0, io.SeekStart) // the read above moved the offset
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--profile: cannot write %s: %w", quote.Q(name), err)
	}
	return &profileOut{file: f, name: name}, nil
}

// traceHead is how every trace vx writes starts.
const traceHead = `{"traceEvents":[`

// createOwn opens the file at path for writing, creating it, without
// truncating it: a symbolic link (or, on Windows, a junction or other
// reparse point) or a name that is not a regular file is refused, so that
// an output file of vx never writes through a link it did not make.
func createOwn(path string) (*os.File, error) {
	f, err := inputfile.OpenWrite(path, os.O_RDWR|os.O_CREATE, 0o644)
	var pe *fs.PathError
	if err != nil && errors.As(err, &pe) && (errors.Is(err, inputfile.ErrLink) || errors.Is(err, inputfile.ErrNotRegular)) {
		return nil, pe.Err
	}
	return f, err
}

// observer is what the run reports its tasks to; nil without --profile.
func (o *profileOut) observer() run.Observer {
	if o == nil {
		return nil
	}
	return &o.prof
}

func (o *profileOut) write(p *Process, out run.Outcome) error {
	command := "vx"
	for _, arg := range hideAfterDashes(p.Args, nil) { // the arguments after -- never in clear
		command += " " + quote.Name(arg)
	}
	err := rewrite(o.file, func(w io.Writer) error { return o.prof.Write(w, out, command, Version) })
	if !o.keep {
		if cerr := o.file.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("--profile: cannot write %s: %w", quote.Q(o.name), err)
	}
	return nil
}
