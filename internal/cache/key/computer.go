package key

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/nodeprog"
	"github.com/vxrun/vx/internal/quote"
)

// Computer computes the keys of one run's tasks: it reads the workspace's
// files once (a snapshot, git's view of them when there is git), keeps
// their ids across runs (the memo), and turns a task's spec and files into
// its key. It also says, after a task ran, whether its inputs changed
// meanwhile ([Computer.Recheck]), and which files under a task's outputs
// are the task's ([Computer.NotMine], [Computer.Wrote]): the memo knows
// which files vx wrote.
type Computer struct {
	opts   Options
	sc     *scanner
	envKey *EnvKey
	store  Blobs
	warn   func(format string, args ...any)

	snapOnce sync.Once
	snapDirs []string // what the snapshot covers (root-relative); nil = all
	snap     *snapshot
	snapErr  error

	mu         sync.Mutex
	extras     map[string]hashed // files outside the snapshot, read once per run
	walks      walks             // the directories looked at for ignored input files
	linkDirs   sync.Map          // directory from the root → whether it is a link (linkedDir), once per run
	inputGlobs map[string]bool   // input globs warned of as matching nothing
	locks      sync.Map          // lockfile path NUL content id → *lockParse
	lockMemo   *lockMemo
	yarnWS     yarnWorkspace // the projects' manifests, for yarn classic's yarn.lock
	closures   sync.Map      // digest → the closure's description made in this run

	// pendingWrote are the files restores wrote where there was none, for
	// RecordPending.
	pendingWrote []pendingFile
}

// Options configure [New].
type Options struct {
	Root    string   // the workspace root, absolute
	Environ []string // vx's environment: git is looked up in its PATH and run with it
	// Memo and LockMemo are the files of the memo of files' ids and of
	// the lockfile memo; "" keeps none.
	Memo, LockMemo string
	// Skip is a directory relative to Root (slash-separated) whose files
	// are never inputs: the store, when it is inside the workspace.
	Skip string
	// Blobs keeps the descriptions of lockfile closures that keys name;
	// Write says whether new ones are put there (a run that stores).
	Blobs Blobs
	Write bool
	// DryRun: say why a lockfile is keyed by its bytes (--dry-run, vx why).
	DryRun bool
	// EnvKey hashes the values of the keys' variables; nil: [PublicEnvKey].
	EnvKey *EnvKey
	GOOS   string // "" = runtime.GOOS
	GOARCH string // "" = runtime.GOARCH
	// Projects are the workspace's projects' directories (slash-separated,
	// relative to Root; "." the root), for yarn classic's yarn.lock,
	// which lists none; nil: such a lockfile is keyed by its bytes.
	Projects []string
	// Warn receives warnings ("p#build: inputs glob ..."); nil drops them.
	Warn func(format string, args ...any)
}

// Blobs is where the key's computation keeps what a key's line names but
// does not hold (the description of a lockfile closure, for vx why): the
// store, of which it knows no more.
type Blobs interface {
	HasBlob(d reapi.Digest) bool
	PutBytes(data []byte) (reapi.Digest, error)
	ReadBlobByHash(h string) ([]byte, error)
}

// New returns a Computer for one run.
func New(o Options) *Computer {
	if o.GOOS == "" {
		o.GOOS = goos
	}
	if o.GOARCH == "" {
		o.GOARCH = goarch
	}
	if o.EnvKey == nil {
		o.EnvKey = PublicEnvKey()
	}
	c := &Computer{opts: o, envKey: o.EnvKey, store: o.Blobs, warn: o.Warn}
	if c.warn == nil {
		c.warn = func(string, ...any) {}
	}
	c.sc = &scanner{root: o.Root, env: o.Environ, memo: &memo{path: o.Memo}, skip: o.Skip}
	c.lockMemo = &lockMemo{path: o.LockMemo}
	if git, err := exec.LookPath("git", o.Environ); err == nil {
		c.sc.git = git
	}
	return c
}

// SaveMemo writes the memo of files' ids back when it changed, through a
// temporary file in tmpDir.
func (c *Computer) SaveMemo(tmpDir string) error { return c.sc.memo.save(tmpDir) }

// SaveLockMemo writes the lockfile memo back when it changed, through a
// temporary file in tmpDir.
func (c *Computer) SaveLockMemo(tmpDir string) error { return c.lockMemo.save(tmpDir) }

// Prepare starts reading, in the background, the files the keys of tasks
// can cover (only RelDir and Inputs of each matter): all of the workspace
// for a run of every project, a few directories for a filtered one. A key
// of a task outside them is still right, at the cost of a scan of its own.
// Without Prepare the first key reads all of the workspace.
func (c *Computer) Prepare(tasks []*TaskSpec) {
	var dirs []string
	seen := map[string]bool{}
	for _, t := range tasks {
		d := scanDirs(t)
		if d == nil {
			dirs = nil // everything
			break
		}
		for _, p := range d {
			if !seen[p] {
				seen[p] = true
				dirs = append(dirs, p)
			}
		}
	}
	if len(dirs) > maxScanDirs {
		dirs = nil // as fast, and a short command line for git
	}
	c.snapDirs = dirs
	go c.snapshot()
}

// maxScanDirs is the most directories a snapshot is restricted to; beyond,
// it covers the whole workspace.
const maxScanDirs = 64

func (c *Computer) snapshot() (*snapshot, error) {
	c.snapOnce.Do(func() { c.snap, c.snapErr = c.sc.scan(c.snapDirs) })
	return c.snap, c.snapErr
}

// snapshotFor returns a snapshot that covers t's files: the run's, or when
// t is outside it, one of t's own.
func (c *Computer) snapshotFor(t *TaskSpec) (*snapshot, error) {
	snap, err := c.snapshot()
	if err != nil || c.snapDirs == nil {
		return snap, err
	}
	need := scanDirs(t)
	covered := need != nil
	for _, d := range need {
		covered = covered && underAny(d, c.snapDirs)
	}
	if covered {
		return snap, nil
	}
	return c.sc.scan(need)
}

// NodeMemo returns the memo in which a [nodeprog.Finder] keeps the
// versions of the node programs it found, across runs: in the store's
// memo, beside the files' hashes, under the program's identity.
func (c *Computer) NodeMemo() nodeprog.Memo { return nodeMemo{c.sc.memo} }

type nodeMemo struct{ m *memo }

// nodeMemoKey is the memo's key of p's version: the program's path (the
// memo forgets the entry when the program is gone) and its identity.
func nodeMemoKey(p nodeprog.Program) string {
	return nodeVersionKey + p.Real + nodeIDSep + p.ID
}

func (n nodeMemo) NodeVersion(p nodeprog.Program) (string, bool) {
	e, ok := n.m.get(nodeMemoKey(p))
	return e.st.id, ok && e.st.id != ""
}

func (n nodeMemo) SetNodeVersion(p nodeprog.Program, v string) {
	n.m.put(nodeMemoKey(p), memoEntry{st: fileState{id: v}})
}

func (c *Computer) platform() []reapi.Property {
	return []reapi.Property{{Name: "OSFamily", Value: c.opts.GOOS}, {Name: "ISA", Value: c.opts.GOARCH}}
}

// Key returns the key of t from the workspace's files as they were when
// the run started.
func (c *Computer) Key(t *TaskSpec) (*Key, error) {
	in, err := c.Inputs(t)
	if err != nil {
		return nil, err
	}
	return c.KeyOf(t, in), nil
}

// Inputs returns t's input files as they were when the run started: most
// of the work of its key, which does not need t.Deps.
func (c *Computer) Inputs(t *TaskSpec) (Inputs, error) {
	if l := c.linkedDir(t.RelDir); l != "" {
		return Inputs{}, fmt.Errorf("cache: project directory %s is behind the symbolic link %s: vx lists no file through a link, so the key would hold none of the project's files; move the project into the workspace, or set \"cache\": false", quote.Q(t.RelDir), quote.Q(l))
	}
	snap, err := c.snapshotFor(t)
	if err != nil {
		return Inputs{}, err
	}
	files := c.inputFilesOf(snap, t, &c.walks, c.extraFile, nil)
	if l := c.linkToDir(snap, files); l != "" {
		glob := "//" + l
		if rel, in := projectRel(t.RelDir, l); in {
			glob = rel
		}
		return Inputs{}, fmt.Errorf("cache: input %s is a symbolic link to a directory: the key would hold the link, not the files behind it; make the files it leads to inputs of the task too (\"//<their directory>/**\") or leave it out (%s), or set \"cache\": false", quote.Q(l), quote.Q("!"+glob))
	}
	c.warnUnmatchedInputs(t, files)
	return Inputs{files, c.inputLines(t, files), snap}, nil
}

// warnUnmatchedInputs warns, once per glob and run, of an input glob of t
// that matches none of its input files: a glob written from the root
// without "//" ("packages/**/src/**" in turbo.json) matches nothing in the
// project, and an edit of the files it meant would be a hit.
func (c *Computer) warnUnmatchedInputs(t *TaskSpec, files []InputFile) {
	for _, g := range compileGlobs(t.Inputs) {
		if g.neg || g.pattern == "" || strings.Contains(g.pattern, "$TURBO_") {
			continue // turbo's tokens ($TURBO_DEFAULT$) are not globs
		}
		raw := g.pattern
		if g.root {
			raw = "//" + raw
		}
		c.mu.Lock()
		seen := c.inputGlobs[raw]
		c.mu.Unlock()
		if seen || globMatchesAny(g, t.RelDir, files) {
			continue
		}
		c.mu.Lock()
		first := !c.inputGlobs[raw]
		if c.inputGlobs == nil {
			c.inputGlobs = map[string]bool{}
		}
		c.inputGlobs[raw] = true
		c.mu.Unlock()
		if first {
			c.warn("%s: inputs glob %q matches no file of the project%s", t.ID, raw, unmatchedInputHint(g, t.RelDir, files))
		}
	}
}

// globMatchesAny reports whether g matches one of files (from the root),
// project-relative (dir) unless it is a root glob.
func globMatchesAny(g glob, dir string, files []InputFile) bool {
	for _, f := range files {
		p := f.Path
		if !g.root {
			rel, in := projectRel(dir, f.Path)
			if !in {
				continue
			}
			p = rel
		}
		if ok, _ := doublestar.Match(g.pattern, p); ok {
			return true
		}
	}
	return false
}

// unmatchedInputHint says what an input glob that matched nothing may
// mean: a glob written from the root, without "//".
func unmatchedInputHint(g glob, dir string, files []InputFile) string {
	if !g.root && dir != "." {
		if globMatchesAny(glob{pattern: g.pattern, root: true}, dir, files) {
			return fmt.Sprintf(" (%s): a glob without \"//\" is relative to the project's directory; from the workspace's root it is %q", quote.Q(dir), "//"+g.pattern)
		}
		if !strings.Contains(g.pattern, "/") {
			return fmt.Sprintf(" (%s): if it names a file the project may lack (.env.local), nothing is wrong; else check the task's inputs, which are relative to the project's directory (\"//\" for the workspace's root)", quote.Q(dir))
		}
		return fmt.Sprintf(" (%s): a glob without \"//\" is relative to the project's directory, and one starting with \"//\" to the workspace's root; an edit of the files it meant would not change the key", quote.Q(dir))
	}
	return ": an edit of the files it meant would not change the key; check the task's inputs"
}

// linkedDir is linkedDir for the root, each directory looked at once per
// run: the projects of a workspace share their parents.
func (c *Computer) linkedDir(rel string) string {
	if rel == "." || rel == "" {
		return ""
	}
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != '/' {
			continue
		}
		d := rel[:i]
		v, ok := c.linkDirs.Load(d)
		if !ok {
			fi, err := os.Lstat(filepath.Join(c.opts.Root, filepath.FromSlash(d)))
			v = err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 // as linkedDir tells
			c.linkDirs.Store(d, v)
		}
		if v.(bool) {
			return d
		}
	}
	return ""
}

// linkedDir returns the first element of rel, a directory relative to
// root, that is a symbolic link (or a Windows junction), or "": git lists
// a link as one file, and neither git nor a walk lists the files behind
// it, so a project reached through one would have none of its files in
// its key.
func linkedDir(root, rel string) string {
	if rel == "." || rel == "" {
		return ""
	}
	p := root
	parts := strings.Split(rel, "/")
	for i, e := range parts {
		p = filepath.Join(p, e)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

// linkToDir returns the first of files that is a symbolic link (git's
// mode 120000, or one on the disk) to a directory some of whose files are
// not inputs of the task, or "". Git and vx's walk list such a link as one
// file whose content is its target's text, so an edit behind it would not
// change the key unless the files behind it are in the key by their own
// paths.
func (c *Computer) linkToDir(snap *snapshot, files []InputFile) string {
	if snap.noLinks {
		return ""
	}
	for _, f := range files {
		if st, ok := snap.get(f.Path); !ok || !st.link {
			continue
		}
		abs := filepath.Join(c.opts.Root, filepath.FromSlash(f.Path))
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			continue
		}
		if !c.linkCovered(snap, abs, files) {
			return f.Path
		}
	}
	return ""
}

// linkCovered reports whether the directory the link at abs leads to is in
// the workspace, scanned in snap, and holds no file that is not among the
// task's inputs (files, sorted by path): then the key holds the link (its
// target's text) and, by their own paths, every file a task can read
// through it, as in vite's fixtures ("link" -> "real" beside it).
func (c *Computer) linkCovered(snap *snapshot, abs string, files []InputFile) bool {
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	root, err := filepath.EvalSymlinks(c.opts.Root)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false // outside the workspace
	}
	rel = filepath.ToSlash(rel)
	if snap.dirs != nil && (rel == "." || !underAny(rel, snap.dirs)) {
		return false // not all of it scanned
	}
	for _, p := range snap.under(rel) {
		if _, ok := slices.BinarySearchFunc(files, p, func(f InputFile, p string) int { return strings.Compare(f.Path, p) }); !ok {
			return false
		}
	}
	return true
}

// inputFilesOf returns t's input files: those of snap, and those git
// ignores that t's inputs name (ignoredInputs), found through w (nil: a
// fresh look) and hashed by hash; yours is inputFiles'.
func (c *Computer) inputFilesOf(snap *snapshot, t *TaskSpec, w *walks, hash func(p string) (fileState, bool), yours func(p string, st fileState) bool) []InputFile {
	files := mergeInputs(inputFiles(snap, t, hash, yours), ignoredInputs(c.sc, w, snap, t, hash))
	if snap.noLinks {
		return files // (a file snap does not list is not looked up either)
	}
	for i, f := range files {
		if st, ok := snap.get(f.Path); ok && st.link {
			files[i].ID = f.ID + linkedContent(filepath.Join(c.opts.Root, filepath.FromSlash(f.Path)))
		}
	}
	return files
}

// linkedContent is what a symbolic link's id (its target's text) needs
// for the key to change with what a task reads through it: ":" and the
// SHA-256 of the file it leads to; "" for a link to nothing or to a
// directory (which [Computer.Inputs] refuses).
func linkedContent(abs string) string {
	f, _, err := inputfile.Open(abs) // never waits on a named pipe
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ":unreadable"
	}
	return ":" + hex.EncodeToString(h.Sum(nil))
}

// Inputs are a task's input files, from [Computer.Inputs], with their lines
// of the key's input list.
type Inputs struct {
	files []InputFile
	lines []byte
	snap  *snapshot
}

// KeyOf returns the key of t, whose input files are in: quick, since a
// chain of tasks is keyed one after another.
func (c *Computer) KeyOf(t *TaskSpec, in Inputs) *Key {
	k := keyOf(t, in.files, in.lines, c.platform(), c.envKey)
	k.snap = in.snap
	return k
}

// extraFile hashes a file the snapshot does not list (a package.json or
// lockfile that git ignores).
func (c *Computer) extraFile(p string) (fileState, bool) {
	c.mu.Lock()
	e, seen := c.extras[p]
	c.mu.Unlock()
	if seen {
		return e.st, e.ok
	}
	st, ok, err := c.sc.hashOne(p, false, time.Now())
	if err != nil {
		st, ok = fileState{}, false
	}
	c.mu.Lock()
	if c.extras == nil {
		c.extras = map[string]hashed{}
	}
	c.extras[p] = hashed{p, st, ok}
	c.mu.Unlock()
	return st, ok
}

// FileIDs returns the files at paths (slash-separated, from the root) as
// they are now, with their ids; a file that is gone has no id.
func (c *Computer) FileIDs(paths []string) []InputFile {
	out := make([]InputFile, 0, len(paths))
	now := time.Now()
	for _, p := range paths {
		f := InputFile{Path: p}
		if st, ok, err := c.sc.hashOne(p, false, now); err == nil && ok {
			f.ID, f.Exec = st.id, st.exec
		}
		out = append(out, f)
	}
	return out
}
