package run

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/quote"
)

// TraceMode says whether a run traces its tasks (vx run --trace).
type TraceMode int

const (
	TraceOff    TraceMode = iota
	TraceReport           // report what a task read outside its key and wrote outside its outputs
	TraceStrict           // and fail the task for it: nothing is stored
)

// Tracing is how a run traces its cached tasks: each one's whole process
// tree is observed (exec.Spec.TraceShim) and what it did with files is
// compared with its key and its outputs.
type Tracing struct {
	Mode TraceMode
	Shim string // vx's own executable: the trace shim where exec's own cannot run
	Root string // the workspace's root, absolute
	// Skip are absolute directories whose files are never reported: the
	// store, the tasks' temporary directory, the toolchains on their PATH.
	// The system's directories and node_modules are always skipped.
	Skip []string
}

// systemDirs are the directories outside a workspace whose files a task's
// key never holds and a trace never reports: the system and its
// toolchain, the kernel's views, temporary files.
var systemDirs = []string{"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/dev",
	"/sys", "/run", "/var", "/tmp", "/opt", "/nix", "/snap"}

// traceFindings is what a trace showed of a task: files (from the root,
// slash-separated) it read that its key does not cover, files outside the
// workspace it read (beyond the skipped directories), files it wrote that
// are not its outputs, outputs it read before writing them, and what the
// trace could not follow.
type traceFindings struct {
	Reads, Outside, Writes, Early, Notes []string
}

// failing reports whether strict tracing fails the task for f: a read its
// key does not cover, a write outside its outputs, or an output read
// before it was written (a hit would restore what the next run reads).
func (f traceFindings) failing() bool {
	return len(f.Reads)+len(f.Writes)+len(f.Early) > 0
}

// findTrace compares tr, the trace of n, with the files of n's key
// (covered, by path from the root) and its outputs. isFile says whether an
// absolute path is a regular file now: only files count, not directories
// (listed) or paths that were probed and do not exist.
func findTrace(tr *exec.Trace, n *Node, t *Tracing, covered map[string]bool, isFile func(string) bool) traceFindings {
	var f traceFindings
	own := cache.OutputsMatcher(n.Config.Outputs, n.Project.RelDir)
	var deps []func(string) bool
	for _, d := range transitiveDeps(n) {
		if len(d.Config.Outputs) > 0 {
			deps = append(deps, cache.OutputsMatcher(d.Config.Outputs, d.Project.RelDir))
		}
	}
	byDep := func(p string) bool {
		for _, m := range deps {
			if m(p) {
				return true
			}
		}
		return false
	}
	// A skipped directory counts inside the workspace only when it is
	// itself inside (the store, a TMPDIR there): a toolchain's directory
	// may hold the whole workspace (/tmp, the home directory's parent).
	var skipInside []string
	for _, d := range t.Skip {
		if _, in := relTo(t.Root, d); in {
			skipInside = append(skipInside, d)
		}
	}
	for _, abs := range tr.Paths(exec.Read | exec.Exec | exec.Write) {
		a := tr.Files[abs]
		rel, inside := relTo(t.Root, abs)
		if !inside {
			if a&(exec.Read|exec.Exec) != 0 && !under(abs, systemDirs) && !under(abs, t.Skip) && isFile(abs) {
				f.Outside = append(f.Outside, abs)
			}
			continue
		}
		if skippedInWorkspace(rel) || under(abs, skipInside) || !isFile(abs) {
			continue
		}
		isOut := own(rel)
		if a&exec.ReadFirst != 0 && isOut {
			f.Early = append(f.Early, rel)
		}
		if a&exec.Write != 0 && !isOut {
			f.Writes = append(f.Writes, rel)
		}
		if a&(exec.Read|exec.Exec) != 0 && a&exec.ReadFirst != 0 && !isOut && !covered[rel] && !byDep(rel) {
			f.Reads = append(f.Reads, rel)
		}
	}
	f.Notes = tr.Notes
	return f
}

// transitiveDeps returns the tasks n depends on, directly or not.
func transitiveDeps(n *Node) []*Node {
	seen := map[*Node]bool{}
	var out []*Node
	var walk func(*Node)
	walk = func(m *Node) {
		for _, d := range m.Deps {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
				walk(d)
			}
		}
	}
	walk(n)
	return out
}

// relTo returns abs relative to root, slash-separated, and whether it is
// inside root.
func relTo(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// under reports whether abs is one of dirs or inside one.
func under(abs string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && (abs == d || strings.HasPrefix(abs, strings.TrimSuffix(d, "/")+"/")) {
			return true
		}
	}
	return false
}

// skippedInWorkspace: what the lockfile keys (node_modules), git's own
// files, and vx's.
func skippedInWorkspace(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if el == "node_modules" || el == ".git" {
			return true
		}
	}
	return false
}

// inputLine is the "inputs" entry of n that would cover rel: relative to
// the project when it is inside it, else from the root ("//").
func inputLine(n *Node, rel string) string {
	if n.Project.RelDir == "." {
		return rel
	}
	if r, ok := strings.CutPrefix(rel, n.Project.RelDir+"/"); ok {
		return r
	}
	return "//" + rel
}

// maxListed is how many paths of one kind a report lists.
const maxListed = 20

// writeTraceReport writes what f says of n to w, one finding a line (and
// nothing when there is nothing to say); strict says the task fails for
// it.
func writeTraceReport(w io.Writer, n *Node, f traceFindings, strict bool) {
	list := func(paths []string, line func(string) string) {
		for i, p := range paths {
			if i == maxListed {
				fmt.Fprintf(w, "    ... and %d more\n", len(paths)-maxListed)
				break
			}
			fmt.Fprintf(w, "    %s\n", line(p))
		}
	}
	id := quote.Name(n.ID)
	if len(f.Reads) > 0 {
		fmt.Fprintf(w, "vx: %s: trace: read %s its key does not cover (a change to them would be a wrong hit):\n", id, files(len(f.Reads)))
		list(f.Reads, func(p string) string {
			return fmt.Sprintf("%s  (inputs: %s)", quote.Q(p), quote.Q(inputLine(n, p)))
		})
	}
	if len(f.Early) > 0 {
		fmt.Fprintf(w, "vx: %s: trace: read %s of its outputs before writing them (a hit restores what the next run reads; key them as inputs or delete them first):\n", id, files(len(f.Early)))
		list(f.Early, quote.Q)
	}
	if len(f.Writes) > 0 {
		fmt.Fprintf(w, "vx: %s: trace: wrote %s that its outputs do not match (a hit would not restore them):\n", id, files(len(f.Writes)))
		list(f.Writes, quote.Q)
	}
	if len(f.Outside) > 0 {
		fmt.Fprintf(w, "vx: %s: trace: read %s outside the workspace, which no key holds:\n", id, files(len(f.Outside)))
		list(f.Outside, quote.Q)
	}
	for _, note := range f.Notes {
		fmt.Fprintf(w, "vx: %s: trace: %s\n", id, note)
	}
	if strict && f.failing() {
		fmt.Fprintf(w, "vx: %s: trace=strict: failed for the files above; nothing is stored\n", id)
	}
}

func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// isRegular reports whether abs is a regular file (a link is followed).
func isRegular(abs string) bool {
	fi, err := os.Stat(abs)
	return err == nil && fi.Mode().IsRegular()
}

// homeCaches are the directories under the home directory where tools and
// package managers keep caches and content stores: what is read there is
// keyed by the lockfile or is a cache of the tool's own.
var homeCaches = []string{".cache", ".npm", ".pnpm-store", ".local/share/pnpm", ".yarn", ".bun", "Library/Caches", "Library/pnpm"}

// traceSkips returns the directories outside the workspace whose files a
// trace does not report for a task with env: its temporary directory and
// each toolchain on its PATH (the parent of a bin directory outside the
// root: node's own lib/node_modules), but never "/" or the home directory
// as a whole.
func traceSkips(root string, env []string, extra ...string) []string {
	out := slices.Clone(extra)
	get := func(name string) string {
		v, _ := exec.LookupEnv(env, name, "")
		return v
	}
	if d := get("TMPDIR"); d != "" {
		out = append(out, d)
	}
	home := get("HOME")
	for _, d := range filepath.SplitList(get("PATH")) {
		if !filepath.IsAbs(d) {
			continue
		}
		if _, inside := relTo(root, d); inside || d == root {
			continue
		}
		p := filepath.Dir(d)
		if p == "/" || p == home || p == filepath.Dir(p) {
			out = append(out, d)
			continue
		}
		out = append(out, p)
	}
	if home != "" {
		for _, d := range homeCaches {
			out = append(out, filepath.Join(home, filepath.FromSlash(d)))
		}
	}
	for _, name := range []string{"PNPM_HOME", "npm_config_cache", "npm_config_store_dir", "YARN_CACHE_FOLDER", "BUN_INSTALL"} {
		if d := get(name); filepath.IsAbs(d) {
			out = append(out, d)
		}
	}
	return out
}

// traced reports whether n runs traced: a cached task of a traced run, or
// one whose entry says "trace": "strict".
func (s *scheduler) traced(n *Node) bool {
	t := s.opts.Trace
	return t != nil && (t.Mode != TraceOff || n.Config.Trace == "strict") && s.cacheOf(n) != nil && n.Cacheable
}

// traceStrict reports whether a finding fails n: --trace=strict, or its
// entry's "trace": "strict".
func traceStrict(t *Tracing, n *Node) bool {
	return t.Mode == TraceStrict || n.Config.Trace == "strict"
}

// WantsTrace reports whether a run of g traces anything with mode: --trace,
// or a task whose entry says "trace": "strict".
func WantsTrace(mode TraceMode, g *Graph) bool {
	if mode != TraceOff {
		return true
	}
	for _, n := range g.Nodes {
		if n.Config.Trace == "strict" {
			return true
		}
	}
	return false
}

// checkTrace compares the trace of n, which ran and ended with res, with
// its key (from tc, the cache n ran with) and outputs and reports it on w,
// where n's output goes (vx's stderr when nil); in strict mode a finding
// fails a task that exited 0, so that it is not stored.
func (s *scheduler) checkTrace(tc *TaskCache, n *Node, res *exec.Result, env []string, w io.Writer) {
	if w == nil {
		w = s.stderr
	}
	t := *s.opts.Trace
	t.Skip = traceSkips(t.Root, env, t.Skip...)
	covered := map[string]bool{}
	k, err := tc.Key(n)
	if err == nil {
		for _, f := range k.Inputs {
			covered[f.Path] = true
		}
	}
	f := findTrace(res.Trace, n, &t, covered, isRegular)
	if k != nil {
		// Kept with the entry the task is about to store, so that a later
		// hit on it sees a change to what the key does not hold.
		tc.C.RecordTraced(k, tc.C.FileIDs(f.Reads))
	}
	strict := traceStrict(&t, n)
	writeTraceReport(w, n, f, strict)
	if strict && f.failing() && res.ExitCode == 0 {
		res.ExitCode = 1
	}
	s.nTraced.Add(1)
	if len(f.Reads)+len(f.Early) > 0 {
		s.tracedReads.Add(1)
	}
	if len(f.Writes) > 0 {
		s.tracedWrites.Add(1)
	}
}

// traceSummary is the run's line about what tracing found, which also says
// why the environment needs no trace.
func traceSummary(traced, reads, writes int) string {
	const env = "the environment needs no trace: a task sees only what its key holds"
	tasks := "1 task"
	if traced != 1 {
		tasks = fmt.Sprintf("%d tasks", traced)
	}
	if reads == 0 && writes == 0 {
		return fmt.Sprintf("vx: trace: %s traced: every file read is in its key, every file written among its outputs; %s", tasks, env)
	}
	return fmt.Sprintf("vx: trace: %s traced: %d read files their key does not cover, %d wrote outside their outputs (above); %s", tasks, reads, writes, env)
}
