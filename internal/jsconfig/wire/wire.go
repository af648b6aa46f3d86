package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vxrun/vx/internal/inputfile"
	"syscall"

	"github.com/vxrun/vx/exec"
)

// Version is the protocol's version: vx refuses a helper that answers with
// another. Version 2: the helper writes [Started] first.
const Version = 2

// Started is what the helper writes on stdout as soon as it runs, before
// it reads the request: vx's time limit for the evaluation starts then, so
// that compiling the helper (go run) is not part of it. JSON skips it.
const Started = "\n"

// Request is what vx asks the helper: evaluate the config files.
type Request struct {
	Version int `json:"version"`
	// Root is the workspace root, absolute; node runs there.
	Root string `json:"root"`
	// Files are the config files to evaluate, absolute: the root's first
	// when there is one, then projects' files.
	Files []string `json:"files"`
	// Packages maps the name of each project of the workspace to its
	// directory, absolute: an import of that name (or name/subpath)
	// resolves to the project, installed or not.
	Packages map[string]string `json:"packages"`
	// Node is the node program to run, absolute.
	Node string `json:"node"`
	// GOOS is the system vx runs on, for the rules of names (case).
	GOOS string `json:"goos"`
}

// Response is the helper's answer: the results, or the error.
type Response struct {
	Version int `json:"version"`
	// Error, when not nil, is why the evaluation failed; nothing else is
	// set then.
	Error *Error `json:"error,omitempty"`
	// Results hold each file's default export as JSON, in the order of
	// Request.Files.
	Results []Result `json:"results,omitempty"`
	// NodeVersion is the version of node that evaluated them ("v22.3.0").
	NodeVersion string `json:"nodeVersion,omitempty"`
	// Deps is what the evaluation read.
	Deps []Dep `json:"deps,omitempty"`
	// Volatile, when not "", says why the result must not be remembered:
	// the config did something whose inputs vx cannot see (started a
	// program, used the network).
	Volatile string `json:"volatile,omitempty"`
}

// Result is one file's default export.
type Result struct {
	File string `json:"file"`
	// JSON is the default export, as JSON.
	JSON json.RawMessage `json:"json"`
}

// Error is a problem in a config file, or with the evaluation itself.
type Error struct {
	// File is the file the problem is in (absolute), or "" when none is
	// known; Line and Col are 1-based, Col in characters, 0 when unknown.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Msg     string `json:"msg"`
	Suggest string `json:"suggest,omitempty"`
}

// Kinds of [Dep].
const (
	KindFile  = "file"  // a file's content
	KindList  = "list"  // the names in a directory (starting with Prefix)
	KindStat  = "stat"  // the kind of a path, symbolic links followed
	KindLstat = "lstat" // the kind of a path, not followed
	KindEnv   = "env"   // a variable of the environment
	// KindMeta and KindLmeta are what a Stats object tells beyond the
	// kind, following symbolic links or not: the kind, the size and the
	// modification time.
	KindMeta  = "meta"
	KindLmeta = "lmeta"
	// KindReadlink is where a symbolic link points.
	KindReadlink = "readlink"
	// KindEnviron is the whole environment, for a config that listed its
	// variables (Object.keys(process.env), a child process's copy).
	KindEnviron = "environ"
)

// Dep is one thing an evaluation read, and what it found.
type Dep struct {
	Kind string `json:"kind"`
	// Path is the file or directory (absolute), or the variable's name
	// ("" for KindEnviron).
	Path string `json:"path"`
	// Prefix is, for KindList, the start of the names that count ("" for
	// all).
	Prefix string `json:"prefix,omitempty"`
	// State is what was found; for KindEnv "=" and the value, or "" for
	// a variable that is not set.
	State string `json:"state"`
}

// Dependency states.
const (
	Absent = "absent"
	Other  = "other"
)

// FileState returns the state of the file at path: "sha256:" and its
// content's hash, [Absent] or [Other]. Only a regular file is read (a
// named pipe or a device put where a config's input was is [Other], and
// never hangs the reader), whatever its size: a state must change with
// the content.
func FileState(path string) string {
	f, _, err := inputfile.Open(path)
	if err != nil {
		return missingOr(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Other
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ContentState is the state of a file holding data.
func ContentState(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// missingOr maps a read error to Absent (nothing there) or Other.
func missingOr(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return Absent
	}
	return Other
}

// ListState returns the state of the directory dir's names that start
// with prefix ("" for all): the SHA-256 of the sorted names, each followed
// by a newline, or [Absent]. On Windows and macOS, whose file systems
// ignore case, prefix matches whatever the case.
func ListState(dir, prefix, goos string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return missingOr(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return NamesState(names, prefix, goos)
}

// NamesState is the state of a listing holding names.
func NamesState(names []string, prefix, goos string) string {
	var keep []string
	for _, n := range names {
		if HasPrefix(n, prefix, goos) {
			keep = append(keep, n)
		}
	}
	slices.Sort(keep)
	h := sha256.New()
	for _, n := range keep {
		h.Write([]byte(n))
		h.Write([]byte{'\n'})
	}
	return "names:" + hex.EncodeToString(h.Sum(nil))
}

// HasPrefix reports whether name starts with prefix, whatever the case on
// goos's case-insensitive file systems (Windows, macOS).
func HasPrefix(name, prefix, goos string) bool {
	if len(name) < len(prefix) {
		return false
	}
	if goos == "windows" || goos == "darwin" {
		return strings.EqualFold(name[:len(prefix)], prefix)
	}
	return name[:len(prefix)] == prefix
}

// StatState returns the kind of the path: "file", "dir", "other" or
// [Absent], following symbolic links; with lstat set, not following them
// ("link").
func StatState(path string, lstat bool) string {
	fi, err := statOf(path, lstat)
	if err != nil {
		return missingOr(err)
	}
	return ModeState(fi.Mode())
}

// statOf is os.Lstat when lstat, else os.Stat.
func statOf(path string, lstat bool) (fs.FileInfo, error) {
	if lstat {
		return os.Lstat(path)
	}
	return os.Stat(path)
}

// ModeState is the state of a path of mode m.
func ModeState(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "link"
	}
	return Other
}

// MetaState returns the kind, size and modification time (nanoseconds
// since 1970) of the path, space-separated ("file 12 1700000000123456789"),
// following symbolic links unless lstat, or [Absent] or [Other]. The
// access and change times are not part of it: reading a file changes the
// one, and nothing a config reads depends on the other.
func MetaState(path string, lstat bool) string {
	fi, err := statOf(path, lstat)
	if err != nil {
		return missingOr(err)
	}
	return ModeState(fi.Mode()) + " " + strconv.FormatInt(fi.Size(), 10) + " " + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// ReadlinkState returns "=" and the target of the symbolic link path, or
// [Absent] or [Other] (not a link).
func ReadlinkState(path string) string {
	t, err := os.Readlink(path)
	if err != nil {
		return missingOr(err)
	}
	return "=" + t
}

// EnvState is the state of a variable: "=" and its value, or "" when it is
// not set.
func EnvState(value string, set bool) string {
	if !set {
		return ""
	}
	return "=" + value
}

// EnvironState is the state of a whole environment: the SHA-256 of its
// sorted entries.
func EnvironState(environ []string) string {
	sorted := slices.Sorted(slices.Values(environ))
	h := sha256.New()
	for _, kv := range sorted {
		h.Write([]byte(kv))
		h.Write([]byte{0})
	}
	return "environ:" + hex.EncodeToString(h.Sum(nil))
}

// Current reads the state d would have now, with environ as the
// environment (its names matched by goos's rules).
func Current(d Dep, goos string, environ []string) string {
	switch d.Kind {
	case KindFile:
		return FileState(d.Path)
	case KindList:
		return ListState(d.Path, d.Prefix, goos)
	case KindStat, KindLstat:
		return StatState(d.Path, d.Kind == KindLstat)
	case KindMeta, KindLmeta:
		return MetaState(d.Path, d.Kind == KindLmeta)
	case KindReadlink:
		return ReadlinkState(d.Path)
	case KindEnv:
		return EnvState(exec.LookupEnv(environ, d.Path, goos))
	case KindEnviron:
		return EnvironState(environ)
	}
	return "unknown kind " + d.Kind
}

// Changed returns the first of deps whose state is not the one recorded,
// or nil when none changed.
func Changed(deps []Dep, goos string, environ []string) *Dep {
	for i := range deps {
		if Current(deps[i], goos, environ) != deps[i].State {
			return &deps[i]
		}
	}
	return nil
}
