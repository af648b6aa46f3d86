package key

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// This file finds the input files that git ignores: a glob of "inputs"
// also takes them (".env.local", ".env*", "//.env", "src/generated/**"),
// as turbo's input globs do, since naming files in "inputs" says the task
// reads them. "**" and "//**" stand for the default set, which leaves
// ignored files out (dist/, coverage/, .turbo/ and the rest other tasks
// write would otherwise change every key).

// explicitGlobs returns the globs of an "inputs" list that take ignored
// files: all but "**" and "//**". nil when none does.
func explicitGlobs(list []string) globList {
	var out []string
	pos := false
	for _, g := range list {
		if g == "**" || g == "//**" {
			continue
		}
		pos = pos || !strings.HasPrefix(g, "!")
		out = append(out, g)
	}
	if !pos {
		return nil
	}
	return compileGlobs(out)
}

// walkScope returns where the positive glob g (root-relative, "//" and "!"
// removed, joined to the project's directory) can match: the directory or
// file to look at, and how many levels below it (0: that path alone, -1:
// any depth).
func walkScope(g string) (string, int) {
	base, rest := doublestar.SplitPattern(g)
	switch {
	case !strings.ContainsAny(rest, "*?[{\\"):
		return g, 0 // a literal path
	case strings.Contains(rest, "**"):
		return base, -1
	default:
		return base, strings.Count(rest, "/") + 1
	}
}

// walks remembers, for one run, the files found under a directory to a
// depth: tasks of one project often share their inputs.
type walks struct {
	mu   sync.Mutex
	seen map[string][]string
}

// files returns the root-relative paths of the files (and symbolic links)
// at or below base, to depth levels (see walkScope), node_modules, .git
// and the store left out. Symbolic links to directories are not followed.
func (w *walks) files(sc *scanner, base string, depth int) []string {
	key := base + "\x00" + strconv.Itoa(depth)
	if w != nil {
		w.mu.Lock()
		found, ok := w.seen[key]
		w.mu.Unlock()
		if ok {
			return found
		}
	}
	var found []string
	start := filepath.Join(sc.root, filepath.FromSlash(base))
	if fi, err := os.Lstat(start); err == nil && !fi.IsDir() {
		found = append(found, base)
	} else if err == nil && depth != 0 {
		filepath.WalkDir(start, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if e != nil && e.IsDir() && p != start {
					return filepath.SkipDir // unreadable: its files cannot be read by the task either
				}
				return nil
			}
			rel, rerr := filepath.Rel(sc.root, p)
			if rerr != nil {
				return rerr
			}
			rel = filepath.ToSlash(rel)
			if e.IsDir() {
				if p == start {
					return nil
				}
				below := strings.Count(rel, "/") - strings.Count(base, "/")
				if base == "." {
					below = strings.Count(rel, "/") + 1
				}
				if e.Name() == "node_modules" || e.Name() == ".git" || sc.skipped(rel) || depth > 0 && below >= depth {
					return filepath.SkipDir
				}
				return nil
			}
			if e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0 {
				found = append(found, rel)
			}
			return nil
		})
	}
	if w != nil {
		w.mu.Lock()
		if w.seen == nil {
			w.seen = map[string][]string{}
		}
		w.seen[key] = found
		w.mu.Unlock()
	}
	return found
}

// ignoredInputs returns t's input files that snap does not list because
// git ignores them: the files an explicit glob of t's inputs matches (see
// explicitGlobs), outside node_modules, the store and t's outputs, each
// with its state from hash. A snapshot without git lists every file
// already.
func ignoredInputs(sc *scanner, w *walks, snap *snapshot, t *TaskSpec, hash func(p string) (fileState, bool)) []InputFile {
	globs := explicitGlobs(t.Inputs)
	if !snap.git || globs == nil {
		return nil
	}
	outputs := compileGlobs(t.Outputs)
	var out []InputFile
	seen := map[string]bool{}
	for _, g := range t.Inputs {
		if g == "**" || g == "//**" || strings.HasPrefix(g, "!") {
			continue
		}
		p, root := strings.CutPrefix(g, "//")
		if !root && t.RelDir != "." {
			p = path.Join(t.RelDir, p)
		}
		base, depth := walkScope(p)
		if !SafeRel(base) && base != "." {
			continue
		}
		for _, f := range w.files(sc, base, depth) {
			if seen[f] || hasNodeModules(f) || sc.skipped(f) {
				continue
			}
			seen[f] = true
			if _, listed := snap.get(f); listed {
				continue
			}
			rel, in := projectRel(t.RelDir, f)
			if !globs.match(f, rel, in) || in && len(outputs) > 0 && outputs.match(f, rel, true) {
				continue
			}
			if st, ok := hash(f); ok {
				out = append(out, InputFile{Path: f, ID: st.id, Exec: st.exec})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// mergeInputs returns the files of a and b (each sorted by path) in one
// sorted list, a path of both once, as a has it.
func mergeInputs(a, b []InputFile) []InputFile {
	if len(b) == 0 {
		return a
	}
	out := make([]InputFile, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0].Path < b[0].Path:
			out, a = append(out, a[0]), a[1:]
		case a[0].Path > b[0].Path:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return append(append(out, a...), b...)
}
