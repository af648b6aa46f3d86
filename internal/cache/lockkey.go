package cache

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/lockfile"
	"github.com/vxrun/vx/internal/quote"
)

// A key holds, of each lockfile vx reads (docs/cache.md, "Lockfiles"), the
// part that the task's project can load rather than the file's bytes:
//
//	lockfile <kind> <version> <links digest> "<lockfile>"
//	setting <digest of its value> "<name>"             one per global setting
//	package <version,...> <digest> "<package name>"    one per package name of the closure
//
// The closure is the project's and the root's ("." : the root package's bins
// are on every task's PATH), through the workspace projects they depend on.
// A lockfile vx cannot read, or that has no entry for the task's project, is
// keyed as before, by its bytes (a "file" line).

// lockParse is one lockfile content, parsed once per run.
type lockParse struct {
	once sync.Once
	lf   *lockfile.Lockfile
	err  error // why it is keyed by its bytes

	mu    sync.Mutex
	lines map[string][]byte // project directory → its lines
}

// lockState returns the parse of the lockfile p whose content has the
// git blob id id, reading it once per run.
func (c *Cache) lockState(p, id string) *lockParse {
	v, _ := c.locks.LoadOrStore(p+"\x00"+id, &lockParse{})
	lp := v.(*lockParse)
	lp.once.Do(func() {
		lp.lf, lp.err = c.parseLockfile(p, id)
		if lp.err == nil {
			lp.lines = map[string][]byte{}
		}
	})
	return lp
}

// parseLockfile reads and parses the lockfile p (from the root), checking
// that its content is the one whose id the key's file list holds.
func (c *Cache) parseLockfile(p, id string) (*lockfile.Lockfile, error) {
	if strings.HasSuffix(p, ".lockb") || strings.HasPrefix(id, "changing-") || strings.Contains(id, ":") {
		return nil, lockfile.ErrUnsupported
	}
	data, err := inputfile.Read(filepath.Join(c.opts.Root, filepath.FromSlash(p)))
	if err != nil {
		return nil, err
	}
	var h hash.Hash
	switch len(id) {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return nil, errors.New("not a content id vx knows")
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	if hex.EncodeToString(h.Sum(nil)) != id {
		return nil, errors.New("it changed while vx read it")
	}
	return lockfile.Parse(p, data)
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

// lockLines returns the lines of t's key for its lockfile f; ok is false
// when f is keyed by its bytes (then the reason is said once, in a dry run:
// --dry-run, vx why).
func (c *Cache) lockLines(t *TaskSpec, f InputFile) ([]byte, bool) {
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
	b, ok := lp.lines[t.RelDir]
	lp.mu.Unlock()
	if ok {
		return b, b != nil
	}
	b = describeLock(lp.lf, f.Path, t.RelDir)
	lp.mu.Lock()
	lp.lines[t.RelDir] = b
	lp.mu.Unlock()
	if b == nil && c.opts.DryRun {
		c.warn("%s has no entry for %s: its tasks' keys hold the whole lockfile (run the package manager's install)", quote.Name(f.Path), quote.Name(t.RelDir))
	}
	return b, b != nil
}

// describeLock writes the lines of the lockfile p for the project dir; nil
// when the lockfile has no importer for dir.
func describeLock(lf *lockfile.Lockfile, p, dir string) []byte {
	pkgs, links, ok := lf.Describe(dir, ".")
	if !ok {
		return nil
	}
	b := make([]byte, 0, 128+len(lf.Global)*80+len(pkgs)*110)
	b = append(b, "lockfile "...)
	b = append(b, lf.Kind...)
	b = append(b, ' ')
	b = append(b, lf.Version...)
	b = append(b, ' ')
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
func (c *Cache) inputLines(t *TaskSpec, files []InputFile) []byte {
	m := make([]byte, 0, len(files)*96)
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
