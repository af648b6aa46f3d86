package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/quote"
)

// BlobError is a blob that could not be read during a restore.
type BlobError struct {
	Digest reapi.Digest
	Err    error
}

func (e *BlobError) Error() string { return e.Err.Error() }
func (e *BlobError) Unwrap() error { return e.Err }

// fileMode is the mode a restored file gets: its recorded permission bits
// without setuid, setgid or sticky, else 0755 or 0644 by is_executable.
func fileMode(f reapi.OutputFile) os.FileMode {
	if f.Mode != 0 {
		return os.FileMode(f.Mode & 0o777)
	}
	if f.Executable {
		return 0o755
	}
	return 0o644
}

// Owner says which files under a task's outputs a restore may replace or
// remove: only those vx can show the task produced.
type Owner struct {
	// Yours holds the project-relative paths of the user's files that the
	// outputs match (see fileState.yours): a restore leaves them as they
	// are, and an entry that holds one is refused.
	Yours map[string]bool
	// Mine returns nil when every file at the project-relative paths, which
	// the restore would replace or remove, is the task's; else an error
	// that names one that is not, and why.
	Mine func(rels []string) error
	// Wrote is told the files the restore wrote (fresh: there was no file
	// at the path before) or found in place.
	Wrote func(rels []string, fresh []bool)
}

// ConflictError is a restore refused because it would replace or remove
// a file of the user's.
type ConflictError struct{ Msg string }

func (e *ConflictError) Error() string { return e.Msg }

// Restore makes the outputs under dir those of r, leaving the
// user's files (own.Yours) as they are: every file is first written beside
// its place and checked against its digest; only when all are, the files
// of the outputs that r does not hold are removed and the new ones renamed
// into place. Before anything changes, own.Mine must accept every file
// that would be replaced or removed; else the result is a *ConflictError
// and the project is as it was. A nil own accepts every file.
func Restore(st *store.Store, outputs []string, r *reapi.ActionResult, dir string, own *Owner) error {
	if own == nil {
		own = &Owner{Mine: func([]string) error { return nil }, Wrote: func([]string, []bool) {}}
	}
	p := &restorePlan{outputs: outputs, r: r, dir: dir}
	if err := p.refuseYours(own.Yours); err != nil {
		return err
	}
	if err := p.placeFiles(); err != nil {
		return err
	}
	if err := p.placeLinks(); err != nil {
		return err
	}
	if err := p.findStale(filepath.Clean(st.Dir), own.Yours); err != nil {
		return err
	}
	if err := p.checkDoomed(own); err != nil {
		return err
	}
	staged, err := p.stage(st)
	if err != nil {
		return err
	}
	if err := p.apply(staged); err != nil {
		return err
	}
	own.Wrote(p.written())
	return nil
}

// restorePlan is what a restore of r into the project directory dir will
// do, worked out before it changes anything: which of r's files and links
// it writes, which are in place already, and which files of the project
// it replaces or removes.
type restorePlan struct {
	outputs []string
	r       *reapi.ActionResult
	dir     string

	inEntry         map[string]bool // the paths r holds, project-relative
	files, links    []placed        // r's files and links to write
	kept, keptLinks []placed        // r's files and links already in place
	doomed          []string        // project-relative files the restore replaces or removes
	stale           []string        // files of the outputs r does not hold (in doomed too)
}

// placed is one of r's files or links where the restore puts it.
type placed struct {
	i     int  // index in r.OutputFiles or r.OutputSymlinks
	fresh bool // no file was at its place
}

// stagedFile is a file of r written beside its place, to be renamed there.
type stagedFile struct{ tmp, dst string }

// refuseYours refuses an entry that holds one of the user's files.
func (p *restorePlan) refuseYours(yours map[string]bool) error {
	p.inEntry = map[string]bool{}
	for _, f := range p.r.OutputFiles {
		p.inEntry[f.Path] = true
	}
	for _, s := range p.r.OutputSymlinks {
		p.inEntry[s.Path] = true
	}
	for rel := range p.inEntry {
		if yours[rel] {
			return &ConflictError{fmt.Sprintf("the entry holds %s, a file of yours", rel)}
		}
	}
	return nil
}

// placeFiles sorts r's files into those to write and those already in
// place, and dooms what stands in the way of the others.
func (p *restorePlan) placeFiles() error {
	for i, f := range p.r.OutputFiles {
		if err := checkParents(p.outputs, p.dir, f.Path, &p.doomed); err != nil {
			return err
		}
		dst := filepath.Join(p.dir, filepath.FromSlash(f.Path))
		fi, err := os.Lstat(dst)
		switch {
		case err != nil:
			p.files = append(p.files, placed{i, true})
		case fi.IsDir():
			if err := p.doomDir(dst); err != nil {
				return err
			}
			p.files = append(p.files, placed{i, false})
		case holds(dst, f.Digest, fileMode(f)):
			p.kept = append(p.kept, placed{i, false}) // already in place, as after the run that stored it
		default:
			p.doomed = append(p.doomed, f.Path)
			p.files = append(p.files, placed{i, false})
		}
	}
	return nil
}

// placeLinks is placeFiles for r's symbolic links.
func (p *restorePlan) placeLinks() error {
	for i, s := range p.r.OutputSymlinks {
		if err := checkParents(p.outputs, p.dir, s.Path, &p.doomed); err != nil {
			return err
		}
		dst := filepath.Join(p.dir, filepath.FromSlash(s.Path))
		fi, err := os.Lstat(dst)
		switch {
		case err != nil:
			p.links = append(p.links, placed{i, true})
		case fi.Mode()&fs.ModeSymlink != 0 && readlink(dst) == filepath.FromSlash(s.Target):
			p.keptLinks = append(p.keptLinks, placed{i, false}) // already pointing where the entry says
		case fi.IsDir():
			if err := p.doomDir(dst); err != nil {
				return err
			}
			p.links = append(p.links, placed{i, false})
		default:
			p.doomed = append(p.doomed, s.Path)
			p.links = append(p.links, placed{i, false})
		}
	}
	return nil
}

// doomDir dooms the directory at abs, where the entry has a file: it goes
// whole, so every file in it must be one the outputs match, else the
// restore is refused (a file the globs exclude, "!dist/out/notes.txt", is
// never the task's).
func (p *restorePlan) doomDir(abs string) error {
	top, _ := filepath.Rel(p.dir, abs)
	return filepath.WalkDir(abs, func(fp string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(p.dir, fp)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !key.MatchGlobs(p.outputs, "", rel, true) {
			return &ConflictError{fmt.Sprintf("it would replace the directory %s, which holds %s, a file the outputs do not match",
				quote.Q(filepath.ToSlash(top)), quote.Q(rel))}
		}
		p.doomed = append(p.doomed, rel)
		return nil
	})
}

// findStale dooms the files of the outputs that r does not hold, but the
// user's (yours); skip is the store's directory. The temporary files of a
// restore that was killed are found in the same walk, and removed now,
// before anything is staged.
func (p *restorePlan) findStale(skip string, yours map[string]bool) error {
	existing, leftovers, err := findAndLeftovers(p.outputs, p.dir, skip)
	if err != nil {
		return err
	}
	for _, rel := range leftovers {
		if err := os.Remove(filepath.Join(p.dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, e := range existing {
		if !p.inEntry[e.Rel] && !yours[e.Rel] {
			p.stale = append(p.stale, e.Rel)
		}
	}
	p.doomed = append(p.doomed, p.stale...)
	return nil
}

// checkDoomed refuses the restore unless every file it would replace or
// remove is the task's, as own says.
func (p *restorePlan) checkDoomed(own *Owner) error {
	for _, rel := range p.doomed {
		if own.Yours[rel] {
			return &ConflictError{fmt.Sprintf("it would replace or remove %s, a file of yours", rel)}
		}
	}
	return own.Mine(p.doomed)
}

// stage writes each new file beside its place, checked against its
// digest, making the directories it needs. On an error, what it wrote is
// removed.
func (p *restorePlan) stage(st *store.Store) ([]stagedFile, error) {
	var staged []stagedFile
	for _, pl := range p.files {
		f := p.r.OutputFiles[pl.i]
		dst := filepath.Join(p.dir, filepath.FromSlash(f.Path))
		err := makeParents(p.dir, f.Path)
		var tmp string
		if err == nil {
			tmp, err = stageBlob(st, f.Digest, filepath.Dir(dst), fileMode(f))
		}
		if err != nil {
			removeStaged(staged)
			return nil, err
		}
		staged = append(staged, stagedFile{tmp, dst})
	}
	return staged, nil
}

// removeStaged removes the staged files not renamed into place.
func removeStaged(staged []stagedFile) {
	for _, s := range staged {
		os.Remove(s.tmp)
	}
}

// apply changes the project: the stale files go, the staged files are
// renamed into place (replacing a directory there, whose files were found
// the task's), and the links are made. On an error the staged files not
// yet in place are removed.
func (p *restorePlan) apply(staged []stagedFile) error {
	if err := p.removeStale(); err != nil {
		removeStaged(staged)
		return err
	}
	for _, s := range staged {
		if fi, err := os.Lstat(s.dst); err == nil && fi.IsDir() {
			if err := removeTree(s.dst); err != nil {
				removeStaged(staged)
				return err
			}
		}
		if err := os.Rename(s.tmp, s.dst); err != nil {
			removeStaged(staged)
			return fmt.Errorf("restoring %s: %w", s.dst, err)
		}
	}
	return p.makeLinks()
}

// removeStale makes the directories of the links to write and removes the
// stale files.
func (p *restorePlan) removeStale() error {
	for _, pl := range p.links {
		if err := makeParents(p.dir, p.r.OutputSymlinks[pl.i].Path); err != nil {
			return err
		}
	}
	for _, rel := range p.stale {
		if err := os.Remove(filepath.Join(p.dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing %s: %w", rel, err)
		}
	}
	return nil
}

// makeLinks makes the links to write, replacing what stands at their place.
func (p *restorePlan) makeLinks() error {
	for _, pl := range p.links {
		s := p.r.OutputSymlinks[pl.i]
		dst := filepath.Join(p.dir, filepath.FromSlash(s.Path))
		if fi, err := os.Lstat(dst); err == nil {
			if fi.IsDir() {
				err = removeTree(dst)
			} else {
				err = os.Remove(dst)
			}
			if err != nil {
				return err
			}
		}
		if err := os.Symlink(filepath.FromSlash(s.Target), dst); err != nil {
			return fmt.Errorf("restoring the symbolic link %s: %w", s.Path, err)
		}
	}
	return nil
}

// written returns the files and links of r now in place, written or found
// there, and whether there was no file at each one's place before.
func (p *restorePlan) written() (rels []string, fresh []bool) {
	for _, pl := range append(p.files, p.kept...) {
		rels, fresh = append(rels, p.r.OutputFiles[pl.i].Path), append(fresh, pl.fresh)
	}
	for _, pl := range append(p.links, p.keptLinks...) {
		rels, fresh = append(rels, p.r.OutputSymlinks[pl.i].Path), append(fresh, pl.fresh)
	}
	return rels, fresh
}

func readlink(p string) string {
	t, _ := os.Readlink(p)
	return t
}

// checkParents checks the directories of rel below dir, as a restore will
// make them: it refuses to go through a symbolic link (which could lead out
// of the project), and adds to doomed a file that stands where a directory
// must be, which must be an output.
func checkParents(outputs []string, dir, rel string, doomed *[]string) error {
	cur := dir
	elems := strings.Split(rel, "/")
	for i, e := range elems[:len(elems)-1] {
		cur = filepath.Join(cur, e)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("refused: %s is a symbolic link; vx restores outputs only through real directories", cur)
		case !fi.IsDir():
			p := strings.Join(elems[:i+1], "/")
			if !key.MatchGlobs(outputs, "", p, true) {
				return fmt.Errorf("refused: %s is a file, not a directory, and not an output", cur)
			}
			*doomed = append(*doomed, p)
			return nil
		}
	}
	return nil
}

// makeParents creates the directories of rel below dir, replacing a file
// that stands where a directory must be (checkParents found it an output,
// and the task's).
func makeParents(dir, rel string) error {
	cur := dir
	elems := strings.Split(rel, "/")
	for _, e := range elems[:len(elems)-1] {
		cur = filepath.Join(cur, e)
		fi, err := os.Lstat(cur)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(cur, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("refused: %s is a symbolic link; vx restores outputs only through real directories", cur)
		case !fi.IsDir():
			if err := os.Remove(cur); err != nil {
				return err
			}
			if err := os.Mkdir(cur, 0o755); err != nil {
				return err
			}
		}
	}
	return nil
}

// holds reports whether the file at p is a regular file with the content
// d and the permission bits mode: then a restore leaves it as it is. It
// reads the file, which costs less than writing it again.
func holds(p string, d reapi.Digest, mode os.FileMode) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != d.Size || fi.Mode().Perm() != mode.Perm() {
		return false
	}
	f, _, err := inputfile.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if n, err := io.Copy(h, f); err != nil || n != d.Size {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == d.Hash
}

// stageBlob copies blob d to a new temporary file in dir, checking its
// digest, with the given mode.
func stageBlob(st *store.Store, d reapi.Digest, dir string, mode os.FileMode) (string, error) {
	src, err := st.OpenBlob(d)
	if err != nil {
		return "", &BlobError{d, err}
	}
	defer src.Close()
	f, err := os.CreateTemp(dir, restorePrefix+"*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, src)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", &BlobError{d, err}
	}
	if err := f.Chmod(mode); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// removeTree removes dir and what it holds, as os.RemoveAll does; where
// that fails (Wine 8's unlinkat refuses a directory that is not empty) it
// removes the tree one entry at a time, children before their directory,
// links as links.
func removeTree(dir string) error {
	err := os.RemoveAll(dir)
	if err == nil {
		return nil
	}
	var paths []string
	filepath.WalkDir(dir, func(p string, _ fs.DirEntry, _ error) error {
		paths = append(paths, p)
		return nil
	})
	for i := len(paths) - 1; i >= 0; i-- {
		if rerr := os.Remove(paths[i]); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}
