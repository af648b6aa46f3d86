package store

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/vxrun/vx/internal/inputfile"
)

// Checkout is what vx knows of the git checkout a workspace is in. It is
// found by reading files (.git, and a linked worktree's gitdir and
// commondir), without running git: this is on every run's start-up path.
type Checkout struct {
	Top string // the top of the work tree that holds the workspace; "" when none was found
	Rel string // the workspace's directory from Top (filepath form; "." at the top)
	// Main is the top of the main worktree when the checkout is a linked
	// worktree (git worktree add) of a repository that has one (not
	// bare); "" otherwise.
	Main string
	// Bare is the git directory of a bare repository (core.bare) that the
	// checkout is a linked worktree of; "" otherwise.
	Bare string
	// Why says, for a linked worktree whose Main and Bare are "", why it
	// has neither.
	Why string
}

// FindCheckout returns the checkout the workspace whose root is root (an
// absolute, clean path) is in: the nearest directory at or above root that
// holds a .git. A .git directory is a main worktree or a clone; a .git
// file leads to a git directory, which is a linked worktree's when it
// holds a commondir file (a submodule's or a --separate-git-dir clone's
// has none). The main worktree of a linked one is the directory above
// the common git directory when that is named .git and is that
// directory's .git (git's layout of a non-bare repository).
func FindCheckout(root string) Checkout {
	for dir := root; ; {
		p := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(p); err == nil {
			co := Checkout{Top: dir}
			if rel, err := filepath.Rel(dir, root); err == nil {
				co.Rel = rel
			}
			if fi.Mode().IsRegular() {
				co.Main, co.Bare, co.Why = mainOf(dir, p)
			}
			return co
		}
		up := filepath.Dir(dir)
		if up == dir {
			return Checkout{}
		}
		dir = up
	}
}

// mainOf returns the main worktree of the linked worktree whose top is
// top and whose .git file is dotgit; or the git directory of its bare
// repository; or neither and why ("" when the checkout is no linked
// worktree at all).
func mainOf(top, dotgit string) (main, bare, why string) {
	gitdir, ok := readGitFile(dotgit, "gitdir: ")
	if !ok {
		return "", "", ""
	}
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(top, gitdir)
	}
	common, ok := readGitFile(filepath.Join(gitdir, "commondir"), "")
	if !ok {
		return "", "", "" // a submodule, or a clone with --separate-git-dir: no linked worktree
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitdir, common)
	}
	common = filepath.Clean(common)
	fi, err := os.Lstat(common)
	if err != nil || !fi.IsDir() {
		return "", "", "its repository " + common + " is not a directory"
	}
	main = filepath.Dir(common)
	if filepath.Base(common) == ".git" {
		if fi2, err := os.Lstat(filepath.Join(main, ".git")); err == nil && os.SameFile(fi, fi2) {
			return main, "", ""
		}
	}
	if isBare(filepath.Join(common, "config")) {
		return "", common, ""
	}
	return "", "", "its repository " + common + " is neither the .git directory of a main worktree nor bare (made with --separate-git-dir?)"
}

// isBare reports whether the git config file p says core.bare = true (as
// git init --bare and git clone --bare write it: in the [core] section).
func isBare(p string) bool {
	b, err := inputfile.ReadLimit(p, 1<<20)
	if err != nil {
		return false
	}
	core := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			core = strings.EqualFold(strings.TrimSpace(strings.Trim(line, "[]")), "core")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if core && ok && strings.EqualFold(strings.TrimSpace(k), "bare") {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return false
}

// readGitFile returns the first line of a small file git wrote (.git,
// commondir), without prefix, which it must start with.
func readGitFile(p, prefix string) (string, bool) {
	b, err := inputfile.ReadLimit(p, 4096)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	v, ok := strings.CutPrefix(strings.TrimRight(line, "\r"), prefix)
	return v, ok && v != ""
}

// SharedStoreDir returns the store that the workspace shares with the
// other worktrees of its repository: the default store of the same
// workspace (the same directory from the top) in the main worktree,
// node_modules/.cache/vx there; in a bare repository, which has no main
// worktree, vx-cache/root (the workspace at the top) or vx-cache/ws-<16
// hex digits of the SHA-256 of its directory from the top> in the
// repository's git directory. It returns "" and why not when the checkout
// is not a linked worktree, has neither, or the main worktree has no such
// workspace directory (vx does not create one in another checkout). The main worktree's own default store is that
// directory already: it needs nothing.
func (co Checkout) SharedStoreDir() (string, string) {
	if co.Bare != "" {
		name := "root"
		if co.Rel != "." {
			sum := sha256.Sum256([]byte(filepath.ToSlash(co.Rel)))
			name = "ws-" + hex.EncodeToString(sum[:8])
		}
		return filepath.Join(co.Bare, "vx-cache", name), ""
	}
	if co.Main == "" {
		return "", co.Why
	}
	ws := filepath.Join(co.Main, co.Rel)
	if fi, err := os.Stat(ws); err != nil || !fi.IsDir() {
		return "", "the main worktree " + co.Main + " has no directory " + filepath.ToSlash(co.Rel)
	}
	return filepath.Join(ws, "node_modules", ".cache", "vx"), ""
}
