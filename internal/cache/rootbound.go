package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/cache/store"
	"github.com/vxrun/vx/internal/quote"
)

// Root-bound entries.
//
// One store may serve several checkouts: the worktrees of a repository
// share one by default, clones that name one directory (VX_CACHE_DIR)
// too, and keys hold no absolute path, so they share entries. An entry
// whose outputs or logs hold the absolute path of the checkout that made
// it (a source map's "sources", a test runner printing its cwd, a
// generated config) would put that path into another checkout. So when vx
// stores a result, it looks for the checkout's path in every byte it
// stores (each output file, each symbolic link's target, both logs); a
// result that holds it is root-bound:
//
//   - it is stored under boundKey(action, root), a digest of the task's key
//     and the workspace root, never under the key itself, so no lookup from
//     another root can find it, whatever else the store holds;
//   - under the key itself, unless an entry another checkout can use is
//     there, vx leaves a marker naming the root (markerExitCode, with
//     the root in a blob): a lookup from another root says why it missed;
//   - a lookup tries the key, then boundKey(key, its own root).
//
// A marker read by anything that does not know it is an entry of a run
// that failed (exit code markerExitCode), which no vx restores. Root-bound
// entries are not uploaded to a remote cache: only a machine with the same
// path could use them.

// markerExitCode is the exit code of a marker entry. vx stores only
// results of runs that exited 0, so no real entry has it.
const markerExitCode = 0x7662 // "vb"

// markerMagic starts the blob of a marker; the root follows, then "\n".
const markerMagic = "vx-root-bound 1\n"

// boundKey returns the key of a root-bound entry of action made in the
// workspace whose root is root.
func boundKey(action Digest, root string) Digest {
	h := sha256.New()
	io.WriteString(h, "vx-root-bound\x00"+action.Hash+"\x00"+root)
	return Digest{Hash: hex.EncodeToString(h.Sum(nil)), Size: action.Size}
}

// rootNeedles returns the forms of a checkout's absolute path that vx
// looks for in what it stores: the path as vx knows it (top) and as the
// system resolves its symbolic links (resolved, when it differs); on
// Windows each also with forward slashes and with doubled backslashes (as
// JSON and JavaScript strings write it), with the drive letter in either
// case. Shorter forms come first. The path of a root directory ("/",
// "C:\") is no needle: every path holds it.
func rootNeedles(top, resolved, goos string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, p := range []string{top, resolved} {
		p = strings.TrimRight(p, `/\`)
		if p == "" || goos == "windows" && len(p) == 2 && p[1] == ':' {
			continue
		}
		if goos != "windows" {
			add(p)
			continue
		}
		drives := []string{p}
		if len(p) >= 2 && p[1] == ':' {
			drives = []string{strings.ToUpper(p[:1]) + p[1:], strings.ToLower(p[:1]) + p[1:]}
		}
		for _, d := range drives {
			back := strings.ReplaceAll(d, "/", `\`)
			add(back)
			add(strings.ReplaceAll(back, `\`, "/"))
			add(strings.ReplaceAll(back, `\`, `\\`))
		}
	}
	return out
}

// scanChunk is how much of a blob is searched at a time.
const scanChunk = 1 << 20

// holdsAny reports whether what r reads holds one of needles, reading it
// once, in chunks that overlap by the longest needle's length less one.
func holdsAny(r io.Reader, needles []string) (bool, error) {
	long := 0
	ns := make([][]byte, len(needles))
	for i, n := range needles {
		ns[i] = []byte(n)
		long = max(long, len(n))
	}
	if long == 0 {
		return false, nil
	}
	buf := make([]byte, scanChunk+long)
	keep := 0
	for {
		n, err := io.ReadFull(r, buf[keep:keep+scanChunk])
		win := buf[:keep+n]
		for _, nd := range ns {
			if bytes.Contains(win, nd) {
				return true, nil
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		keep = min(long-1, len(win))
		copy(buf, win[len(win)-keep:])
	}
}

// rootBound reports whether the result r, whose blobs are in s, holds one
// of needles: in an output file, a symbolic link's target or a log.
func rootBound(s *store.Store, r *reapi.ActionResult, needles []string) (bool, error) {
	if len(needles) == 0 {
		return false, nil
	}
	for _, l := range r.OutputSymlinks {
		for _, n := range needles {
			if strings.Contains(l.Target, n) {
				return true, nil
			}
		}
	}
	seen := map[string]bool{}
	for _, d := range r.Blobs() {
		if seen[d.Hash] || d.Size == 0 {
			continue
		}
		seen[d.Hash] = true
		f, err := s.OpenBlob(d)
		if err != nil {
			return false, err
		}
		found, err := holdsAny(f, needles)
		f.Close()
		if found || err != nil {
			return found, err
		}
	}
	return false, nil
}

// markerResult returns the entry that marks a key whose entry is bound to
// root, with the blob it names.
func markerResult(root string) (*reapi.ActionResult, []byte) {
	blob := []byte(markerMagic + root + "\n")
	return &reapi.ActionResult{ExitCode: markerExitCode, StdoutDigest: reapi.DigestOf(blob)}, blob
}

// markerRoot returns the root a marker entry names, when r is one.
func markerRoot(s *store.Store, r *reapi.ActionResult) (string, bool) {
	if r.ExitCode != markerExitCode || len(r.OutputFiles) > 0 || len(r.OutputSymlinks) > 0 || r.StdoutDigest.Size > 4096 {
		return "", false
	}
	b, err := s.ReadBlob(r.StdoutDigest)
	if err != nil {
		return "", false
	}
	root, ok := strings.CutPrefix(string(b), markerMagic)
	if !ok || !strings.HasSuffix(root, "\n") {
		return "", false
	}
	return strings.TrimSuffix(root, "\n"), true
}

// BoundElsewhereError is a miss: the store's entry for the key holds the
// absolute path of another checkout (Root), so it is kept for that one.
type BoundElsewhereError struct {
	Root string
}

func (e *BoundElsewhereError) Error() string {
	return fmt.Sprintf("its entry was stored from %s and its outputs or logs hold that path, so it serves only that checkout",
		quote.Q(e.Root))
}

// Is makes the error a miss ([ErrNotFound]) for those that look for one.
func (e *BoundElsewhereError) Is(target error) bool { return target == ErrNotFound }

// saveBound stores data, the entry of k's task, as bound to this
// workspace's root, and leaves a marker under k unless k holds an entry
// another checkout can use (a run there that stored a result without its
// path: the task does not always write it).
func (c *Cache) saveBound(k *Key, data []byte) error {
	if err := c.store.UpdateActionResult(boundKey(k.Action, c.opts.Root), data); err != nil {
		return err
	}
	if old, err := c.store.GetActionResult(k.Action); err == nil {
		if r, err := reapi.UnmarshalActionResult(old); err == nil {
			if _, marker := markerRoot(c.store, r); !marker && r.ExitCode == 0 {
				return nil
			}
		}
	}
	m, blob := markerResult(c.opts.Root)
	if _, err := c.store.PutBytes(blob); err != nil {
		return err
	}
	return c.store.UpdateActionResult(k.Action, m.Marshal())
}
