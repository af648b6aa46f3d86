package key

import (
	"path"
	"strings"
)

// An InputMatcher says whether a file is one of a task's input files,
// by the rules [Computer.Inputs] applies to the files it lists (docs/cache.md):
// what `vx watch` asks of each file that changed, so that a file reruns
// exactly the tasks whose keys it is in.
type InputMatcher struct {
	relDir          string
	explicit        bool // the task declares inputs
	inputs, outputs globList
	roots           []string // the bases of the inputs' root-relative globs: none, no file outside the project
	manifest        string   // the project's package.json, from the root
	sources         []string // TaskSpec.SourceDeps
	store           string   // the store's directory from the root, "" when outside
}

// NewInputMatcher returns the matcher of t's inputs. store is the store's
// directory relative to the root (slash-separated), "" when it is outside
// the workspace: nothing in it is an input.
func NewInputMatcher(t *TaskSpec, store string) *InputMatcher {
	return &InputMatcher{
		relDir:   t.RelDir,
		explicit: t.Inputs != nil,
		inputs:   compileGlobs(t.Inputs),
		outputs:  compileGlobs(t.Outputs),
		roots:    rootGlobBases(t.Inputs),
		manifest: path.Join(t.RelDir, "package.json"),
		sources:  t.SourceDeps,
		store:    store,
	}
}

// Match reports whether the file at p (slash-separated, from the root)
// is one of the task's inputs when it exists. ignored says that git
// ignores it, which leaves it out, unless it is the package.json of the
// project or of a source dependency, or a root lockfile: those are in
// every key that way. A file under a node_modules or .git directory, or
// in the store, never is one, and neither is a file the task's outputs
// match.
func (m *InputMatcher) Match(p string, ignored bool) bool {
	if p == m.manifest || isLockfile(p) {
		return true
	}
	for _, d := range m.sources {
		if p == path.Join(d, "package.json") {
			return true
		}
	}
	if ignored || hasNodeModules(p) || hasGitDir(p) || m.store != "" && (p == m.store || strings.HasPrefix(p, m.store+"/")) {
		return false
	}
	rel, in := projectRel(m.relDir, p)
	if in && len(m.outputs) > 0 && m.outputs.match(p, rel, true) {
		return false
	}
	if in && (!m.explicit || m.inputs.match(p, rel, true)) {
		return true
	}
	for _, d := range m.sources {
		if _, under := projectRel(d, p); under {
			return true
		}
	}
	return !in && len(m.roots) > 0 && m.inputs.match(p, "", false)
}

// InputDirs returns the paths (slash-separated, from the root) under
// which t's input files can be: its project's directory, those of its
// source dependencies, the bases of its root-relative input globs, and the
// lockfiles; just "." when that is the whole workspace.
func InputDirs(t *TaskSpec) []string {
	if dirs := scanDirs(t); dirs != nil {
		return dirs
	}
	return []string{"."}
}

func isLockfile(p string) bool {
	for _, l := range Lockfiles {
		if p == l {
			return true
		}
	}
	return false
}

// hasGitDir reports whether a slash path has a .git element: git's own
// files, which git never lists and a walk skips.
func hasGitDir(p string) bool {
	return p == ".git" || strings.HasPrefix(p, ".git/") ||
		strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git")
}

// OutputsMatcher returns whether a path (slash-separated, from the root)
// is one of the outputs that the globs outputs of the project at relDir
// match, by the rules a store collects them: what a trace of a task
// compares the files it wrote with.
func OutputsMatcher(outputs []string, relDir string) func(p string) bool {
	gl := compileGlobs(outputs)
	return func(p string) bool {
		rel, in := projectRel(relDir, p)
		return in && len(gl) > 0 && gl.match(p, rel, true)
	}
}
