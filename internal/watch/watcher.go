package watch

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/vxrun/vx/internal/inputfile"
)

// Options configure [Start].
type Options struct {
	Root string // the workspace root, absolute
	// Paths are what to watch, slash-separated from the root: directories
	// (with everything below them) and files; "." is the whole
	// workspace. A path that does not exist yet is watched from the
	// nearest directory above it, and fully once it appears.
	Paths []string
	// Skip names directories never watched, nor anything below them
	// (node_modules, .git, the cache's store); nil = none.
	Skip func(rel string) bool
	// Ignored says which of the paths (slash-separated, from the root)
	// git ignores; nil = none. Directories it ignores are not watched;
	// files it ignores are reported with Change.Ignored set.
	Ignored func(paths []string) (map[string]bool, error)
	// Quiet and Max are the [Debouncer]'s; 0 = 100ms and 2s.
	Quiet, Max time.Duration
	// Warn receives what the watcher has to say while it runs (a
	// directory it could not watch, git failing), one line without "vx:".
	Warn func(string)
	GOOS string // "" = runtime.GOOS; chooses the limit message
}

// A Watcher watches files and sends their changes in batches on C.
type Watcher struct {
	// C receives each batch of changes. It is closed when the watcher
	// stops ([Watcher.Close]).
	C <-chan Batch

	o       Options
	fsn     *fsnotify.Watcher
	out     chan Batch
	done    chan struct{}
	stopped sync.WaitGroup

	// Used by the loop goroutine only (and by Start before it runs).
	watched   map[string]bool   // directories watched, from the root
	ignored   map[string]bool   // directories git ignores: not watched
	isIgnored map[string]bool   // what git said of each file, until a .gitignore changes
	digests   map[string]string // the content last seen of each changed file
	born      map[string]bool   // paths created and not yet in a batch
	fresh     []string          // directories watched since the last batch, to ask git about
	deb       Debouncer
	overflow  bool
	limitSaid bool
}

// Start watches o.Paths. It returns an error when the system cannot
// watch them all: too many directories for its limit (the message says
// which limit and how to raise it).
func Start(o Options) (*Watcher, error) {
	if o.Quiet == 0 {
		o.Quiet = 100 * time.Millisecond
	}
	if o.Max == 0 {
		o.Max = 2 * time.Second
	}
	if o.GOOS == "" {
		o.GOOS = runtime.GOOS
	}
	if o.Skip == nil {
		o.Skip = func(string) bool { return false }
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	fsn, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, limitError(o.GOOS, err, 0)
	}
	w := &Watcher{o: o, fsn: fsn, out: make(chan Batch), done: make(chan struct{}),
		watched: map[string]bool{}, ignored: map[string]bool{}, isIgnored: map[string]bool{}, digests: map[string]string{}, born: map[string]bool{},
		deb: Debouncer{Quiet: o.Quiet, Max: o.Max}}
	w.C = w.out
	if err := w.addTree(".", false, true); err != nil {
		fsn.Close()
		return nil, err
	}
	w.fresh = nil
	w.stopped.Add(1)
	go w.loop()
	return w, nil
}

// Dirs returns how many directories are watched (before the loop runs).
func (w *Watcher) Dirs() int { return len(w.watched) }

// Close stops the watcher and closes C.
func (w *Watcher) Close() error {
	select {
	case <-w.done:
		return nil
	default:
	}
	close(w.done)
	w.stopped.Wait()
	return w.fsn.Close()
}

// class says how a directory is watched: not at all, as a way to a
// watched path below it (its own files are reported all the same), or
// fully, with everything below it.
type class int

const (
	none class = iota
	toward
	full
)

func (w *Watcher) classOf(rel string) class {
	if rel != "." && w.o.Skip(rel) {
		return none
	}
	c := none
	for _, p := range w.o.Paths {
		switch {
		case p == "." || rel == p || strings.HasPrefix(rel, p+"/"):
			return full
		case rel == "." || strings.HasPrefix(p, rel+"/"):
			c = toward
		}
	}
	return c
}

// addTree watches the directory rel and what below it should be, level
// by level. With ask, git is asked about each level's directories at
// once, and those it ignores are left out; without, they are watched
// until the next batch asks about them (a directory just created must be
// watched at once, or the files written in it next are missed, and a
// checkout that creates a hundred directories must not start git a
// hundred times). With report, the files found are reported as created:
// they may have been written before their directory was watched.
func (w *Watcher) addTree(rel string, report, ask bool) error {
	level := []string{rel}
	for len(level) > 0 {
		if ask && w.o.Ignored != nil && !(len(level) == 1 && level[0] == ".") {
			ign, err := w.o.Ignored(level)
			if err != nil {
				w.o.Warn(err.Error())
			}
			kept := level[:0]
			for _, d := range level {
				if ign[d] {
					w.ignored[d] = true
				} else {
					kept = append(kept, d)
				}
			}
			level = kept
		}
		var next []string
		for _, d := range level {
			if w.watched[d] || w.ignored[d] || w.classOf(d) == none {
				continue
			}
			if err := w.fsn.Add(filepath.Join(w.o.Root, filepath.FromSlash(d))); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // gone meanwhile
				}
				if isLimit(err) {
					return limitError(w.o.GOOS, err, len(w.watched))
				}
				w.o.Warn(fmt.Sprintf("watch: %s: %v", d, err))
				continue
			}
			w.watched[d] = true
			w.fresh = append(w.fresh, d)
			ents, _ := os.ReadDir(filepath.Join(w.o.Root, filepath.FromSlash(d)))
			for _, e := range ents {
				sub := path.Join(d, e.Name())
				switch {
				case e.IsDir():
					if w.classOf(sub) != none && !w.ignored[sub] {
						next = append(next, sub)
					}
				case report:
					// New with its directory: gone again by the batch, it
					// was a temporary file (an editor's, a rename's).
					w.born[sub] = true
					w.deb.Add(sub, time.Now())
				}
			}
		}
		level = next
	}
	return nil
}

func (w *Watcher) loop() {
	defer w.stopped.Done()
	defer close(w.out)
	var ready []Batch // batches the receiver has not taken yet
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	for {
		var send chan Batch
		var first Batch
		if len(ready) > 0 {
			send, first = w.out, ready[0]
		}
		if due, ok := w.deb.Due(); ok && !armed {
			timer.Reset(time.Until(due))
			armed = true
		}
		select {
		case <-w.done:
			timer.Stop()
			return
		case ev, ok := <-w.fsn.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fsn.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.overflow = true
				w.deb.Add(".", time.Now()) // a batch, soon
				continue
			}
			w.o.Warn(fmt.Sprintf("watch: %v", err))
		case <-timer.C:
			armed = false
			if b, ok := w.batch(time.Now()); ok {
				ready = mergeReady(ready, b)
			}
		case send <- first:
			ready = ready[1:]
		}
	}
}

// mergeReady queues b; batches the receiver has not taken yet become
// one, so that a slow receiver gets the changes of every burst at once.
func mergeReady(ready []Batch, b Batch) []Batch {
	if len(ready) == 0 {
		return []Batch{b}
	}
	last := &ready[len(ready)-1]
	byPath := map[string]Change{}
	for _, c := range append(last.Changes, b.Changes...) {
		if old, ok := byPath[c.Path]; !ok || c.Time.After(old.Time) {
			byPath[c.Path] = c
		}
	}
	last.Changes = last.Changes[:0]
	for _, c := range byPath {
		last.Changes = append(last.Changes, c)
	}
	sort.Slice(last.Changes, func(i, j int) bool { return last.Changes[i].Path < last.Changes[j].Path })
	last.Overflow = last.Overflow || b.Overflow
	return ready
}

// event records one event of the system's.
func (w *Watcher) event(ev fsnotify.Event) {
	rel, ok := w.rel(ev.Name)
	if !ok {
		return
	}
	now := time.Now()
	switch {
	case ev.Has(fsnotify.Create):
		w.born[rel] = true
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			if err := w.addTree(rel, true, false); err != nil && !w.limitSaid {
				w.limitSaid = true
				w.o.Warn(err.Error() + "; changes below " + rel + " are not seen")
			}
			return
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if w.watched[rel] {
			// A directory went: its files went with it, unseen.
			for d := range w.watched {
				if d == rel || strings.HasPrefix(d, rel+"/") {
					delete(w.watched, d)
					w.fsn.Remove(filepath.Join(w.o.Root, filepath.FromSlash(d)))
				}
			}
			for p := range w.digests {
				if strings.HasPrefix(p, rel+"/") {
					w.deb.Add(p, now)
				}
			}
		}
	case w.watched[rel]:
		return // a directory's own time or entries: its files say what changed
	}
	w.deb.Add(rel, now)
}

// rel returns name relative to the root, slash-separated, and whether it
// is inside a directory the watcher still wants.
func (w *Watcher) rel(name string) (string, bool) {
	r, err := filepath.Rel(w.o.Root, name)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	r = filepath.ToSlash(r)
	for d := path.Dir(r); ; d = path.Dir(d) {
		if w.ignored[d] || d != "." && w.o.Skip(d) {
			return "", false
		}
		if d == "." {
			break
		}
	}
	return r, true
}

// batch takes the debouncer's batch due at now and keeps the changes
// that are real: content (or the executable bit) not what was last seen,
// nothing below a directory git ignores. It asks git about the files and
// the directories watched since the last batch at once.
func (w *Watcher) batch(now time.Time) (Batch, bool) {
	changes := w.deb.Take(now)
	if changes == nil {
		return Batch{}, false
	}
	b := Batch{Overflow: w.overflow}
	w.overflow = false
	if b.Overflow {
		// Events were lost: directories may have appeared unseen.
		if err := w.addTree(".", false, false); err != nil {
			w.o.Warn(err.Error())
		}
	}
	kept := changes[:0]
	for _, c := range changes {
		if c.Path == "." {
			continue // the overflow's mark
		}
		var d string
		d, c.Mod = digest(filepath.Join(w.o.Root, filepath.FromSlash(c.Path)))
		// What was born is forgotten once its path is in a batch, not at
		// every batch: a burst the debouncer splits in two (a new
		// directory's own events, then the file an editor wrote there by a
		// temporary one) still knows its temporary file.
		born := w.born[c.Path]
		delete(w.born, c.Path)
		if d == "dir" {
			continue
		}
		old, known := w.digests[c.Path]
		if known && old == d {
			continue // written again as it was, or touched
		}
		if !known && d == "" && born {
			continue // created and gone within the burst: an editor's temporary file
		}
		if d == "" {
			delete(w.digests, c.Path)
		} else {
			w.digests[c.Path] = d
		}
		if path.Base(c.Path) == ".gitignore" {
			clear(w.isIgnored)
		}
		kept = append(kept, c)
	}
	if w.o.Ignored != nil {
		var ask []string
		for _, c := range kept {
			if _, ok := w.isIgnored[c.Path]; !ok {
				ask = append(ask, c.Path)
			}
		}
		ask = append(ask, w.fresh...)
		ign, err := w.o.Ignored(ask)
		if err != nil {
			w.o.Warn(err.Error())
		}
		for _, d := range w.fresh {
			if ign[d] {
				w.unwatch(d)
			}
		}
		w.fresh = nil
		for _, c := range kept {
			if _, ok := w.isIgnored[c.Path]; !ok {
				w.isIgnored[c.Path] = ign[c.Path]
			}
		}
		k := kept[:0]
		for _, c := range kept {
			if _, ok := w.rel(filepath.Join(w.o.Root, filepath.FromSlash(c.Path))); !ok {
				continue // below a directory found ignored
			}
			c.Ignored = w.isIgnored[c.Path]
			k = append(k, c)
		}
		kept = k
	}
	w.fresh = nil
	b.Changes = kept
	return b, len(kept) > 0 || b.Overflow
}

// unwatch stops watching the directory rel, which git ignores, and what
// below it was watched.
func (w *Watcher) unwatch(rel string) {
	w.ignored[rel] = true
	for d := range w.watched {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(w.watched, d)
			w.fsn.Remove(filepath.Join(w.o.Root, filepath.FromSlash(d)))
		}
	}
}

// maxDigest is the largest file whose content is compared: a larger one
// counts as changed at every event.
const maxDigest = 64 << 20

// digest identifies what a file holds: its content and executable bit,
// "dir" for a directory, "" when it is gone, and a fresh value for a file
// that cannot be read or is too large to compare; and its modification
// time.
func digest(name string) (string, time.Time) {
	fi, err := os.Lstat(name)
	switch {
	case err != nil:
		return "", time.Time{}
	case fi.IsDir():
		return "dir", fi.ModTime()
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(name)
		return "link:" + target, fi.ModTime()
	case !fi.Mode().IsRegular():
		// A named pipe, a socket or a device: never opened (a pipe would
		// block the watcher until a writer came).
		return fmt.Sprintf("special:%v", fi.Mode().Type()), fi.ModTime()
	case fi.Size() > maxDigest:
		return fmt.Sprintf("large:%d", time.Now().UnixNano()), fi.ModTime()
	}
	f, _, err := inputfile.Open(name) // replaced by a pipe since the Lstat: refused, not waited on
	if err != nil {
		return fmt.Sprintf("unreadable:%d", time.Now().UnixNano()), fi.ModTime()
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Sprintf("unreadable:%d", time.Now().UnixNano()), fi.ModTime()
	}
	return fmt.Sprintf("%x:%o", h.Sum(nil), fi.Mode()&0o111), fi.ModTime()
}
