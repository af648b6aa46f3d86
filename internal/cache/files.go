package cache

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
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// fileState is what the key knows of one input file: its id (a git blob id
// in hex: SHA-1 of "blob <size>\x00" + content, or SHA-256 in a repository
// using SHA-256 objects; a symbolic link's content is its target) and its
// executable bit.
type fileState struct {
	id   string
	exec bool
}

// snapshot is the state of the workspace's files: every file git knows or
// would add (tracked, plus untracked files that are not ignored), or every
// file when there is no git, node_modules directories excluded.
type snapshot struct {
	paths []string // sorted, slash-separated, relative to the root
	files map[string]fileState
	git   bool
}

// under returns the paths at or below dir ("." for all), in order.
func (s *snapshot) under(dir string) []string {
	if dir == "." || dir == "" {
		return s.paths
	}
	prefix := dir + "/"
	i := sort.SearchStrings(s.paths, dir)
	if i < len(s.paths) && s.paths[i] == dir {
		return s.paths[i : i+1] // a file
	}
	i = sort.SearchStrings(s.paths, prefix)
	j := i
	for j < len(s.paths) && strings.HasPrefix(s.paths[j], prefix) {
		j++
	}
	return s.paths[i:j]
}

// scanner takes snapshots of the files under root.
type scanner struct {
	root string
	env  []string // vx's environment, for git
	git  string   // the git program, "" when not found
	memo *memo
	skip string // a directory relative to root whose files are never inputs (the store), or ""
}

// scan returns the files under the root-relative directories dirs (all of
// the root when dirs is empty).
func (sc *scanner) scan(dirs []string) (*snapshot, error) {
	if sc.git != "" {
		snap, err := sc.scanGit(dirs)
		if err == nil {
			return snap, nil
		}
		if !errors.Is(err, errNoRepo) {
			return nil, err
		}
	}
	return sc.scanWalk(dirs)
}

var errNoRepo = errors.New("cache: not in a git work tree")

// runGit runs git in the root and returns its standard output.
func (sc *scanner) runGit(args ...string) ([]byte, error) {
	cmd := osexec.Command(sc.git, args...)
	cmd.Dir = sc.root
	cmd.Env = append(append([]string{}, sc.env...), "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return nil, errNoRepo
		}
		return nil, fmt.Errorf("cache: git %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return out, nil
}

func (sc *scanner) scanGit(dirs []string) (*snapshot, error) {
	spec := []string{"--"}
	spec = append(spec, dirs...)
	var tracked, changed []byte
	var terr, cerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tracked, terr = sc.runGit(append([]string{"ls-files", "-s", "-z"}, spec...)...)
	}()
	changed, cerr = sc.runGit(append([]string{"ls-files", "-z", "-m", "-o", "--exclude-standard"}, spec...)...)
	wg.Wait()
	if terr != nil {
		return nil, terr
	}
	if cerr != nil {
		return nil, cerr
	}
	snap := &snapshot{files: map[string]fileState{}, git: true}
	var order []string // git lists tracked files sorted by path
	sha256Repo := false
	for len(tracked) > 0 {
		i := bytes.IndexByte(tracked, 0)
		if i < 0 {
			break
		}
		line := tracked[:i]
		tracked = tracked[i+1:]
		// <mode> SP <object> SP <stage> TAB <path>
		tab := bytes.IndexByte(line, '\t')
		sp1 := bytes.IndexByte(line, ' ')
		if tab < 0 || sp1 < 0 || sp1 > tab {
			return nil, fmt.Errorf("cache: unexpected git ls-files output %q", line)
		}
		sp2 := bytes.IndexByte(line[sp1+1:tab], ' ')
		if sp2 < 0 {
			return nil, fmt.Errorf("cache: unexpected git ls-files output %q", line)
		}
		mode, id := line[:sp1], string(line[sp1+1:sp1+1+sp2])
		p := string(line[tab+1:])
		if hasNodeModules(p) || sc.skipped(p) {
			continue
		}
		sha256Repo = len(id) == 64
		if _, dup := snap.files[p]; !dup { // an unmerged path is listed once per stage
			order = append(order, p)
		}
		snap.files[p] = fileState{id: id, exec: string(mode) == "100755"}
	}
	var todo []string
	for _, p := range bytes.Split(changed, []byte{0}) {
		if len(p) == 0 || p[len(p)-1] == '/' {
			continue // a nested repository shows as "dir/"
		}
		s := string(p)
		if hasNodeModules(s) || sc.skipped(s) {
			continue
		}
		todo = append(todo, s)
	}
	if err := sc.hashFiles(snap, todo, sha256Repo); err != nil {
		return nil, err
	}
	snap.sortFrom(order)
	return snap, nil
}

func (sc *scanner) skipped(p string) bool {
	return sc.skip != "" && (p == sc.skip || strings.HasPrefix(p, sc.skip+"/"))
}

// sortFrom sets s.paths from sorted, a sorted list of most of s.files'
// paths, adding the others (untracked files) and leaving out those gone.
func (s *snapshot) sortFrom(sorted []string) {
	if !sort.StringsAreSorted(sorted) {
		s.sort()
		return
	}
	in := make(map[string]bool, 16)
	var extra []string
	if len(s.files) != len(sorted) {
		for _, p := range sorted {
			in[p] = true
		}
		for p := range s.files {
			if !in[p] {
				extra = append(extra, p)
			}
		}
		sort.Strings(extra)
	}
	s.paths = make([]string, 0, len(s.files))
	i, j := 0, 0
	for i < len(sorted) || j < len(extra) {
		var p string
		if j >= len(extra) || i < len(sorted) && sorted[i] < extra[j] {
			p, i = sorted[i], i+1
		} else {
			p, j = extra[j], j+1
		}
		if _, ok := s.files[p]; ok {
			s.paths = append(s.paths, p)
		}
	}
}

func (s *snapshot) sort() {
	s.paths = make([]string, 0, len(s.files))
	for p := range s.files {
		s.paths = append(s.paths, p)
	}
	sort.Strings(s.paths)
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
	snap := &snapshot{files: map[string]fileState{}}
	if err := sc.hashFiles(snap, todo, false); err != nil {
		return nil, err
	}
	snap.sort()
	return snap, nil
}

// hashFiles adds the files at the root-relative paths to snap, taking ids
// from the memo when a file's size, modification time and inode are those
// recorded, hashing the others on all CPUs. A file that is gone is left out.
func (sc *scanner) hashFiles(snap *snapshot, paths []string, sha256Repo bool) error {
	type job struct {
		rel string
		st  fileState
		ok  bool
	}
	jobs := make([]job, len(paths))
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
				jobs[i] = job{rel, st, ok}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	for _, j := range jobs {
		if j.ok {
			snap.files[j.rel] = j.st
		} else if j.rel != "" {
			delete(snap.files, j.rel)
		}
	}
	return nil
}

// hashOne returns the state of one file; ok is false when it does not
// exist (a tracked file that was deleted) or is not a file.
func (sc *scanner) hashOne(rel string, sha256Repo bool, now time.Time) (fileState, bool, error) {
	abs := filepath.Join(sc.root, filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR) {
		return fileState{}, false, nil
	}
	if err != nil {
		return fileState{}, false, fmt.Errorf("cache: %w", err)
	}
	isLink := fi.Mode()&fs.ModeSymlink != 0
	if !fi.Mode().IsRegular() && !isLink {
		return fileState{}, false, nil
	}
	mkey := memoKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inode(fi), sha256: sha256Repo}
	if e, ok := sc.memo.get(abs); ok && e.memoKey == mkey {
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
		f, err := os.Open(abs)
		if err != nil {
			return fileState{}, false, fmt.Errorf("cache: %w", err)
		}
		h.Write([]byte("blob " + strconv.FormatInt(fi.Size(), 10) + "\x00"))
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return fileState{}, false, fmt.Errorf("cache: reading %s: %w", abs, err)
		}
		if n != fi.Size() {
			// Written while we read: hash what is there now, next time.
			return fileState{id: "changing"}, true, nil
		}
	}
	st := fileState{id: hex.EncodeToString(h.Sum(nil)), exec: !isLink && fi.Mode()&0o111 != 0}
	// A file modified in the last two seconds may change again within the
	// same timestamp tick: not memoised (git's "racy clean" rule).
	if now.Sub(fi.ModTime()) > 2*time.Second {
		sc.memo.put(abs, memoEntry{memoKey: mkey, st: st})
	}
	return st, true, nil
}
