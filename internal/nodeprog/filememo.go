package nodeprog

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/vxrun/vx/internal/inputfile"
)

// FileMemoName is the name of a [FileMemo]'s file in the store.
const FileMemoName = "node-versions"

// fileMemoMax bounds the versions a FileMemo keeps: the oldest goes first.
// A machine runs a handful of node programs; each upgrade adds one.
const fileMemoMax = 32

// A FileMemo keeps node versions across runs in one small file (the
// store's [FileMemoName]), for a run that opens no task cache (none of its
// tasks is cached), whose memo would otherwise hold them: without it,
// every such run started node --version to fill npm_config_user_agent.
// It is read at the first lookup; a new version is written at once, whole,
// through a temporary file renamed into place, so a reader sees the old
// file or the new one. A file that cannot be read or parsed is an empty
// memo; one that cannot be written is not remembered (the next run asks
// node again). Safe for concurrent use.
type FileMemo struct {
	Path string
	// TempDir returns the directory a write's temporary file goes in (the
	// store's tmp, making the store if need be); an error skips the write.
	TempDir func() (string, error)

	once sync.Once
	mu   sync.Mutex
	list []fileMemoEntry // oldest first
}

type fileMemoEntry struct{ Path, ID, Version string }

// The file is text, not JSON: a short-lived vx reading JSON pays for
// encoding/json's reflection on its first use, a large part of the read.
// Its first line is fileMemoMagic; each other line holds a version, an
// identity and the program's path, separated by single spaces (the path
// last: it may hold spaces, never a line break).
const fileMemoMagic = "vxnodeversions1"

func (m *FileMemo) load() {
	m.once.Do(func() {
		data, err := inputfile.ReadLimit(m.Path, 64<<10) // regular files only: a named pipe must not hang vx
		if err != nil {
			return
		}
		rest, ok := bytes.CutPrefix(data, []byte(fileMemoMagic+"\n"))
		if !ok {
			return
		}
		for _, line := range strings.Split(string(rest), "\n") {
			f := strings.SplitN(line, " ", 3)
			if len(f) == 3 && f[1] != "" && f[2] != "" && parseVersion(f[0]) == f[0] {
				m.list = append(m.list, fileMemoEntry{Path: f[2], ID: f[1], Version: f[0]})
			}
		}
	})
}

// NodeVersion returns the version remembered for p.
func (m *FileMemo) NodeVersion(p Program) (string, bool) {
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.list {
		if e.Path == p.Real && e.ID == p.ID {
			return e.Version, true
		}
	}
	return "", false
}

// SetNodeVersion remembers v as p's version and writes the file.
func (m *FileMemo) SetNodeVersion(p Program, v string) {
	m.load()
	m.mu.Lock()
	defer m.mu.Unlock()
	list := make([]fileMemoEntry, 0, len(m.list)+1)
	for _, e := range m.list {
		if e.Path != p.Real || e.ID != p.ID {
			list = append(list, e)
		}
	}
	list = append(list, fileMemoEntry{Path: p.Real, ID: p.ID, Version: v})
	if len(list) > fileMemoMax {
		list = list[len(list)-fileMemoMax:]
	}
	m.list = list
	m.write() // best effort: unwritten, the next run asks node again
}

// write writes m.list to m.Path; m.mu is held.
func (m *FileMemo) write() error {
	if m.TempDir == nil {
		return nil
	}
	dir, err := m.TempDir()
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(fileMemoMagic + "\n")
	for _, e := range m.list {
		if strings.ContainsAny(e.Path, "\r\n") || strings.ContainsAny(e.ID, " \r\n") {
			continue // not a line of the file: asked again next run
		}
		b.WriteString(e.Version + " " + e.ID + " " + e.Path + "\n")
	}
	data := []byte(b.String())
	f, err := os.CreateTemp(dir, "w-node-versions-*") // "w-": the store's own temporary files, which prune removes when stale
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), m.Path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("nodeprog: cannot write %s: %w", m.Path, err)
	}
	return nil
}
