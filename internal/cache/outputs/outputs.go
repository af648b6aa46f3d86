package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vxrun/vx/internal/cache/key"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/quote"
)

// linkStaysInside reports whether a symbolic link at p (relative to the
// project) with this target points inside the project.
func linkStaysInside(p, target string) bool {
	if target == "" || strings.ContainsAny(target, "\\\x00") || path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "" {
		return false
	}
	joined := path.Join(path.Dir(p), target)
	return joined != ".." && !strings.HasPrefix(joined, "../")
}

// checkPaths refuses an ActionResult that names a path outside the project
// or outside the task's outputs, or a symbolic link leaving the project.
func checkPaths(outputs []string, r *reapi.ActionResult) error {
	seen := map[string]bool{}
	check := func(p string) error {
		if !key.SafeRel(p) {
			return fmt.Errorf("the entry names the path %q, outside the project", p)
		}
		if !key.MatchGlobs(outputs, "", p, true) {
			return fmt.Errorf("the entry names %q, which the task's outputs do not match", p)
		}
		if seen[p] {
			return fmt.Errorf("the entry names %q twice", p)
		}
		seen[p] = true
		return nil
	}
	for _, f := range r.OutputFiles {
		if err := check(f.Path); err != nil {
			return err
		}
	}
	for _, s := range r.OutputSymlinks {
		if err := check(s.Path); err != nil {
			return err
		}
		if !linkStaysInside(s.Path, s.Target) {
			return fmt.Errorf("the symbolic link %q points outside the project (%q)", s.Path, s.Target)
		}
	}
	// No entry may sit below another: a file "dist" and a file "dist/a".
	for p := range seen {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if seen[d] {
				return fmt.Errorf("the entry names %q below %q", p, d)
			}
		}
	}
	return nil
}

// outputBases returns the directories (relative to the project) under
// which the positive output globs can match.
func outputBases(outputs []string) []string {
	var bases []string
	for _, g := range outputs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		base, rest := doublestar.SplitPattern(g)
		if !strings.ContainsAny(rest, "*?[{\\") {
			base = g
		}
		bases = append(bases, base)
	}
	sort.Strings(bases)
	// Drop bases below another.
	out := bases[:0]
	for _, b := range bases {
		if len(out) > 0 {
			last := out[len(out)-1]
			if last == "." || b == last || strings.HasPrefix(b, last+"/") {
				continue
			}
		}
		out = append(out, b)
	}
	return out
}

// outputEntry is a file or symbolic link found under the outputs.
type outputEntry struct {
	rel  string
	info fs.FileInfo
}

// findOutputs lists the files and symbolic links under dir that the output
// globs match, node_modules and the store (skip, when it lies inside dir)
// excluded. Symbolic links to directories are not followed. A restore's
// temporary file (restorePrefix) is never an output.
func findOutputs(outputs []string, dir, skip string) ([]outputEntry, error) {
	found, _, err := findOutputsAndLeftovers(outputs, dir, skip)
	return found, err
}

// findOutputsAndLeftovers is findOutputs that also lists, by their path
// relative to dir, the restore's temporary files under the output globs'
// bases ([removeLeftovers]).
func findOutputsAndLeftovers(outputs []string, dir, skip string) (found []outputEntry, leftovers []string, err error) {
	err = walkOutputs(outputs, dir, skip, func(rel string, e fs.DirEntry) error {
		if strings.HasPrefix(e.Name(), restorePrefix) {
			if e.Type().IsRegular() {
				leftovers = append(leftovers, rel)
			}
			return nil
		}
		if !key.MatchGlobs(outputs, "", rel, true) {
			return nil
		}
		if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
			return nil // sockets, pipes, devices
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		found = append(found, outputEntry{rel: rel, info: info})
		return nil
	})
	return found, leftovers, err
}

// walkOutputs calls fn for every entry but directories under the bases of
// the output globs, with its path relative to dir; it skips node_modules,
// .git and the store, and follows no symbolic link.
func walkOutputs(outputs []string, dir, skip string, fn func(rel string, e fs.DirEntry) error) error {
	for _, base := range outputBases(outputs) {
		start := filepath.Join(dir, filepath.FromSlash(base))
		if fi, err := os.Lstat(start); err != nil || (!fi.IsDir() && base == ".") {
			continue
		}
		err := filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if e.IsDir() {
				if e.Name() == "node_modules" || e.Name() == ".git" || (skip != "" && p == skip) {
					return filepath.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			return fn(filepath.ToSlash(rel), e)
		})
		if err != nil {
			return fmt.Errorf("reading the outputs: %w", err)
		}
	}
	return nil
}

// restorePrefix starts the name of the temporary file a restore writes
// beside each output before it renames it into place.
const restorePrefix = ".vx-restore-"

// removeLeftovers removes the temporary files of a restore that was
// killed before it renamed them (restorePrefix), under the bases of the
// output globs. Only the run that holds the task's lock calls it, so no
// restore of the task is under way.
func removeLeftovers(outputs []string, dir, skip string) error {
	_, leftovers, err := findOutputsAndLeftovers(outputs, dir, skip)
	for _, rel := range leftovers {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// collectOutputs stores the files the output globs match under dir, but
// the user's (yours, project-relative paths), and returns the
// ActionResult that lists them.
func collectOutputs(st *store.Store, outputs []string, dir string, yours map[string]bool) (*reapi.ActionResult, error) {
	entries, err := findOutputs(outputs, dir, filepath.Clean(st.Dir))
	if err != nil {
		return nil, err
	}
	return storeOutputs(st, entries, dir, yours)
}

// storeOutputs stores entries, files and symbolic links findOutputs found
// under dir, but the user's (yours, project-relative paths), and returns
// the ActionResult that lists them.
func storeOutputs(st *store.Store, entries []outputEntry, dir string, yours map[string]bool) (*reapi.ActionResult, error) {
	r := &reapi.ActionResult{}
	for _, e := range entries {
		if yours[e.rel] {
			continue
		}
		if !key.SafeRel(e.rel) {
			// Refused here, once, rather than stored and then refused at
			// every lookup: an entry must restore on every system, and
			// Windows has no ':' nor '\' in a file's name.
			return nil, fmt.Errorf("the output %s has a name with ':' or '\\', which vx does not store "+
				"(no file of that name can be restored on Windows); rename it, or leave it out of the outputs with a \"!\" glob", quote.Q(e.rel))
		}
		abs := filepath.Join(dir, filepath.FromSlash(e.rel))
		if e.info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(abs)
			if err != nil {
				return nil, err
			}
			target = filepath.ToSlash(target)
			if !linkStaysInside(e.rel, target) {
				return nil, fmt.Errorf("the output %s is a symbolic link out of the project (to %s)", e.rel, target)
			}
			r.OutputSymlinks = append(r.OutputSymlinks, reapi.OutputSymlink{Path: e.rel, Target: target})
			continue
		}
		d, err := st.PutFile(abs)
		if err != nil {
			return nil, err
		}
		mode := uint32(e.info.Mode().Perm())
		r.OutputFiles = append(r.OutputFiles, reapi.OutputFile{Path: e.rel, Digest: d, Executable: mode&0o111 != 0, Mode: mode})
	}
	return r, nil
}

// unmatchedOutputs returns the globs of outputs that keep none of found:
// those that do not start with "!" and match none of its files and links.
func unmatchedOutputs(outputs []string, found []outputEntry) []string {
	var out []string
	for _, g := range outputs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		hit := false
		for _, e := range found {
			if hit, _ = doublestar.Match(g, e.rel); hit {
				break
			}
		}
		if !hit {
			out = append(out, g)
		}
	}
	return out
}

// unmatchedHint says what an output glob that matched nothing in the
// project directory dir may mean: a directory named without "/**".
// configFile is where the task is declared.
func unmatchedHint(dir, g, configFile string) string {
	if !strings.ContainsAny(g, "*?[{") {
		if fi, err := os.Stat(filepath.Join(dir, filepath.FromSlash(g))); err == nil && fi.IsDir() {
			return fmt.Sprintf(": %q is a directory, and a glob matches files; its files are %q", g, g+"/**")
		}
	}
	if configFile == "" {
		configFile = "vx.json"
	}
	return "; check the task's outputs in " + configFile
}

// blobError is a blob that could not be read during a restore.
type blobError struct {
	d   Digest
	err error
}

func (e *blobError) Error() string { return e.err.Error() }
func (e *blobError) Unwrap() error { return e.err }

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

// owner says which files under a task's outputs a restore may replace or
// remove: only those vx can show the task produced.
type owner struct {
	// yours holds the project-relative paths of the user's files that the
	// outputs match (see fileState.yours): a restore leaves them as they
	// are, and an entry that holds one is refused.
	yours map[string]bool
	// mine returns nil when every file at the project-relative paths, which
	// the restore would replace or remove, is the task's; else an error
	// that names one that is not, and why.
	mine func(rels []string) error
	// wrote is told the files the restore wrote (fresh: there was no file
	// at the path before) or found in place.
	wrote func(rels []string, fresh []bool)
}

// conflictError is a restore refused because it would replace or remove
// a file of the user's.
type conflictError struct{ msg string }

func (e *conflictError) Error() string { return e.msg }

// restoreOutputs makes the outputs under dir those of r, leaving the
// user's files (own.yours) as they are: every file is first written beside
// its place and checked against its digest; only when all are, the files
// of the outputs that r does not hold are removed and the new ones renamed
// into place. Before anything changes, own.mine must accept every file
// that would be replaced or removed; else the result is a *conflictError
// and the project is as it was. A nil own accepts every file.
func restoreOutputs(st *store.Store, outputs []string, r *reapi.ActionResult, dir string, own *owner) error {
	if own == nil {
		own = &owner{mine: func([]string) error { return nil }, wrote: func([]string, []bool) {}}
	}
	p := &restorePlan{outputs: outputs, r: r, dir: dir}
	if err := p.refuseYours(own.yours); err != nil {
		return err
	}
	if err := p.placeFiles(); err != nil {
		return err
	}
	if err := p.placeLinks(); err != nil {
		return err
	}
	if err := p.findStale(filepath.Clean(st.Dir), own.yours); err != nil {
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
	own.wrote(p.written())
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
			return &conflictError{fmt.Sprintf("the entry holds %s, a file of yours", rel)}
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
			return &conflictError{fmt.Sprintf("it would replace the directory %s, which holds %s, a file the outputs do not match",
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
	existing, leftovers, err := findOutputsAndLeftovers(p.outputs, p.dir, skip)
	if err != nil {
		return err
	}
	for _, rel := range leftovers {
		if err := os.Remove(filepath.Join(p.dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	for _, e := range existing {
		if !p.inEntry[e.rel] && !yours[e.rel] {
			p.stale = append(p.stale, e.rel)
		}
	}
	p.doomed = append(p.doomed, p.stale...)
	return nil
}

// checkDoomed refuses the restore unless every file it would replace or
// remove is the task's, as own says.
func (p *restorePlan) checkDoomed(own *owner) error {
	for _, rel := range p.doomed {
		if own.yours[rel] {
			return &conflictError{fmt.Sprintf("it would replace or remove %s, a file of yours", rel)}
		}
	}
	return own.mine(p.doomed)
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
func holds(p string, d Digest, mode os.FileMode) bool {
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
func stageBlob(st *store.Store, d Digest, dir string, mode os.FileMode) (string, error) {
	src, err := st.OpenBlob(d)
	if err != nil {
		return "", &blobError{d, err}
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
		return "", &blobError{d, err}
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

// OutputsDigest returns one digest of the files and symbolic links under
// the project directory dir that the output globs match (paths, contents,
// permission bits, link targets), found as a store would collect them;
// store is the store's directory, which is never an output. vx watch
// compares it before and after a dependency of a dev server ran, to
// restart the server only when what it serves from changed. "" when
// outputs is empty.
func OutputsDigest(outputs []string, dir, store string) (string, error) {
	if len(outputs) == 0 {
		return "", nil
	}
	entries, err := findOutputs(outputs, dir, filepath.Clean(store))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		abs := filepath.Join(dir, filepath.FromSlash(e.rel))
		fmt.Fprintf(h, "%q %o ", e.rel, e.info.Mode())
		if e.info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(abs)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(h, "-> %q\n", target)
			continue
		}
		f, _, err := inputfile.Open(abs)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", err
		}
		h.Write([]byte("\n"))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
