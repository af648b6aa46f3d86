package run

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/git"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/lockfile"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/workspace"
)

// This file finds the projects changed since a git commit, for the [ref]
// filters and --affected: one implementation serves both.

// Git runs git with args in dir and returns its standard output. A failure
// is an error that holds git's own message (its standard error).
type Git func(dir string, args ...string) ([]byte, error)

// ErrNoGit is returned (wrapped) when git cannot be found.
var ErrNoGit = errors.New("git is not installed or not on PATH")

// NewGit returns a Git that starts the git program found on environ's PATH,
// with environ as its environment, through [git.Run].
func NewGit(environ []string) Git {
	return func(dir string, args ...string) ([]byte, error) {
		prog, err := exec.LookPath("git", environ)
		if err != nil {
			return nil, fmt.Errorf("%w (%v)", ErrNoGit, err)
		}
		return git.Run(prog, dir, environ, nil, args...)
	}
}

// globalFiles are the files at the workspace root whose change affects
// every project: the root manifest, the lockfiles, the pnpm workspace file
// (it holds catalogs and overrides) and vx's own config (or turbo's).
var globalFiles = map[string]bool{
	"package.json":        true,
	"pnpm-lock.yaml":      true,
	"package-lock.json":   true,
	"npm-shrinkwrap.json": true,
	"yarn.lock":           true,
	"bun.lock":            true,
	"bun.lockb":           true,
	"pnpm-workspace.yaml": true,
	"vx.json":             true,
	"turbo.json":          true, // the config, when there is no vx config
	"turbo.jsonc":         true,
}

// changes are the files that differ between a commit and the working tree
// (committed since, staged, unstaged and untracked), slash-separated and
// relative to the workspace root, attributed to the project whose
// directory is nearest above each.
type changes struct {
	byProject map[*workspace.Project][]string
	global    []string // globalFiles that changed
	config    []string // files the configuration was made from that changed
	// lockDeps are the lockfiles that changed (and vx reads, and whose
	// global settings did not change) by the projects whose resolved
	// dependencies changed in them: a lockfile is in global only when vx
	// cannot tell which projects it changes.
	lockDeps map[*workspace.Project][]string
}

// of returns the changed files of p, relative to its directory, and the
// changed global files (which every project has), keeping only files for
// which keep is true (nil keeps all); quoted for a message where needed.
func (c *changes) of(p *workspace.Project, keep func(rel string) bool) []string {
	var out []string
	for _, f := range c.byProject[p] {
		if keep == nil || keep(f) {
			if !p.IsRoot {
				f = strings.TrimPrefix(f, p.RelDir+"/")
			}
			out = append(out, quote.Name(f))
		}
	}
	for _, f := range c.global {
		if (keep == nil || keep(f)) && !(p.IsRoot && contains(c.byProject[p], f)) {
			out = append(out, quote.Name(f)+" (workspace root)")
		}
	}
	for _, f := range c.lockDeps[p] {
		if keep == nil || keep(f) {
			out = append(out, quote.Name(f)+" (its dependencies)")
		}
	}
	for _, f := range c.config {
		if (keep == nil || keep(f)) && !contains(c.global, f) && !contains(c.byProject[p], f) {
			out = append(out, quote.Name(f)+" (the configuration read it)")
		}
	}
	return out
}

// narrowLockfiles turns each lockfile in c.global that vx can read, now
// (in the working tree) and at the commit sha, into a change of only the
// projects whose resolved dependencies (with the root's) differ
// ([lockfile.Same]). A lockfile that cannot be read then or now, or whose
// global settings (overrides, patches, settings) changed, stays a change of
// every project.
func (f *filterer) narrowLockfiles(c *changes, sha string) {
	var global []string
	for _, name := range c.global {
		if !isLockfileName(name) || !f.narrowLockfile(c, sha, name) {
			global = append(global, name)
		}
	}
	c.global = global
}

func (f *filterer) narrowLockfile(c *changes, sha, name string) bool {
	now, err := inputfile.Read(filepath.Join(f.ws.Root, filepath.FromSlash(name)))
	if err != nil {
		return false
	}
	before, err := f.gitRun("show", sha+":./"+name)
	if err != nil {
		return false
	}
	a, b, err := f.parseLockfiles(c, sha, name, before, now)
	if err != nil {
		return false
	}
	if a.Kind != b.Kind || a.Version != b.Version || !slices.Equal(a.Global, b.Global) || !lockfile.Same(a, b, ".") {
		return false // the root's closure is in every project's
	}
	for _, p := range f.ws.Projects {
		if p.IsRoot {
			// The root's own change, by the lockfile's place: gone, its
			// closure is the same.
			c.byProject[p] = slices.DeleteFunc(c.byProject[p], func(s string) bool { return s == name })
			continue
		}
		if !lockfile.Same(a, b, p.RelDir, ".") {
			if c.lockDeps == nil {
				c.lockDeps = map[*workspace.Project][]string{}
			}
			c.lockDeps[p] = append(c.lockDeps[p], name)
		}
	}
	return true
}

func isLockfileName(name string) bool {
	for _, n := range lockfile.Names {
		if n == name {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// attribute builds the changes from a list of root-relative files; cs
// are the configuration's sources (nil for none).
func attribute(ws *workspace.Workspace, files []string, cs *configSources) *changes {
	c := &changes{byProject: map[*workspace.Project][]string{}}
	byDir := make(map[string]*workspace.Project, len(ws.Projects))
	for _, p := range ws.Projects {
		byDir[p.RelDir] = p
	}
	sort.Strings(files)
	for i, f := range files {
		if i > 0 && f == files[i-1] {
			continue
		}
		if globalFiles[f] {
			c.global = append(c.global, f)
		}
		if cs.has(f) {
			c.config = append(c.config, f)
		}
		for d := path.Dir(f); ; d = path.Dir(d) {
			if p := byDir[d]; p != nil {
				c.byProject[p] = append(c.byProject[p], f)
				break
			}
			if d == "." {
				break // the root is no project (a pnpm root without package.json)
			}
		}
	}
	return c
}

// gitRun runs git at the workspace root, having checked once that the
// root is in a git work tree.
func (f *filterer) gitRun(args ...string) ([]byte, error) {
	if f.sel.Git == nil {
		return nil, fmt.Errorf("%w", ErrNoGit)
	}
	if !f.inGit {
		if _, err := f.sel.Git(f.ws.Root, "rev-parse", "--is-inside-work-tree"); err != nil {
			if errors.Is(err, ErrNoGit) {
				return nil, fmt.Errorf("%s runs git: %w", f.gitUser(), err)
			}
			if strings.Contains(err.Error(), "not a git repository") {
				return nil, fmt.Errorf("%s compares with a git commit, and %q is not in a git work tree", f.gitUser(), f.ws.Root)
			}
			return nil, fmt.Errorf("%s compares with a git commit, and git cannot read the work tree at %q: %w", f.gitUser(), f.ws.Root, err)
		}
		f.inGit = true
	}
	return f.sel.Git(f.ws.Root, args...)
}

// commit resolves ref to a commit id; ok is false when there is no such
// commit.
func (f *filterer) commit(ref string) (string, bool, error) {
	out, err := f.gitRun("rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		if !f.inGit {
			return "", false, err
		}
		return "", false, nil
	}
	return strings.TrimSpace(string(out)), true, nil
}

// changedSince returns what changed between the commit ref names and the
// working tree, computed once per ref.
func (f *filterer) changedSince(ref string) (*changes, error) {
	if c := f.changes[ref]; c != nil {
		return c, nil
	}
	if strings.HasPrefix(ref, "-") {
		return nil, fmt.Errorf("git ref %q cannot start with \"-\"", ref)
	}
	sha, ok, err := f.commit(ref)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("git knows no commit %q; fetch it (in CI: a deeper clone) or name another", ref)
	}
	diff, err := f.gitRun("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--relative", sha, "--")
	if err != nil {
		return nil, fmt.Errorf("cannot list the files changed since %q: %w", ref, err)
	}
	untracked, err := f.gitRun("ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("cannot list the untracked files: %w", err)
	}
	var files []string
	for _, b := range [][]byte{diff, untracked} {
		for _, name := range strings.Split(string(b), "\x00") {
			if name != "" {
				files = append(files, name)
			}
		}
	}
	c := attribute(f.ws, files, f.sel.config)
	f.narrowLockfiles(c, sha)
	f.changes[ref] = c
	return c, nil
}

// BaseEnv names the variable that gives --affected its base when --base
// is not on the command line.
const BaseEnv = "VX_BASE"

// EnvBase returns the value of VX_BASE in environ; "" when unset.
func EnvBase(environ []string, goos string) string {
	v, _ := exec.LookupEnv(environ, BaseEnv, goos)
	return v
}

// base is what --affected compares the working tree with.
// gitUser names what asked for git, for messages.
func (f *filterer) gitUser() string {
	for _, raw := range f.sel.Filters {
		if s, err := parseSelector(raw); err == nil && s.ref != "" {
			return fmt.Sprintf("--filter %q", raw)
		}
	}
	return "--affected"
}

type base struct {
	ref  string // the commit id
	show string // for messages: "main (merge-base 1a2b3c4d5e6f)"
}

// defaultBases are tried in order when neither --base nor VX_BASE is set.
var defaultBases = []string{"origin/HEAD", "main", "master", "origin/main", "origin/master"}

// affectedBase finds the merge-base of HEAD with Selection.Base or, when it
// is empty, with the first of defaultBases that exists.
func (f *filterer) affectedBase() (base, error) {
	if _, ok, err := f.commit("HEAD"); err != nil {
		return base{}, err
	} else if !ok {
		return base{}, errors.New("--affected compares with an earlier commit, and this repository has no commit yet")
	}
	cands := defaultBases
	if f.sel.Base != "" {
		cands = []string{f.sel.Base}
	}
	for _, c := range cands {
		if strings.HasPrefix(c, "-") {
			return base{}, fmt.Errorf("--base %q: a git ref cannot start with \"-\"", c)
		}
		sha, ok, err := f.commit(c)
		if err != nil {
			return base{}, err
		}
		if !ok {
			if f.sel.Base != "" {
				return base{}, fmt.Errorf("--affected: git knows no commit %q (from --base or VX_BASE); fetch it (in CI: git fetch origin %s) or name another", c, c)
			}
			continue
		}
		out, err := f.gitRun("merge-base", "HEAD", sha)
		if err != nil {
			return base{}, fmt.Errorf("--affected: HEAD and %q have no common commit; in a shallow clone fetch the history (git fetch --unshallow, or fetch-depth: 0 with actions/checkout) (%v)", c, err)
		}
		mb := strings.TrimSpace(string(out))
		short := mb
		if len(short) > 12 {
			short = short[:12]
		}
		return base{ref: mb, show: fmt.Sprintf("%s (merge-base %s)", c, short)}, nil
	}
	return base{}, fmt.Errorf("--affected found no commit to compare with (none of %s exists); pass --base <ref> or set VX_BASE", strings.Join(defaultBases, ", "))
}
