package store

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/cache/reapi"
	"github.com/vxrun/vx/internal/inputfile"
)

// PruneOptions say what [Store.Prune] removes.
type PruneOptions struct {
	MaxSize int64         // keep the most recently used entries within this many bytes; 0 = no limit
	MaxAge  time.Duration // remove entries not used for this long; 0 = no limit
	// Grace protects blobs and temporary files younger than this from
	// removal even when no entry names them: a concurrent run may be
	// about to. 0 = one hour.
	Grace time.Duration
}

// PruneResult says what Prune removed and what is left.
type PruneResult struct {
	RemovedEntries, RemovedBlobs int
	RemovedBytes                 int64
	Entries                      int
	Bytes                        int64
}

type acEntry struct {
	path  string
	used  time.Time
	size  int64
	blobs []reapi.Digest
}

// Prune removes entries, least recently used first, until the store fits
// in MaxSize, and entries unused for MaxAge; then the blobs no remaining
// entry names (older than Grace, and not named by a removed entry used
// within Grace, which a run may be restoring), the tasks' records of entries that are
// gone (see [LastUse]), and stale temporary files.
func (s *Store) Prune(o PruneOptions) (PruneResult, error) {
	if o.Grace == 0 {
		o.Grace = time.Hour
	}
	now := time.Now()
	var res PruneResult
	if err := s.checkMark(); err != nil {
		return res, err
	}
	entries, err := s.entries()
	if err != nil {
		return res, err
	}
	blobSizes := map[string]int64{}
	blobTimes := map[string]time.Time{}
	err = s.eachHashFile("cas", func(_ string, fi fs.FileInfo) {
		blobSizes[fi.Name()] = fi.Size()
		blobTimes[fi.Name()] = fi.ModTime()
	})
	if err != nil {
		return res, err
	}
	// Newest first: keep while within the limits.
	sort.Slice(entries, func(i, j int) bool { return entries[i].used.After(entries[j].used) })
	counted := map[string]bool{}
	// inUse are the blobs of entries removed now that a run used within
	// Grace: it may be restoring them (another worktree sharing the
	// store). The entry goes; its blobs stay until a later prune.
	inUse := map[string]bool{}
	var total int64
	var keep []acEntry
	for _, e := range entries {
		add := e.size
		for _, d := range e.blobs {
			if !counted[d.Hash] {
				add += blobSizes[d.Hash]
			}
		}
		tooOld := o.MaxAge > 0 && now.Sub(e.used) > o.MaxAge
		tooBig := o.MaxSize > 0 && total+add > o.MaxSize
		if tooOld || tooBig {
			if now.Sub(e.used) < o.Grace {
				for _, d := range e.blobs {
					inUse[d.Hash] = true
				}
			}
			if err := os.Remove(e.path); err == nil {
				res.RemovedEntries++
				res.RemovedBytes += e.size
			}
			continue
		}
		total += add
		for _, d := range e.blobs {
			counted[d.Hash] = true
		}
		keep = append(keep, e)
	}
	for h, size := range blobSizes {
		if counted[h] || inUse[h] || now.Sub(blobTimes[h]) < o.Grace {
			continue
		}
		if err := os.Remove(filepath.Join(s.Dir, "cas", h[:min(2, len(h))], h)); err == nil {
			res.RemovedBlobs++
			res.RemovedBytes += size
		}
	}
	s.pruneLast()
	s.pruneTraced()
	s.checkoutFiles(func(p string, fi fs.FileInfo) {
		if now.Sub(fi.ModTime()) > checkoutFileAge {
			os.Remove(p)
		}
	})
	s.eachTempFile(func(p string, fi fs.FileInfo) {
		if now.Sub(fi.ModTime()) > o.Grace {
			os.Remove(p)
		}
	})
	res.Entries = len(keep)
	res.Bytes = total
	return res, nil
}

// entries lists the action entries with the blobs each names (its Action,
// Command and input list, its outputs and logs). An unreadable entry names
// no blob and is pruned first.
func (s *Store) entries() ([]acEntry, error) {
	var out []acEntry
	err := s.eachHashFile("ac", func(p string, fi fs.FileInfo) {
		ent := acEntry{path: p, used: fi.ModTime(), size: fi.Size()}
		action := reapi.Digest{Hash: fi.Name()}
		if data, err := inputfile.ReadLimit(p, MaxEntrySize); err == nil && len(data) > len(acMagic)+65 {
			if r, err := reapi.UnmarshalActionResult(data[len(acMagic)+65:]); err == nil {
				ent.blobs = append(r.Blobs(), action)
				if ab, err := inputfile.ReadLimit(s.BlobPath(action), MaxEntrySize); err == nil {
					if a, err := reapi.UnmarshalAction(ab); err == nil {
						ent.blobs = append(ent.blobs, a.CommandDigest, a.InputRootDigest)
					}
				}
			} else {
				ent.used = time.Time{}
			}
		} else {
			ent.used = time.Time{}
		}
		out = append(out, ent)
	})
	return out, err
}

// eachHashFile calls fn for every file of the store's directory sub (cas
// or ac) that has the store's layout, <2 hex>/<64 hex>: only regular files
// with such names, and never through a symbolic link, so that nothing vx
// did not write there is ever counted or removed. A file that vanishes
// during the walk is passed over: a concurrent run may prune or rename it.
func (s *Store) eachHashFile(sub string, fn func(path string, fi fs.FileInfo)) error {
	dir := filepath.Join(s.Dir, sub)
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil // absent, or not a directory of the store's own
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() || len(e.Name()) != 2 || !reapi.IsHex(e.Name()) {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		for _, f := range files {
			if !isHashFile(e.Name(), f) {
				continue
			}
			if fi, err := f.Info(); err == nil {
				fn(filepath.Join(dir, e.Name(), f.Name()), fi)
			}
		}
	}
	return nil
}

// eachTempFile calls fn for every file vx writes under tmp/, unless tmp is
// a symbolic link.
func (s *Store) eachTempFile(fn func(path string, fi fs.FileInfo)) {
	dir := filepath.Join(s.Dir, "tmp")
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if !isTempFile(e) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			fn(filepath.Join(dir, e.Name()), fi)
		}
	}
}

// Status describes a store for `vx cache status`.
type Status struct {
	Dir     string    `json:"dir"`
	Bytes   int64     `json:"bytes"`
	Entries int       `json:"entries"`
	Blobs   int       `json:"blobs"`
	LastRun *LastRun  `json:"lastRun"`
	Oldest  time.Time `json:"-"`
}

// LastRun holds the counts of the last run that used the store.
type LastRun struct {
	Time   time.Time `json:"time"`
	Hits   int       `json:"hits"`
	Misses int       `json:"misses"`
	Stored int       `json:"stored"`
	// RemoteHits counts the hits found in the remote cache (within Hits).
	RemoteHits int `json:"remoteHits"`
}

// Status reads the store's size and counts without changing it. A
// directory that holds files but is not a store vx made is a
// *NotStoreError.
func (s *Store) Status() (Status, error) {
	st := Status{Dir: s.Dir}
	if err := s.checkMark(); err != nil {
		return st, err
	}
	for _, sub := range []string{"ac", "cas", "last"} {
		err := s.eachHashFile(sub, func(_ string, fi fs.FileInfo) {
			st.Bytes += fi.Size()
			switch sub {
			case "ac":
				st.Entries++
			case "cas":
				st.Blobs++
			}
		})
		if err != nil {
			return st, err
		}
	}
	s.eachTempFile(func(_ string, fi fs.FileInfo) { st.Bytes += fi.Size() })
	for _, name := range []string{"memo", "last-run", "config-memo", "lockfile-memo", markName} {
		if fi, err := os.Lstat(filepath.Join(s.Dir, name)); err == nil && fi.Mode().IsRegular() {
			st.Bytes += fi.Size()
		}
	}
	s.checkoutFiles(func(_ string, fi fs.FileInfo) { st.Bytes += fi.Size() })
	st.LastRun = readLastRun(s)
	return st, nil
}

// WriteLastRun records the counts of the run now ending (lr.Time is
// when it is written) for `vx cache status`. Best effort.
func (s *Store) WriteLastRun(lr LastRun) {
	f, err := s.TempFile()
	if err != nil {
		return
	}
	fmt.Fprintf(f, "time %d\nhits %d\nmisses %d\nstored %d\nremote-hits %d\n", time.Now().Unix(), lr.Hits, lr.Misses, lr.Stored, lr.RemoteHits)
	f.Close()
	if err := os.Rename(f.Name(), filepath.Join(s.Dir, "last-run")); err != nil {
		os.Remove(f.Name())
	}
}

func readLastRun(s *Store) *LastRun {
	data, err := inputfile.ReadLimit(filepath.Join(s.Dir, "last-run"), MaxEntrySize)
	if err != nil {
		return nil
	}
	lr := &LastRun{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, _ := strings.Cut(line, " ")
		n, _ := strconv.ParseInt(v, 10, 64)
		switch k {
		case "time":
			lr.Time = time.Unix(n, 0)
		case "hits":
			lr.Hits = int(n)
		case "misses":
			lr.Misses = int(n)
		case "stored":
			lr.Stored = int(n)
		case "remote-hits":
			lr.RemoteHits = int(n)
		}
	}
	return lr
}
