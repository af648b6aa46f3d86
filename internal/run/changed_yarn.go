package run

import (
	"path"
	"path/filepath"
	"slices"

	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/lockfile"
)

// parseLockfiles reads the lockfile name as it was at the commit sha
// (before) and as it is now. Yarn classic's yarn.lock lists no projects:
// it is read with the projects' package.json files of the same time, each
// as committed at sha when the changes hold it (not at all when it did not
// exist then), else as it is now. A project the lockfile does not resolve
// (a range with no entry) has no closure: [lockfile.Same] is false for it,
// so it is changed.
func (f *filterer) parseLockfiles(c *changes, sha, name string, before, now []byte) (a, b *lockfile.Lockfile, err error) {
	if !lockfile.NeedsProjects(name, before) && !lockfile.NeedsProjects(name, now) {
		if a, err = lockfile.Parse(name, before); err != nil {
			return nil, nil, err
		}
		b, err = lockfile.Parse(name, now)
		return a, b, err
	}
	var was, is []lockfile.Project
	for _, p := range f.ws.Projects {
		manifest := path.Join(p.RelDir, "package.json")
		data, err := inputfile.Read(filepath.Join(f.ws.Root, filepath.FromSlash(manifest)))
		if err != nil {
			return nil, nil, err
		}
		pr, err := lockfile.ManifestProject(p.RelDir, data)
		if err != nil {
			return nil, nil, err
		}
		is = append(is, pr)
		if !slices.Contains(c.byProject[p], manifest) {
			was = append(was, pr)
			continue
		}
		old, err := f.gitRun("show", sha+":./"+manifest)
		if err != nil {
			continue // not there at sha (git says so for a path it does not have)
		}
		if pr, err = lockfile.ManifestProject(p.RelDir, old); err != nil {
			return nil, nil, err
		}
		was = append(was, pr)
	}
	if a, err = lockfile.ParseWorkspacePartial(name, before, was); err != nil {
		return nil, nil, err
	}
	b, err = lockfile.ParseWorkspacePartial(name, now, is)
	return a, b, err
}
