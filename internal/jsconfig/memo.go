package jsconfig

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/jsconfig/wire"
	"github.com/vxrun/vx/internal/nodeprog"
)

// The memo is one file, in the store beside the task cache
// (node_modules/.cache/vx/config-memo): the evaluated default exports and
// everything their evaluation depended on. It is written whole to a
// temporary file and renamed into place, so a reader sees the old memo or
// the new one, never a part; its first line holds the SHA-256 of the rest,
// so a damaged memo reads as none.

// MemoName is the memo's file name in the store.
const MemoName = "config-memo"

const memoMagic = "vxconfigmemo1 "

type memoFile struct {
	VX       string            `json:"vx"`
	Files    []string          `json:"files"`
	Packages map[string]string `json:"packages"`
	Node     nodeID            `json:"node"`
	Deps     []wire.Dep        `json:"deps"`
	Results  []wire.Result     `json:"results"`
}

// nodeID is the node program the evaluation runs, as [nodeprog] finds it
// in the evaluation's PATH from the workspace's root: its ID changes when
// the program does, and, behind a version manager's shim, when the pins,
// variables or defaults that choose its version do, so that vx need not
// run node --version to know.
type nodeID struct {
	Path    string `json:"path"`
	ID      string `json:"id"`
	Version string `json:"version"`
}

// findNode finds the node an evaluation with environ in root runs.
func findNode(environ []string, root, goos string) (nodeID, error) {
	p, ok := (&nodeprog.Finder{GOOS: goos}).Find(environ, root)
	if !ok {
		return nodeID{}, errors.New("jsconfig: no node in PATH")
	}
	return nodeID{Path: p.Path, ID: p.ID}, nil
}

// readMemo returns the memo at path when it is whole, else nil.
func readMemo(path string) *memoFile {
	data, err := inputfile.ReadLimit(path, 256<<20) // regular files only: a named pipe in its place must not hang vx
	if err != nil || !bytes.HasPrefix(data, []byte(memoMagic)) {
		return nil
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil
	}
	sum := sha256.Sum256(data[nl+1:])
	if string(data[len(memoMagic):nl]) != hex.EncodeToString(sum[:]) {
		return nil
	}
	var m memoFile
	if json.Unmarshal(data[nl+1:], &m) != nil {
		return nil
	}
	return &m
}

// holds reports whether m is the evaluation of files with the workspace's
// packages, by this vx and node, and none of its inputs changed; else
// why not, for `vx config`.
func (m *memoFile) holds(o Options, files []string, node nodeID) (bool, string) {
	switch {
	case m.VX != o.Version:
		return false, "vx's version changed"
	case !slices.Equal(m.Files, files):
		return false, "the config files changed"
	case !maps.Equal(m.Packages, packages(o)):
		return false, "the workspace's projects changed"
	case m.Node.Path != node.Path || m.Node.ID != node.ID:
		return false, "node changed"
	}
	if d := wire.Changed(m.Deps, o.GOOS, o.Environ); d != nil {
		return false, describeDep(*d) + " changed"
	}
	return true, ""
}

func describeDep(d wire.Dep) string {
	switch d.Kind {
	case wire.KindEnv:
		return "the variable " + d.Path
	case wire.KindEnviron:
		return "the environment"
	case wire.KindList:
		return "the directory " + d.Path
	}
	return d.Path
}

// writeMemo writes m to path through a temporary file in tmpDir.
func writeMemo(path, tmpDir string, m *memoFile) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	data := append([]byte(memoMagic+hex.EncodeToString(sum[:])+"\n"), body...)
	f, err := os.CreateTemp(tmpDir, "w-config-memo-*") // "w-": the store's own temporary files, which prune removes when stale
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
}

// packages maps the name of every project to its directory: an import of
// a project's name resolves there.
func packages(o Options) map[string]string {
	m := map[string]string{}
	for _, p := range o.Projects {
		if _, dup := m[p.Name]; !dup {
			m[p.Name] = p.Dir
		}
	}
	return m
}
