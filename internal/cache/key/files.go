package key

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/git"
	"github.com/vxrun/vx/internal/inputfile"
)

// fileState is what the key knows of one input file: its id (a git blob id
// in hex: SHA-1 of "blob <size>\x00" + content, or SHA-256 in a repository
// using SHA-256 objects; a symbolic link's content is its target) and its
// executable bit.
type fileState struct {
	id   string
	exec bool
	// gitlink marks a submodule's entry (its id is a commit) while a scan
	// runs: scanGit replaces it by the submodule's files.
	gitlink bool
	tracked bool // git tracks the file
	link    bool // a symbolic link: its id is its target's text (see [Computer.Inputs])
	// produced marks a file vx wrote as an output (restored or stored, see
	// memo.wrote) and that did not change since. Only an untracked file
	// can be one.
	produced bool
}

// yours reports whether a file that a task's outputs match is the user's,
// not the task's: one git tracks, or one vx did not write. Such a file is
// an input of the task, and a restore never replaces or removes it.
func (st fileState) yours() bool { return st.tracked || !st.produced }

// snapshot is the state of the workspace's files: every file git knows or
// would add (tracked, plus untracked files that are not ignored), or every
// file when there is no git, node_modules directories excluded.
type snapshot struct {
	paths  []string    // sorted, slash-separated, relative to the root
	states []fileState // states[i] is the state of paths[i]
	git    bool
	taken  time.Time // when the scan started: a file it does not list and that was not written since is one git ignores
	dirs   []string  // the directories scanned, nil for the whole workspace
	// noLinks is set when no file of the snapshot is a symbolic link (a
	// task's key then looks up no file's state to key what a link leads
	// to); false when unknown.
	noLinks bool
}

// newSnapshot returns the snapshot of the files in m.
func newSnapshot(m map[string]fileState) *snapshot {
	s := &snapshot{}
	for p := range m {
		s.paths = append(s.paths, p)
	}
	sort.Strings(s.paths)
	s.states = make([]fileState, len(s.paths))
	for i, p := range s.paths {
		s.states[i] = m[p]
	}
	return s
}

// get returns the state of the file at p.
func (s *snapshot) get(p string) (fileState, bool) {
	i := sort.SearchStrings(s.paths, p)
	if i < len(s.paths) && s.paths[i] == p {
		return s.states[i], true
	}
	return fileState{}, false
}

// rangeOf returns the index range of the paths at or below dir ("." for
// all).
func (s *snapshot) rangeOf(dir string) (int, int) {
	if dir == "." || dir == "" {
		return 0, len(s.paths)
	}
	i := sort.SearchStrings(s.paths, dir)
	if i < len(s.paths) && s.paths[i] == dir {
		return i, i + 1 // a file
	}
	prefix := dir + "/"
	i = sort.SearchStrings(s.paths, prefix)
	j := i + sort.Search(len(s.paths)-i, func(k int) bool { return !strings.HasPrefix(s.paths[i+k], prefix) })
	return i, j
}

// under returns the paths at or below dir ("." for all), in order.
func (s *snapshot) under(dir string) []string {
	i, j := s.rangeOf(dir)
	return s.paths[i:j]
}

// apply records the results of hashing: new states for listed paths, the
// removal of those gone (ok false), and new paths, keeping the order.
func (s *snapshot) apply(results []hashed) {
	var added []hashed
	removed := false
	for _, r := range results {
		if r.rel == "" {
			continue
		}
		i := sort.SearchStrings(s.paths, r.rel)
		found := i < len(s.paths) && s.paths[i] == r.rel
		switch {
		case found && r.ok:
			r.st.tracked = r.st.tracked || s.states[i].tracked
			s.states[i] = r.st
		case found:
			s.states[i].id, removed = "", true // a tombstone, dropped below
		case r.ok:
			added = append(added, r)
		}
	}
	if !removed && len(added) == 0 {
		return
	}
	sort.Slice(added, func(i, j int) bool { return added[i].rel < added[j].rel })
	paths := make([]string, 0, len(s.paths)+len(added))
	states := make([]fileState, 0, len(s.paths)+len(added))
	i, j := 0, 0
	for i < len(s.paths) || j < len(added) {
		if j >= len(added) || i < len(s.paths) && s.paths[i] < added[j].rel {
			if s.states[i].id != "" {
				paths, states = append(paths, s.paths[i]), append(states, s.states[i])
			}
			i++
		} else {
			paths, states = append(paths, added[j].rel), append(states, added[j].st)
			j++
		}
	}
	s.paths, s.states = paths, states
}

// scanner takes snapshots of the files under root.
type scanner struct {
	root  string
	env   []string // vx's environment, for git
	git   string   // the git program, "" when not found
	memo  *memo
	skip  string // a directory relative to root whose files are never inputs (the store), or ""
	depth int    // how deep the repository of root is nested in the workspace's (0: it is the workspace's)
}

// scan returns the files under the root-relative directories dirs (all of
// the root when dirs is empty).
func (sc *scanner) scan(dirs []string) (*snapshot, error) {
	taken := time.Now()
	var snap *snapshot
	err := errNoRepo
	if sc.git != "" {
		snap, err = sc.scanGit(dirs)
	}
	if errors.Is(err, errNoRepo) {
		snap, err = sc.scanWalk(dirs)
	}
	if err != nil {
		return nil, err
	}
	snap.taken, snap.dirs = taken, dirs
	snap.noLinks = !slices.ContainsFunc(snap.states, func(st fileState) bool { return st.link })
	return snap, nil
}

var errNoRepo = errors.New("cache: not in a git work tree")

// runGit runs git in the root and returns its standard output.
func (sc *scanner) runGit(args ...string) ([]byte, error) {
	return sc.runGitInput(nil, args...)
}

// runGitInput is runGit with stdin as git's standard input.
func (sc *scanner) runGitInput(stdin io.Reader, args ...string) ([]byte, error) {
	out, err := git.Run(sc.git, sc.root, sc.env, stdin, args...)
	if ge, ok := err.(*git.Error); ok && ge.NotARepo() {
		return nil, errNoRepo
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return out, nil
}

// scanGit lists the tracked files with their blob ids and hashes those
// that changed in the work tree, and the untracked files git would add.
// Which tracked files changed comes from the index read directly (one
// lstat per file, on all CPUs) where it can be, else from git diff-files;
// git lists the untracked files meanwhile.
func (sc *scanner) scanGit(dirs []string) (*snapshot, error) {
	dirs = sc.liftNested(dirs)
	spec := append([]string{"--"}, dirs...)
	var untracked []byte
	var uerr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		untracked, uerr = sc.runGit(append([]string{"ls-files", "-z", "-o", "--exclude-standard"}, spec...)...)
	}()
	snap, changed, sha256Repo, err := sc.trackedFromIndex(dirs)
	if err != nil {
		snap, changed, sha256Repo, err = sc.trackedFromGit(spec)
	}
	<-done
	if uerr != nil {
		return nil, uerr
	}
	if err != nil {
		return nil, err
	}
	var nested []string // repositories inside this one: submodules, and untracked ones
	for i, st := range snap.states {
		if st.gitlink {
			nested = append(nested, snap.paths[i])
		}
	}
	for _, p := range bytes.Split(untracked, []byte{0}) {
		if len(p) == 0 {
			continue
		}
		s := string(p)
		if hasNodeModules(s) || sc.skipped(s) {
			continue
		}
		if s[len(s)-1] == '/' {
			nested = append(nested, s[:len(s)-1]) // a repository that is not a submodule shows as "dir/"
			continue
		}
		changed = append(changed, s)
	}
	results, err := sc.hashFiles(changed, sha256Repo)
	if err != nil {
		return nil, err
	}
	for _, p := range nested {
		files, err := sc.scanNested(p)
		if err != nil {
			return nil, err
		}
		results = append(results, hashed{rel: p}) // the gitlink, if any, goes
		results = append(results, files...)
	}
	snap.apply(results)
	return snap, nil
}

// maxNesting bounds how deep repositories may be nested in the workspace's.
const maxNesting = 8

// scanNested returns the files of the repository nested at p (relative to
// the root): a submodule or a repository git does not track. The task sees
// its work tree, not the commit the index records for a submodule, so its
// files count as they are there: its tracked files and the untracked ones
// its own ignore rules do not ignore, scanned as the workspace's are. A
// submodule that is not checked out (no .git in its directory) counts as
// whatever files its directory holds.
func (sc *scanner) scanNested(p string) ([]hashed, error) {
	if sc.depth >= maxNesting {
		return nil, fmt.Errorf("cache: %s: repositories nested more than %d deep", p, maxNesting)
	}
	var snap *snapshot
	var err error
	if _, serr := os.Lstat(filepath.Join(sc.root, filepath.FromSlash(p), ".git")); serr == nil {
		sub := &scanner{root: filepath.Join(sc.root, filepath.FromSlash(p)), env: withoutRepoEnv(sc.env), git: sc.git, memo: sc.memo, depth: sc.depth + 1}
		if rest, ok := strings.CutPrefix(sc.skip, p+"/"); ok {
			sub.skip = rest
		}
		snap, err = sub.scanGit(nil)
		if errors.Is(err, errNoRepo) {
			snap, err = sc.scanWalk([]string{p})
			p = "" // scanWalk's paths are from the root already
		}
	} else {
		snap, err = sc.scanWalk([]string{p})
		p = ""
	}
	if err != nil {
		return nil, err
	}
	files := make([]hashed, len(snap.paths))
	for i, rel := range snap.paths {
		if p != "" {
			rel = p + "/" + rel
		}
		files[i] = hashed{rel: rel, st: snap.states[i], ok: true}
	}
	return files, nil
}

// liftNested returns dirs with each directory that lies inside a nested
// repository (a directory with a .git, or a submodule .gitmodules names,
// checked out or not) replaced by that repository's directory: git refuses
// a pathspec inside a submodule, and the nested repository is scanned
// whole.
func (sc *scanner) liftNested(dirs []string) []string {
	if len(dirs) == 0 {
		return dirs
	}
	submodules := map[string]bool{}
	if b, err := inputfile.ReadLimit(filepath.Join(sc.root, ".gitmodules"), inputfile.MaxSize); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, "=")
			if ok && strings.TrimSpace(k) == "path" {
				submodules[strings.Trim(strings.TrimSpace(v), `"`)] = true
			}
		}
	}
	var out []string
	for i, d := range dirs {
		for j := 1; j < len(d); j++ {
			if d[j] != '/' {
				continue
			}
			if _, err := os.Lstat(filepath.Join(sc.root, filepath.FromSlash(d[:j]), ".git")); err == nil || submodules[d[:j]] {
				if out == nil {
					out = append([]string(nil), dirs...)
				}
				out[i] = d[:j]
				break
			}
		}
	}
	if out == nil {
		return dirs
	}
	return out
}

// repoEnv are the variables that tie git to one repository (git rev-parse
// --local-env-vars): a nested repository is scanned without them.
var repoEnv = []string{"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
	"GIT_OBJECT_DIRECTORY", "GIT_DIR", "GIT_WORK_TREE", "GIT_IMPLICIT_WORK_TREE", "GIT_GRAFT_FILE", "GIT_INDEX_FILE",
	"GIT_NO_REPLACE_OBJECTS", "GIT_REPLACE_REF_BASE", "GIT_PREFIX", "GIT_INTERNAL_SUPER_PREFIX", "GIT_SHALLOW_FILE",
	"GIT_COMMON_DIR"}

func withoutRepoEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(repoEnv, name) && !strings.HasPrefix(name, "GIT_CONFIG_KEY_") && !strings.HasPrefix(name, "GIT_CONFIG_VALUE_") {
			out = append(out, kv)
		}
	}
	return out
}

// trackedFromGit lists the tracked files under the pathspec spec with git:
// the snapshot of their blob ids as the index has them, and those that
// differ in the work tree (changed, deleted, of another type, or with
// another executable bit), and those git does not look at (assume-unchanged,
// skip-worktree), which are read from the disk.
func (sc *scanner) trackedFromGit(spec []string) (*snapshot, []string, bool, error) {
	var tracked, diff []byte
	var terr, derr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		// --ignore-submodules: scanGit reads a submodule's files.
		// core.fileMode=true: a file whose executable bit
		// changed is listed even where git is told to overlook it; the task
		// sees the disk's bit. (Windows has no executable bit: see
		// diskExec.)
		args := []string{"diff-files", "--name-only", "-z", "--relative", "--ignore-submodules=all"}
		if diskExec {
			args = append([]string{"-c", "core.fileMode=true"}, args...)
		}
		diff, derr = sc.runGit(append(args, spec...)...)
	}()
	// -v tags each entry: "H" for one git looks at, a lower-case letter
	// for an entry marked assume-unchanged, "S" for skip-worktree.
	tracked, terr = sc.runGit(append([]string{"ls-files", "-s", "-v", "-z"}, spec...)...)
	<-done
	if terr != nil {
		return nil, nil, false, terr
	}
	if derr != nil {
		return nil, nil, false, derr
	}
	snap := &snapshot{git: true}
	sha256Repo := false
	var flagged []string // entries git does not look at
	for len(tracked) > 0 {
		i := bytes.IndexByte(tracked, 0)
		if i < 0 {
			break
		}
		line := tracked[:i]
		tracked = tracked[i+1:]
		// <tag> SP <mode> SP <object> SP <stage> TAB <path>
		if len(line) < 2 || line[1] != ' ' {
			return nil, nil, false, fmt.Errorf("cache: unexpected git ls-files output %q", line)
		}
		look := line[0] == 'H'
		line = line[2:]
		tab := bytes.IndexByte(line, '\t')
		sp1 := bytes.IndexByte(line, ' ')
		if tab < 0 || sp1 < 0 || sp1 > tab {
			return nil, nil, false, fmt.Errorf("cache: unexpected git ls-files output %q", line)
		}
		sp2 := bytes.IndexByte(line[sp1+1:tab], ' ')
		if sp2 < 0 {
			return nil, nil, false, fmt.Errorf("cache: unexpected git ls-files output %q", line)
		}
		mode, id := line[:sp1], string(line[sp1+1:sp1+1+sp2])
		p := string(line[tab+1:])
		if hasNodeModules(p) || sc.skipped(p) {
			continue
		}
		sha256Repo = len(id) == 64
		if n := len(snap.paths); n > 0 && snap.paths[n-1] == p {
			continue // an unmerged path is listed once per stage
		}
		snap.paths = append(snap.paths, p)
		snap.states = append(snap.states, fileState{id: id, exec: diskExec && string(mode) == "100755", gitlink: string(mode) == "160000", link: string(mode) == "120000", tracked: true})
		if !look {
			flagged = append(flagged, p)
		}
	}
	if !sort.StringsAreSorted(snap.paths) {
		// git sorts by bytes as Go does; be safe anyway.
		m := make(map[string]fileState, len(snap.paths))
		for i, p := range snap.paths {
			m[p] = snap.states[i]
		}
		snap = newSnapshot(m)
		snap.git = true
	}
	changed := flagged
	for _, p := range bytes.Split(diff, []byte{0}) {
		if s := string(p); s != "" && !hasNodeModules(s) && !sc.skipped(s) {
			changed = append(changed, s)
		}
	}
	return snap, changed, sha256Repo, nil
}

// diskExec is false where files have no executable bit (Windows): there
// every file counts as not executable, as hashOne reads it from the disk,
// whatever mode git records.
const diskExec = goos != "windows"

// trackedFromIndex is trackedFromGit without git: it reads the index of
// the repository whose work tree is the root and finds the changed files
// by git's own rule (statClean). It returns an error, and the caller asks
// git, when the root is not the top of a work tree, when vx's environment
// points git elsewhere (GIT_DIR and the like, as inside a git hook), and
// when the index uses a feature parseIndex does not read.
func (sc *scanner) trackedFromIndex(dirs []string) (*snapshot, []string, bool, error) {
	if !indexStatSupported {
		return nil, nil, false, errIndexUnsupported
	}
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"} {
		if _, ok := exec.LookupEnv(sc.env, name, ""); ok {
			return nil, nil, false, errIndexUnsupported
		}
	}
	gitDir, err := findGitDir(sc.root)
	if err != nil {
		return nil, nil, false, err
	}
	// One open file for its time and its content: git replaces the index
	// by a rename, and the racy rule needs the time of the index read.
	f, _, err := inputfile.Open(filepath.Join(gitDir, "index")) // a named pipe in its place must not hang vx
	if err != nil {
		return nil, nil, false, err
	}
	fi, err := f.Stat()
	var data []byte
	if err == nil {
		data = make([]byte, fi.Size())
		_, err = io.ReadFull(f, data)
	}
	f.Close()
	if err != nil {
		return nil, nil, false, err
	}
	sha256Repo := false
	x, err := parseIndex(data, 20)
	if err != nil {
		if x, err = parseIndex(data, 32); err != nil {
			return nil, nil, false, err
		}
		sha256Repo = true
	}
	snap := &snapshot{git: true, paths: make([]string, 0, len(x.entries)), states: make([]fileState, 0, len(x.entries))}
	var changed []string
	check := make([]*indexEntry, 0, len(x.entries)) // entries whose file is looked at
	for i := range x.entries {
		e := &x.entries[i]
		p := e.path
		if !underAny(p, dirs) || hasNodeModules(p) || sc.skipped(p) {
			continue
		}
		if n := len(snap.paths); n > 0 && snap.paths[n-1] == p {
			continue // an unmerged path has an entry per stage
		}
		snap.paths = append(snap.paths, p)
		snap.states = append(snap.states, fileState{id: e.id, exec: e.mode == 0o100755, gitlink: e.mode == 0o160000, link: e.mode == 0o120000, tracked: true})
		switch {
		case e.stage != 0 || e.intentToAdd:
			changed = append(changed, p)
		case e.mode == 0o160000:
			// A submodule: scanGit reads its files.
		default:
			// Entries marked assume-unchanged or skip-worktree too: git does
			// not look at their files, but the task reads them.

			check = append(check, e)
		}
	}
	if !sort.StringsAreSorted(snap.paths) {
		return nil, nil, false, errIndexUnsupported
	}
	clean := sc.statIndexed(x, check, uint32(fi.ModTime().Unix()))
	for i, e := range check {
		if !clean[i] {
			changed = append(changed, e.path)
		}
	}
	return snap, changed, sha256Repo, nil
}

// statIndexed reports for each entry whether its file is clean.
func (sc *scanner) statIndexed(x *gitIndex, check []*indexEntry, indexMtime uint32) []bool {
	clean := make([]bool, len(check))
	statPaths(sc.root, len(check), func(i int) string { return check[i].path }, func(i int, st fileStat) {
		clean[i] = statClean(check[i], x.stat(check[i]), st, indexMtime)
	})
	return clean
}

// statPaths calls fn with the metadata of the files at the n root-relative
// slash paths path(i) (a symbolic link's own; a file that cannot be had is
// left out), looking them up a directory at a time (statNames) on all
// CPUs. fn may be called at once from several goroutines, never twice for
// one i.
func statPaths(root string, n int, path func(i int) string, fn func(i int, st fileStat)) {
	// Runs of paths in one directory (sorted paths keep most of a
	// directory's files together).
	type run struct{ from, to int }
	var runs []run
	dirOf := func(p string) string { return p[:strings.LastIndexByte(p, '/')+1] }
	for i := 0; i < n; i++ {
		if i == 0 || dirOf(path(i)) != dirOf(path(i-1)) {
			runs = append(runs, run{i, i})
		}
		runs[len(runs)-1].to = i + 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.NumCPU(), len(runs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var names []string
			for {
				k := int(next.Add(1)) - 1
				if k >= len(runs) {
					return
				}
				r := runs[k]
				dir := dirOf(path(r.from))
				names = names[:0]
				for i := r.from; i < r.to; i++ {
					names = append(names, path(i)[len(dir):])
				}
				statNames(filepath.Join(root, filepath.FromSlash(dir)), names, func(i int, st fileStat) {
					fn(r.from+i, st)
				})
			}
		}()
	}
	wg.Wait()
}

// findGitDir returns the git directory of the work tree whose top is root:
// root/.git, or where a .git file points (a linked work tree, a
// submodule). It fails when root is not the top of a work tree.
func findGitDir(root string) (string, error) {
	p := filepath.Join(root, ".git")
	fi, err := os.Lstat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return p, nil
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", errIndexUnsupported
	}
	b, err := inputfile.ReadLimit(p, 4096)
	if err != nil {
		return "", err
	}
	dir, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
	if !ok || dir == "" {
		return "", errIndexUnsupported
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return dir, nil
}

// underAny reports whether the slash path p is one of dirs or below one;
// every path is when dirs is empty.
func underAny(p string, dirs []string) bool {
	if len(dirs) == 0 {
		return true
	}
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d) && len(p) > len(d) && p[len(d)] == '/' {
			return true
		}
	}
	return false
}

func (sc *scanner) skipped(p string) bool {
	return sc.skip != "" && (p == sc.skip || strings.HasPrefix(p, sc.skip+"/"))
}

// hasNodeModules reports whether a slash path has a node_modules element.
func hasNodeModules(p string) bool {
	return p == "node_modules" || strings.HasPrefix(p, "node_modules/") ||
		strings.Contains(p, "/node_modules/") || strings.HasSuffix(p, "/node_modules")
}

// scanWalk lists every file under dirs without git.
func (sc *scanner) scanWalk(dirs []string) (*snapshot, error) {
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	var todo []string
	for _, d := range dirs {
		start := filepath.Join(sc.root, filepath.FromSlash(d))
		err := filepath.WalkDir(start, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				if path == start && errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			rel, rerr := filepath.Rel(sc.root, path)
			if rerr != nil {
				return rerr
			}
			rel = filepath.ToSlash(rel)
			if e.IsDir() {
				if path != start && (e.Name() == "node_modules" || e.Name() == ".git" || sc.skipped(rel)) {
					return filepath.SkipDir
				}
				return nil
			}
			if !e.Type().IsRegular() && e.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if sc.skipped(rel) {
				return nil
			}
			todo = append(todo, rel)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cache: listing the inputs: %w", err)
		}
	}
	results, err := sc.hashFiles(todo, false)
	if err != nil {
		return nil, err
	}
	snap := &snapshot{}
	snap.apply(results)
	return snap, nil
}

// hashed is the state of one file read by hashFiles; ok is false when the
// file is gone.
type hashed struct {
	rel string
	st  fileState
	ok  bool
}

// hashFiles returns the state of the files at the root-relative paths,
// taking ids from the memo when a file's size, modification and change
// times and inode are those recorded, hashing the others on all CPUs.
func (sc *scanner) hashFiles(paths []string, sha256Repo bool) ([]hashed, error) {
	jobs := make([]hashed, len(paths))
	var next int
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	now := time.Now()
	for w := 0; w < runtime.NumCPU(); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(jobs) {
					return
				}
				rel := paths[i]
				st, ok, err := sc.hashOne(rel, sha256Repo, now)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				jobs[i] = hashed{rel, st, ok}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return jobs, nil
}

// hashOne returns the state of one file; ok is false when it does not
// exist (a tracked file that was deleted) or is not a file.
func (sc *scanner) hashOne(rel string, sha256Repo bool, now time.Time) (fileState, bool, error) {
	abs := filepath.Join(sc.root, filepath.FromSlash(rel))
	fi, err := lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
		return fileState{}, false, nil
	}
	if err != nil {
		return fileState{}, false, fmt.Errorf("cache: %w", err)
	}
	isLink := fi.isLink()
	if !fi.isRegular() && !isLink {
		return fileState{}, false, nil
	}
	mkey := memoKeyOf(fi, sha256Repo)
	produced := sc.memo.isProduced(abs, mkey)
	if e, ok := sc.memo.get(abs); ok && e.memoKey == mkey {
		e.st.produced = produced
		return e.st, true, nil
	}
	var h hash.Hash
	if sha256Repo {
		h = sha256.New()
	} else {
		h = sha1.New()
	}
	if isLink {
		target, err := os.Readlink(abs)
		if err != nil {
			return fileState{}, false, fmt.Errorf("cache: %w", err)
		}
		target = filepath.ToSlash(target)
		fmt.Fprintf(h, "blob %d\x00%s", len(target), target)
	} else {
		f, _, err := inputfile.Open(abs) // never waits on a named pipe put in its place
		if err != nil {
			return fileState{}, false, fmt.Errorf("cache: %w", err)
		}
		h.Write([]byte("blob " + strconv.FormatInt(fi.size, 10) + "\x00"))
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return fileState{}, false, fmt.Errorf("cache: reading %s: %w", abs, err)
		}
		if n != fi.size {
			// Written while we read: an id no key holds, so that the
			// task's key matches no entry and its result is not stored.
			return fileState{id: "changing-" + strconv.FormatInt(time.Now().UnixNano(), 10)}, true, nil
		}
	}
	st := fileState{id: hex.EncodeToString(h.Sum(nil)), exec: !isLink && fi.mode&0o111 != 0, link: isLink}
	if !mkey.changedLately(now) {
		sc.memo.put(abs, memoEntry{memoKey: mkey, st: st})
	}
	st.produced = produced
	return st, true, nil
}
