package key

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/lockfile"
	"github.com/vxrun/vx/internal/quote"
)

// A key holds, of each lockfile vx reads (docs/cache.md, "Lockfiles"), the
// part that the task's project can load rather than the file's bytes: one
// line
//
//	lockfile <digest of the closure> "<lockfile>"
//
// whose digest is that of the closure's description, a blob of the store
// that vx why reads to name what changed:
//
//	vx lockfile closure 1
//	lockfile <kind> <version> "<lockfile>"
//	links <digest> "<lockfile>"                       the links between the workspace projects walked
//	setting <digest of its value> "<name>"            one per global setting
//	package <version,...> <digest> "<package name>"   one per package name of the closure
//
// The closure is the project's and the root's ("." : the root package's bins
// are on every task's PATH), through the workspace projects they depend on.
// A lockfile vx cannot read, or that has no entry for the task's project, is
// keyed as before, by its bytes (a "file" line).

// closureHeader is the first line of a closure's description.
const closureHeader = "vx lockfile closure 1"

// lockParse is one lockfile content, parsed once per run.
type lockParse struct {
	once sync.Once
	lf   *lockfile.Lockfile
	desc *lockfile.Describer
	err  error // why it is keyed by its bytes

	mu    sync.Mutex
	lines map[string][]byte // project directories (lockLines' dirsKey) → the key's line
}

// lockState returns the parse of the lockfile p whose content has the
// git blob id id, reading it once per run (yarn classic's with the
// projects' manifests, also read once per run).
func (c *Computer) lockState(p, id string) *lockParse {
	v, _ := c.locks.LoadOrStore(p+"\x00"+id, &lockParse{})
	lp := v.(*lockParse)
	lp.once.Do(func() {
		lp.lf, lp.err = c.parseLockfile(p, id)
		if lp.err == nil {
			lp.lines = map[string][]byte{}
			lp.desc = lp.lf.NewDescriber()
		}
	})
	return lp
}

// parseLockfile reads and parses the lockfile p (from the root), checking
// that its content is the one whose id the key's file list holds.
func (c *Computer) parseLockfile(p, id string) (*lockfile.Lockfile, error) {
	if strings.HasSuffix(p, ".lockb") || strings.HasPrefix(id, "changing-") || strings.Contains(id, ":") {
		return nil, lockfile.ErrUnsupported
	}
	data, err := inputfile.Read(filepath.Join(c.opts.Root, filepath.FromSlash(p)))
	if err != nil {
		return nil, err
	}
	if len(id) != 40 && len(id) != 64 {
		return nil, errors.New("not a content id vx knows")
	}
	// The id can be git's of the file as committed, line ends converted
	// (core.autocrlf on Windows): the same lockfile.
	if blobID(data, len(id)) != id && (!bytes.Contains(data, []byte("\r\n")) || blobID(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), len(id)) != id) {
		return nil, errors.New("it changed while vx read it")
	}
	if p != "yarn.lock" || c.opts.Projects == nil {
		return lockfile.Parse(p, data)
	}
	ws := c.yarnManifests()
	if ws.err != nil {
		lf, err := lockfile.Parse(p, data)
		if err != nil {
			err = fmt.Errorf("%w (%v)", err, ws.err)
		}
		return lf, err // yarn berry's needs no manifest
	}
	return lockfile.ParseWorkspacePartial(p, data, ws.projects)
}

// yarnWorkspace is what yarn classic's yarn.lock is read with: the
// projects' package.json files, read once per run.
type yarnWorkspace struct {
	once     sync.Once
	projects []lockfile.Project
	// digest is the SHA-256 of what the projects' closures are made from
	// besides the lockfile: each project's directory, name and dependency
	// ranges. The memo knows a yarn.lock's closures by its content id
	// and this digest: a range edited without a yarn install (the
	// lockfile unchanged) is never answered from the memo.
	digest string
	err    error
}

// yarnManifests reads the projects' manifests (Options.Projects).
func (c *Computer) yarnManifests() *yarnWorkspace {
	ws := &c.yarnWS
	ws.once.Do(func() {
		dirs := slices.Clone(c.opts.Projects)
		slices.Sort(dirs)
		h := sha256.New()
		for _, dir := range slices.Compact(dirs) {
			data, err := inputfile.Read(filepath.Join(c.opts.Root, filepath.FromSlash(dir), "package.json"))
			if err != nil {
				ws.err = err
				return
			}
			pr, err := lockfile.ManifestProject(dir, data)
			if err != nil {
				ws.err = err
				return
			}
			ws.projects = append(ws.projects, pr)
			fmt.Fprintf(h, "project %q %q %q\n", pr.Dir, pr.Name, pr.Version)
			for _, name := range slices.Sorted(maps.Keys(pr.Deps)) {
				fmt.Fprintf(h, "dep %q %q %q\n", name, pr.Deps[name], pr.Also[name])
			}
		}
		ws.digest = hex.EncodeToString(h.Sum(nil))
	})
	return ws
}

// lockMemoID is what the memo knows the lockfile f's closures by: its
// content id, and for yarn.lock (read with the projects' manifests when
// it is yarn classic's) the digest of the manifests' dependencies.
func (c *Computer) lockMemoID(f InputFile) string {
	if f.Path != "yarn.lock" || c.opts.Projects == nil {
		return f.ID
	}
	ws := c.yarnManifests()
	if ws.err != nil {
		return f.ID + "+unread"
	}
	return f.ID + "+" + ws.digest
}

// blobID is git's id of a blob of content data: SHA-1 (n = 40 hex digits)
// or SHA-256.
func blobID(data []byte, n int) string {
	var h hash.Hash = sha1.New()
	if n == 64 {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// appendVersion appends a version as a "package" line holds it: a byte
// that would end the field or the value (a space, a comma, a quote, a
// control character) as %XX.
func appendVersion(b []byte, v string) []byte {
	const hexDigits = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c <= ' ' || c == ',' || c == '"' || c == '%' || c == 0x7f:
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		default:
			b = append(b, c)
		}
	}
	return b
}

// lockLines returns the line of t's key for its lockfile f; ok is false
// when f is keyed by its bytes (then the reason is said once, in a dry run:
// --dry-run, vx why). The closure's description is remembered across runs
// ([lockMemo]): a warm run reads no lockfile.
func (c *Computer) lockLines(t *TaskSpec, f InputFile) ([]byte, bool) {
	// The project's closure, and those of the workspace dependencies
	// whose files the key holds (SourceDeps): their links may be missing
	// from the lockfile (pnpm's excludeLinksFromLockfile is refused, but a
	// lockfile can be stale).
	dirs := []string{t.RelDir}
	if len(t.SourceDeps) > 0 {
		more := slices.Clone(t.SourceDeps)
		slices.Sort(more)
		dirs = append(dirs, slices.Compact(more)...)
	}
	dirsKey := strings.Join(dirs, "\n")
	// The memo knows a closure by the lockfile's content id alone, but
	// for yarn classic's, by the id and the manifests' digest
	// (lockMemoID): only a lockfile read without the manifests (yarn
	// berry's) is put under the id alone, so that a warm run of a berry
	// workspace reads no manifest.
	memoID := f.ID
	d, ok := c.lockMemo.get(f.Path, memoID, dirsKey)
	if !ok {
		if memoID = c.lockMemoID(f); memoID != f.ID {
			d, ok = c.lockMemo.get(f.Path, memoID, dirsKey)
		}
	}
	if ok {
		if c.store.HasBlob(d) {
			return lockLine(d, f.Path), true
		}
	}
	lp := c.lockState(f.Path, f.ID)
	if lp.err != nil {
		if c.opts.DryRun {
			why := lp.err.Error()
			switch {
			case errors.Is(lp.err, lockfile.ErrUnsupported) && strings.HasSuffix(f.Path, ".lockb"):
				why = "vx does not read the binary bun.lockb (bun.lock, its text form, is read)"
			case errors.Is(lp.err, inputfile.ErrTooLarge):
				why = "larger than 16 MiB"
			}
			c.warn("%s: every task's key holds the whole lockfile, not its project's dependencies: %s", quote.Name(f.Path), why)
		}
		return nil, false
	}
	lp.mu.Lock()
	b, ok := lp.lines[dirsKey]
	lp.mu.Unlock()
	if ok {
		return b, b != nil
	}
	desc := describeLock(lp.desc, f.Path, dirs)
	if desc != nil {
		d := reapi.DigestOf(desc)
		c.closures.Store(d.Hash, desc)
		if c.opts.Write {
			if _, err := c.store.PutBytes(desc); err == nil {
				id := f.ID
				if lp.lf.Kind == lockfile.Yarn {
					id = c.lockMemoID(f) // what it resolves depends on the manifests
				}
				c.lockMemo.put(f.Path, id, dirsKey, d)
			}
		}
		b = lockLine(d, f.Path)
	}
	lp.mu.Lock()
	lp.lines[dirsKey] = b
	lp.mu.Unlock()
	if b == nil && c.opts.DryRun {
		if why := lp.lf.StaleReason(append(dirs, ".")...); why != "" {
			c.warn("%s: %s: the tasks of %s hold the whole lockfile", quote.Name(f.Path), why, quote.Name(t.RelDir))
			return nil, false
		}
		c.warn("%s has no entry for %s: its tasks' keys hold the whole lockfile (run the package manager's install)", quote.Name(f.Path), quote.Name(t.RelDir))
	}
	return b, b != nil
}

// lockLine is the key's line for the lockfile p whose closure's
// description has the digest d.
func lockLine(d Digest, p string) []byte {
	b := make([]byte, 0, 96+len(p))
	b = append(b, "lockfile "...)
	b = append(b, d.Hash...)
	b = append(b, ' ')
	b = appendQuoted(b, p)
	return append(b, '\n')
}

// closure returns the closure's description whose digest is h: one this
// run made, or the store's; nil when neither has it.
func (c *Computer) closure(h string) []byte {
	if b, ok := c.closures.Load(h); ok {
		return b.([]byte)
	}
	b, err := c.store.ReadBlobByHash(h)
	if err != nil || !strings.HasPrefix(string(b), closureHeader+"\n") {
		return nil
	}
	return b
}

// describeLock writes the description of the closure of the projects dirs
// (and the root) in the lockfile p; nil when the lockfile has no importer
// for the first of dirs.
func describeLock(dr *lockfile.Describer, p string, dirs []string) []byte {
	lf := dr.Lockfile()
	pkgs, links, ok := dr.Describe(append(slices.Clone(dirs), ".")...)
	if !ok {
		return nil
	}
	b := make([]byte, 0, 256+len(lf.Global)*80+len(pkgs)*110)
	b = append(b, closureHeader+"\nlockfile "...)
	b = append(b, lf.Kind...)
	b = append(b, ' ')
	b = appendVersion(b, lf.Version)
	b = append(b, ' ')
	b = appendQuoted(b, p)
	b = append(b, "\nlinks "...)
	b = append(b, links...)
	b = append(b, ' ')
	b = appendQuoted(b, p)
	b = append(b, '\n')
	for _, g := range lf.Global {
		name, value, _ := strings.Cut(g, "=")
		sum := sha256.Sum256([]byte(value))
		b = append(b, "setting "...)
		b = hex.AppendEncode(b, sum[:])
		b = append(b, ' ')
		b = appendQuoted(b, name)
		b = append(b, '\n')
	}
	for _, r := range pkgs {
		b = append(b, "package "...)
		for i, v := range r.Versions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendVersion(b, v)
		}
		b = append(b, ' ')
		b = append(b, r.Digest...)
		b = append(b, ' ')
		b = appendQuoted(b, r.Name)
		b = append(b, '\n')
	}
	return b
}

// inputLines returns the input list's lines for t's files: fileLines, but
// for the lockfiles vx reads, which hold t's project's closure.
func (c *Computer) inputLines(t *TaskSpec, files []InputFile) []byte {
	n := 0
	for _, f := range files {
		n += len(f.Path) + len(f.ID) + 16 // "file ", " - ", quotes, "\n"
	}
	m := make([]byte, 0, n)
	for _, f := range files {
		if isLockfile(f.Path) {
			if b, ok := c.lockLines(t, f); ok {
				m = append(m, b...)
				continue
			}
		}
		m = appendFileLine(m, f)
	}
	return m
}

// lockMemo remembers across runs, in the store (file "lockfile-memo"), the
// digest of each project's closure for the lockfile content a run saw, by
// the lockfile's path and git blob id: a warm run neither reads nor parses
// a lockfile that did not change. The description itself is a blob of the
// store; a memo line whose blob was pruned is computed again, so that vx
// why can always name what changed.
type lockMemo struct {
	path string // "" = none (tests)

	once  sync.Once
	mu    sync.Mutex
	recs  map[string]Digest // lockfile path NUL content id NUL project directories → the closure's description
	used  map[string]string // lockfile path → the content id of this run
	dirty bool
}

const lockMemoMagic = "vxlockmemo1 " + FormatVersion + "\n"

func (m *lockMemo) load() {
	m.once.Do(func() {
		m.recs, m.used = map[string]Digest{}, map[string]string{}
		if m.path == "" {
			return
		}
		data, err := inputfile.Read(m.path)
		if err != nil || !strings.HasPrefix(string(data), lockMemoMagic) {
			return
		}
		// Lines: "<path>" <id> "<dir>" <hash> <size>
		for _, line := range strings.Split(string(data[len(lockMemoMagic):]), "\n") {
			var f [5]string
			ok := true
			for i := range f {
				line = strings.TrimPrefix(line, " ")
				if i == 0 || i == 2 {
					q, err := strconv.QuotedPrefix(line)
					if err != nil {
						ok = false
						break
					}
					f[i], _ = strconv.Unquote(q)
					line = line[len(q):]
					continue
				}
				f[i], line, _ = strings.Cut(line, " ")
			}
			size, err := strconv.ParseInt(f[4], 10, 64)
			if !ok || err != nil || !reapi.ValidDigest(Digest{Hash: f[3], Size: size}) {
				continue
			}
			m.recs[f[0]+"\x00"+f[1]+"\x00"+f[2]] = Digest{Hash: f[3], Size: size}
		}
	})
}

func (m *lockMemo) get(path, id, dir string) (Digest, bool) {
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.recs[path+"\x00"+id+"\x00"+dir]
	if ok {
		// (a miss says nothing: yarn.lock's closures are looked up by
		// two ids, lockLines)
		m.used[path] = id
	}
	return d, ok
}

func (m *lockMemo) put(path, id, dir string, d Digest) {
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used[path] = id
	m.recs[path+"\x00"+id+"\x00"+dir] = d
	m.dirty = true
}

// save writes the memo when it changed: the records of the lockfile
// contents this run used, and those of lockfiles it did not look at.
func (m *lockMemo) save(tmpDir string) error {
	if m.path == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty {
		return nil
	}
	var b strings.Builder
	b.WriteString(lockMemoMagic)
	for k, d := range m.recs {
		path, rest, _ := strings.Cut(k, "\x00")
		id, dir, _ := strings.Cut(rest, "\x00")
		if u, ok := m.used[path]; ok && u != id {
			continue // an older content of a lockfile
		}
		b.WriteString(strconv.Quote(path) + " " + id + " " + strconv.Quote(dir) + " " + d.Hash + " " + strconv.FormatInt(d.Size, 10) + "\n")
	}
	f, err := os.CreateTemp(tmpDir, "lockfile-memo-*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), m.path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	m.dirty = false
	return nil
}
