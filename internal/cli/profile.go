package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/internal/view"
)

// profileOut is where `vx run --profile` writes its trace: a file created
// before the run, so that a path that cannot be written fails before
// anything runs, and written after it, also when the run failed or was
// stopped.
type profileOut struct {
	file *os.File
	name string
	prof view.Profile
}

func openProfile(p *Process, name string) (*profileOut, error) {
	if name == "" {
		return nil, usagef("--profile needs a file name, e.g. --profile trace.json")
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.Dir, path)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--profile: cannot write %s: %w", quote.Q(name), err)
	}
	return &profileOut{file: f, name: name}, nil
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
	err := o.prof.Write(o.file, out, command, Version)
	if cerr := o.file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--profile: cannot write %s: %w", quote.Q(o.name), err)
	}
	return nil
}
