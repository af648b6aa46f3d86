package config

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/inputfile"
)

// FileName is the name of the config file at the workspace root.
const FileName = "vx.json"

// JSFileNames are the names of a config file vx evaluates (internal/jsconfig),
// at the root or in a project, in the order messages name them. They are
// here, with FileName, so that what needs only the names (vx watch, which
// plans again when one changes) does not import the evaluation.
var JSFileNames = []string{"vx.config.ts", "vx.config.mts", "vx.config.js", "vx.config.mjs"}

// Config is a parsed vx.json.
type Config struct {
	// Path is the file that was read (or looked for, when Load found none),
	// as given to Parse or built by Load.
	Path string
	// Tasks maps each key of "tasks", as written ("build" or "web#build"), to
	// its declarations. It is never nil after Load or Parse.
	Tasks map[string]Task
	// RemoteCache is the optional "remoteCache" object: the non-secret
	// settings of a shared REAPI cache. VX_REMOTE_CACHE and
	// VX_REMOTE_INSTANCE, and the flags, take precedence.
	RemoteCache RemoteCache
	// TurboRemote is turbo.json's "remoteCache", when the configuration
	// was read from a turbo.json; nil otherwise.
	TurboRemote *TurboRemote
	// Origins says, for each key of Tasks, where its entry was written.
	Origins map[string]Origin
	// Sources are what the configuration was made from, absolute: its
	// files (vx.json, the vx.config.* files) and, for a vx.config.ts,
	// everything its evaluation read (presets, .env, imported files, the
	// directories it listed). A change to any of them may change every
	// task: vx watch evaluates and plans again, and --affected and [ref]
	// filters select every project. Set by jsconfig.Load.
	Sources []Source
}

// Source is a file, or the names in a directory, that a configuration was
// made from.
type Source struct {
	Path string // absolute
	// Dir: Path is a directory whose listing was read; a name added to or
	// removed from it counts as a change, of the names starting with
	// Prefix ("" for all; whatever the case, to be safe).
	Dir    bool
	Prefix string
}

// Origin is where an entry of the configuration was written: a file, and
// the line and column of its key (both 0 when unknown, for an entry a
// vx.config.ts built rather than wrote out).
type Origin struct {
	Path      string
	Line, Col int
}

// RemoteCache is vx.json's "remoteCache".
type RemoteCache struct {
	URL      string // grpc://host:port or grpcs://host[:port]; http(s):// for a turbo server
	Instance string // the REAPI instance name
}

// Task is what vx.json declares for a task. A task without an entry has the
// zero Task: no dependencies and an environment of essentials only. Empty
// lists and maps are nil.
type Task struct {
	// DependsOn lists the tasks to finish first, as written: "^name" (task
	// name of every workspace dependency of the project), "name" (another task
	// of the same project) or "project#name" (that exact task).
	DependsOn []string
	// PassThrough lists variable names, or prefixes ending in "*", that the
	// task may read from vx's environment; see exec.ExpandPassThrough.
	PassThrough []string
	// Define maps variable names to literal values set for the task.
	Define map[string]string
	// Persistent marks a task that does not end by itself (a dev server, a
	// watcher): it starts whatever the concurrency limit and it is never
	// cached. A task that depends on it starts once it is ready (ReadyWhen).
	Persistent bool
	// ReadyWhen, for a persistent task, says when the tasks that depend on
	// it may start; nil: as soon as it has started.
	ReadyWhen *ReadyWhen
	// Outputs are the globs of the files the task produces, relative to its
	// project ("dist/**", "!dist/**/*.map"), without "." and empty elements
	// ("./dist/**" is read as "dist/**"); nil when absent or [], which
	// both mean the task produces no files the cache keeps.
	Outputs []string
	// Inputs are the globs of the files the task reads, relative to its
	// project, or to the workspace root when they start with "//". nil when
	// the key is absent (the cache's default set); non-nil, possibly
	// empty, when given.
	Inputs []string
	// NoCache is "cache": false: the task is never cached.
	NoCache bool
	// OutputLogs is how much of the task's output a run shows: one of
	// [OutputLogModes], "" for the default ("full"). vx run's --output-logs
	// wins over it.
	OutputLogs string
	// Trace is "strict" when every run traces the task (Linux) and fails it
	// for a read outside its key or a write outside its outputs, as vx run
	// --trace=strict does for all; "" otherwise.
	Trace string
	// Timeout, when set, is how long one attempt of the task may run: then
	// its process tree is stopped (SIGTERM, then killed after vx's grace)
	// and the attempt fails, "timed out after 10m". 0 means no limit. nil
	// when absent: vx run's --timeout applies then (the entry wins over the
	// flag). Never set on a persistent task.
	Timeout *time.Duration
	// Retries, when set, is how many more times a failed attempt of the task
	// runs (0 to 10); one that fails then passes is flaky. nil when absent:
	// vx run's --retries applies then (the entry wins over the flag). Never
	// set on a persistent task.
	Retries *int
}

// MaxRetries is the most "retries" (and --retries) may ask.
const MaxRetries = 10

// OutputLogModes are the values of "outputLogs" (and of vx run's
// --output-logs), as turbo defines them: full (everything), hash-only
// (only the line saying whether the task came from the cache, with its
// key), new-only (the output of tasks that ran; a cached task's line
// only), errors-only (the output of tasks that failed) and none.
var OutputLogModes = []string{"full", "hash-only", "new-only", "errors-only", "none"}

// Load reads <root>/vx.json. A missing file is an empty config (no tasks),
// not an error; a directory named vx.json, an unreadable file or a root that
// is not a directory is a [*diag.Error] naming the file without a position,
// and so is any problem in the file's content, with one.
func Load(root string) (*Config, error) {
	path := filepath.Join(root, FileName)
	data, err := inputfile.Read(path)
	if err == nil {
		return Parse(path, data)
	}
	// Systems disagree on the error for a root that is a file (Windows says
	// the path is not found): ask, so the answer is the same everywhere.
	if fi, serr := os.Stat(root); serr == nil && !fi.IsDir() {
		return nil, &diag.Error{Path: root, Msg: "the workspace root is not a directory"}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Path: path, Tasks: map[string]Task{}}, nil
	}
	// Likewise for a directory named vx.json.
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		return nil, &diag.Error{Path: path, Msg: "is a directory, not a file"}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is already in front; keep the cause only, still wrapped
	}
	return nil, &diag.Error{Path: path, Msg: "cannot read", Err: err}
}

// Parse parses the content of a vx.json file; path is used in error messages
// only. A file holding nothing but whitespace and comments is an empty
// config. Any error is a [*diag.Error] with the line and column of the
// problem, and a suggestion when one is obvious.
func Parse(path string, data []byte) (*Config, error) {
	root, serr := parseJSONC(data)
	if serr == nil {
		var c *Config
		c, serr = decode(root, false)
		if serr == nil {
			c.Path = path
			c.Origins = origins(path, data, root)
			return c, nil
		}
	}
	line, col := diag.Position(data, serr.off)
	return nil, &diag.Error{Path: path, Line: line, Col: col, Msg: serr.msg, Suggest: serr.hint}
}

// TaskFor returns the declarations of task in project: the "<project>#<task>"
// entry when there is one, else the generic "<task>" entry, else the zero
// Task. A project entry replaces the generic one entirely; fields it leaves
// out are empty, not inherited. The result shares nothing with c.
func (c *Config) TaskFor(project, task string) Task {
	if c == nil {
		return Task{}
	}
	t, ok := c.Tasks[project+"#"+task]
	if !ok {
		t = c.Tasks[task]
	}
	return Task{
		DependsOn:   slices.Clone(t.DependsOn),
		PassThrough: slices.Clone(t.PassThrough),
		Define:      maps.Clone(t.Define),
		Persistent:  t.Persistent,
		ReadyWhen:   cloneReady(t.ReadyWhen),
		Outputs:     slices.Clone(t.Outputs),
		Inputs:      cloneKeepEmpty(t.Inputs),
		NoCache:     t.NoCache,
		OutputLogs:  t.OutputLogs,
		Trace:       t.Trace,
		Timeout:     clonePtr(t.Timeout),
		Retries:     clonePtr(t.Retries),
	}
}

// clonePtr returns a new pointer to a copy of *p, or nil.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// FileName returns the name of the file the configuration is in, as
// messages name it: "vx.config.ts" for a workspace configured by one,
// "vx.json" for one with a vx.json or no configuration file at all.
func (c *Config) FileName() string {
	if c == nil || c.Path == "" {
		return FileName
	}
	return filepath.Base(c.Path)
}

// FileFor returns the name of the file that declares task of project (its
// entry's origin: a project's own vx.config.ts, say), or the configuration's
// file name when no entry says where it was written.
func (c *Config) FileFor(project, task string) string {
	if c != nil {
		for _, key := range []string{project + "#" + task, task} {
			if o, ok := c.Origins[key]; ok && o.Path != "" {
				if _, ok := c.Tasks[key]; ok {
					return filepath.Base(o.Path)
				}
			}
		}
	}
	return c.FileName()
}

// HasEntry reports whether vx.json has an entry for task in project: the
// project's own or the generic one.
func (c *Config) HasEntry(project, task string) bool {
	if c == nil {
		return false
	}
	if _, ok := c.Tasks[project+"#"+task]; ok {
		return true
	}
	_, ok := c.Tasks[task]
	return ok
}

// cloneKeepEmpty clones s keeping the difference between nil and empty.
func cloneKeepEmpty(s []string) []string {
	if s == nil {
		return nil
	}
	return append(make([]string, 0, len(s)), s...)
}
