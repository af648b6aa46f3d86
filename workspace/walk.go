package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/internal/inputfile"
)

// fileSystem is the little of the OS that Discover uses. Tests wrap it to
// inject failures that a real file system cannot produce on demand (an
// unreadable directory when the tests run as root).
type fileSystem interface {
	ReadDir(dir string) ([]fs.DirEntry, error)
	Stat(name string) (fs.FileInfo, error)
	ReadFile(name string) ([]byte, error)
	EvalSymlinks(path string) (string, error)
}

type osFS struct{}

func (osFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (osFS) Stat(name string) (fs.FileInfo, error)     { return os.Stat(name) }
func (osFS) ReadFile(name string) ([]byte, error)      { return inputfile.Read(name) }
func (osFS) EvalSymlinks(path string) (string, error)  { return filepath.EvalSymlinks(path) }

// maxDepth bounds the walk below the root. Symbolic-link loops stop long
// before it (each real directory is entered once); it is the backstop for
// links the OS cannot resolve, such as Windows junctions.
const maxDepth = 100

// A member is a directory the patterns match: a project if it holds a
// package.json, which the caller finds out by reading it.
type member struct {
	rel  string // relative to the root, slash-separated
	real string // absolute, symlinks resolved
}

// walker finds the directories a workspace's patterns match under a root.
// It reads directories only: whether a member holds a package.json is left
// to whoever reads it, so that a workspace passed over costs no file access
// per member and the chosen one costs one open per member. It descends only where a pattern can still
// match, never into node_modules, and enters each real directory once, so a
// symbolic-link cycle terminates and a directory reached through two links
// is listed once (under the first path in walk order).
type walker struct {
	fsys    fileSystem
	goos    string
	pats    *patternSet
	entered map[string]bool // pathKey of each real directory entered or listed
	listed  map[string]bool // pathKey of each member's real directory
	stack   []*frame        // the directories being walked, root first
	out     []member
}

type frame struct {
	real string
	info fs.FileInfo // loaded on demand, to compare links with os.SameFile
}

// walk returns the members under root (a real, absolute path), in order:
// depth first, entries sorted by name, which is RelDir order compared element
// by element. The root itself is not listed.
func walk(fsys fileSystem, goos, root string, pats *patternSet) ([]member, error) {
	w := &walker{
		fsys:    fsys,
		goos:    goos,
		pats:    pats,
		entered: map[string]bool{pathKey(goos, root): true},
		listed:  map[string]bool{pathKey(goos, root): true},
	}
	st := pats.start()
	if _, descend := pats.eval(st); !descend {
		return nil, nil
	}
	if err := w.dir(root, ".", st); err != nil {
		return nil, err
	}
	return w.out, nil
}

func (w *walker) dir(real, rel string, st matchState) error {
	if len(w.stack) >= maxDepth {
		return fmt.Errorf("workspace: directory %q is nested more than %d levels below the root; is there a link loop?", rel, maxDepth)
	}
	entries, err := w.fsys.ReadDir(real)
	if err != nil {
		return fmt.Errorf("workspace: cannot read directory %q: %w", rel, err)
	}
	w.stack = append(w.stack, &frame{real: real})
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	for _, e := range entries {
		name := e.Name()
		if name == "node_modules" {
			continue
		}
		cst := w.pats.step(st, name)
		if cst == nil {
			continue // no pattern can match it or anything below it
		}
		isMember, descend := w.pats.eval(cst)
		crel := name
		if rel != "." {
			crel = rel + "/" + name
		}
		creal := real + string(filepath.Separator) + name
		var linkInfo fs.FileInfo
		t := e.Type()
		switch {
		case t&(fs.ModeSymlink|fs.ModeIrregular) != 0:
			// A symbolic link, or on Windows a junction: follow it once.
			fi, err := w.fsys.Stat(creal)
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // dangling link
				}
				return fmt.Errorf("workspace: cannot read directory %q: %w", crel, err)
			}
			if !fi.IsDir() {
				continue
			}
			resolved, err := w.fsys.EvalSymlinks(creal)
			if err != nil {
				return fmt.Errorf("workspace: cannot resolve link %q: %w", crel, err)
			}
			creal, linkInfo = resolved, fi
		case t.IsDir():
		default:
			continue
		}
		key := pathKey(w.goos, creal)
		if isMember && !w.listed[key] {
			w.listed[key] = true
			w.out = append(w.out, member{rel: crel, real: creal})
		}
		if !descend || w.entered[key] {
			continue
		}
		if linkInfo != nil && w.onStack(linkInfo) {
			continue // a link back to a directory being walked
		}
		w.entered[key] = true
		if err := w.dir(creal, crel, cst); err != nil {
			return err
		}
	}
	return nil
}

// onStack reports whether fi is one of the directories being walked. The
// real-path check catches symbolic links; this one catches links that
// EvalSymlinks leaves as they are.
func (w *walker) onStack(fi fs.FileInfo) bool {
	for _, f := range w.stack {
		if f.info == nil {
			info, err := w.fsys.Stat(f.real)
			if err != nil {
				continue
			}
			f.info = info
		}
		if os.SameFile(f.info, fi) {
			return true
		}
	}
	return false
}

// pathKey is the form of an absolute, clean path used to compare
// directories: as is on Unix, case-folded on Windows, where volume and file
// names are case-insensitive.
func pathKey(goos, p string) string {
	if goos == "windows" {
		return strings.ToLower(p)
	}
	return p
}

// compareRel orders slash-separated relative paths element by element ("a",
// "a/b", "a-b"), with "." (the root) first: the same order on every OS.
func compareRel(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == ".":
		return -1
	case b == ".":
		return 1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return -1
		}
		if cb == '/' {
			return 1
		}
		if ca < cb {
			return -1
		}
		return 1
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}
