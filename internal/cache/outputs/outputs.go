package outputs

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

// CheckPaths refuses an ActionResult that names a path outside the project
// or outside the task's outputs, or a symbolic link leaving the project.
func CheckPaths(outputs []string, r *reapi.ActionResult) error {
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

// Entry is a file or symbolic link found under the outputs.
type Entry struct {
	Rel  string // relative to the project directory, slash-separated
	Info fs.FileInfo
}

// Find lists the files and symbolic links under dir that the output
// globs match, node_modules and the store (skip, when it lies inside dir)
// excluded. Symbolic links to directories are not followed. A restore's
// temporary file (restorePrefix) is never an output.
func Find(outputs []string, dir, skip string) ([]Entry, error) {
	found, _, err := findAndLeftovers(outputs, dir, skip)
	return found, err
}

// findAndLeftovers is Find that also lists, by their path
// relative to dir, the restore's temporary files under the output globs'
// bases ([RemoveLeftovers]).
func findAndLeftovers(outputs []string, dir, skip string) (found []Entry, leftovers []string, err error) {
	err = walk(outputs, dir, skip, func(rel string, e fs.DirEntry) error {
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
		found = append(found, Entry{Rel: rel, Info: info})
		return nil
	})
	return found, leftovers, err
}

// walk calls fn for every entry but directories under the bases of
// the output globs, with its path relative to dir; it skips node_modules,
// .git and the store, and follows no symbolic link.
func walk(outputs []string, dir, skip string, fn func(rel string, e fs.DirEntry) error) error {
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

// RemoveLeftovers removes the temporary files of a restore that was
// killed before it renamed them (restorePrefix), under the bases of the
// output globs. Only the run that holds the task's lock calls it, so no
// restore of the task is under way.
func RemoveLeftovers(outputs []string, dir, skip string) error {
	_, leftovers, err := findAndLeftovers(outputs, dir, skip)
	for _, rel := range leftovers {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return err
}

// collect stores the files the output globs match under dir, but
// the user's (yours, project-relative paths), and returns the
// ActionResult that lists them.
func collect(st *store.Store, outputs []string, dir string, yours map[string]bool) (*reapi.ActionResult, error) {
	entries, err := Find(outputs, dir, filepath.Clean(st.Dir))
	if err != nil {
		return nil, err
	}
	return Store(st, entries, dir, yours)
}

// Store stores entries, files and symbolic links Find found
// under dir, but the user's (yours, project-relative paths), and returns
// the ActionResult that lists them.
func Store(st *store.Store, entries []Entry, dir string, yours map[string]bool) (*reapi.ActionResult, error) {
	r := &reapi.ActionResult{}
	for _, e := range entries {
		if yours[e.Rel] {
			continue
		}
		if !key.SafeRel(e.Rel) {
			// Refused here, once, rather than stored and then refused at
			// every lookup: an entry must restore on every system, and
			// Windows has no ':' nor '\' in a file's name.
			return nil, fmt.Errorf("the output %s has a name with ':' or '\\', which vx does not store "+
				"(no file of that name can be restored on Windows); rename it, or leave it out of the outputs with a \"!\" glob", quote.Q(e.Rel))
		}
		abs := filepath.Join(dir, filepath.FromSlash(e.Rel))
		if e.Info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(abs)
			if err != nil {
				return nil, err
			}
			target = filepath.ToSlash(target)
			if !linkStaysInside(e.Rel, target) {
				return nil, fmt.Errorf("the output %s is a symbolic link out of the project (to %s)", e.Rel, target)
			}
			r.OutputSymlinks = append(r.OutputSymlinks, reapi.OutputSymlink{Path: e.Rel, Target: target})
			continue
		}
		d, err := st.PutFile(abs)
		if err != nil {
			return nil, err
		}
		mode := uint32(e.Info.Mode().Perm())
		r.OutputFiles = append(r.OutputFiles, reapi.OutputFile{Path: e.Rel, Digest: d, Executable: mode&0o111 != 0, Mode: mode})
	}
	return r, nil
}

// Unmatched returns the globs of outputs that keep none of found:
// those that do not start with "!" and match none of its files and links.
func Unmatched(outputs []string, found []Entry) []string {
	var out []string
	for _, g := range outputs {
		if strings.HasPrefix(g, "!") {
			continue
		}
		hit := false
		for _, e := range found {
			if hit, _ = doublestar.Match(g, e.Rel); hit {
				break
			}
		}
		if !hit {
			out = append(out, g)
		}
	}
	return out
}

// UnmatchedHint says what an output glob that matched nothing in the
// project directory dir may mean: a directory named without "/**".
// configFile is where the task is declared.
func UnmatchedHint(dir, g, configFile string) string {
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

// Hash returns one digest of the files and symbolic links under
// the project directory dir that the output globs match (paths, contents,
// permission bits, link targets), found as a store would collect them;
// store is the store's directory, which is never an output. vx watch
// compares it before and after a dependency of a dev server ran, to
// restart the server only when what it serves from changed. "" when
// outputs is empty.
func Hash(outputs []string, dir, store string) (string, error) {
	if len(outputs) == 0 {
		return "", nil
	}
	entries, err := Find(outputs, dir, filepath.Clean(store))
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, e := range entries {
		abs := filepath.Join(dir, filepath.FromSlash(e.Rel))
		fmt.Fprintf(h, "%q %o ", e.Rel, e.Info.Mode())
		if e.Info.Mode()&fs.ModeSymlink != 0 {
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
