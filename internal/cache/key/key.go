package key

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vxrun/vx/internal/cache/reapi"
)

// FormatVersion is the cache format version. It is the Action's salt, so
// changing it makes every old entry a miss.
const FormatVersion = "vx-cache-5"

// Lockfiles are the workspace-level lockfiles every key covers, relative
// to the root.
var Lockfiles = []string{"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"}

// TaskSpec is what the key of a task is made of.
type TaskSpec struct {
	ID     string // "<project>#<task>", for messages
	RelDir string // the project's directory relative to the root, slash-separated; "." for the root
	// Argv is the script (and the pre and post scripts): no machine path
	// (the shell's) is in it.
	Argv []string
	// Args are the arguments after --: they follow Argv in the key's
	// Command, each hashed with the secret of the variables' values
	// ([Computer.HideArg]), never in plain text (a --password=...).
	Args []string
	// Env holds the variables of the task's environment that its key
	// holds, with the values it holds (run decides which and how: the
	// declared ones, the essentials that change what tools do, vx's task
	// variables with paths made relative to the root); a variable the task
	// does not see is absent. Values enter the key hashed with a secret
	// ([EnvKey]).
	Env    []reapi.Property
	Inputs []string // vx.json "inputs"; nil = the default set
	// SourceDeps are the directories (from the root, slash-separated) of
	// the workspace dependencies that the task's "^name" dependsOn went
	// through because they have no such task: each one's files, as the
	// default inputs take them, and its package.json are inputs too,
	// whatever Inputs says, but for the task's own outputs.
	SourceDeps []string
	Outputs    []string // vx.json "outputs"
	Deps       []DepKey // the keys of the tasks it depends on
	Node       string   // the version the task's node really runs (nodeprog: behind a shim, the one its pins choose), "" when there is none
	// ConfigFile is the name of the file that declares the task
	// ("vx.config.ts", "vx.json"), for messages; not in the key.
	ConfigFile string
}

// DepKey is the key of a task this one depends on.
type DepKey struct {
	ID     string
	Action Digest
}

// Key is the cache key of a task: the digest of a REAPI Action, and the
// parts it was made of (for --dry-run=json and for storing).
type Key struct {
	Action    Digest
	Command   Digest
	InputRoot Digest
	Env       []reapi.Property // names with keyed hashes of the values ([EnvKey]), as in the Command
	Platform  []reapi.Property
	Inputs    []InputFile // the input files, by path from the root
	Deps      []DepKey

	spec            *TaskSpec
	action, command []byte
	// The input list (see manifest) in two parts: its header with the
	// dependencies' keys, and the files' lines, which a chain of tasks
	// shares with nothing and which is not copied again.
	manifestHead, manifestLines []byte
	snap                        *snapshot // the files the key was made from; nil when unknown
}

// manifest returns the key's input list, whose digest is InputRoot: a
// new slice, made when it is stored or read (vx why), not for every key.
func (k *Key) manifest() []byte {
	return append(append(make([]byte, 0, len(k.manifestHead)+len(k.manifestLines)), k.manifestHead...), k.manifestLines...)
}

// InputFile is one file of a key.
type InputFile struct {
	Path string `json:"path"` // slash-separated, relative to the root
	ID   string `json:"id"`   // git blob id of the content
	Exec bool   `json:"exec,omitempty"`
}

// canonicalGlobs returns globs in a form that keeps their meaning (what
// [matchGlobs] says of every path) and drops what of their order does not
// matter, for the key: two lists of the same form match the same paths, so
// an entry stored under one is restored exactly under the other; a reorder
// that changes what the list matches changes the form.
//
// The last glob that matches a path decides, so within a run of
// consecutive globs of the same sign (all "!..." or none) their order does
// not matter, nor does a repeat: each run is sorted, and each glob kept
// once in it. "!..." globs before the first positive one exclude from
// nothing: they are dropped. Runs stay in their order, with their signs
// between them. (Lists of another form can still match the same paths,
// "a" and "b" against "b" and "a" after "!c": they get two keys, which costs
// a run, never a wrong restore.)
func canonicalGlobs(globs []string) []string {
	out := make([]string, 0, len(globs))
	start := 0 // of the current run in out
	for _, g := range globs {
		neg := strings.HasPrefix(g, "!")
		if len(out) == 0 && neg {
			continue
		}
		if len(out) > 0 && strings.HasPrefix(out[len(out)-1], "!") != neg {
			start = len(out)
		}
		if !slices.Contains(out[start:], g) {
			out = append(out, g)
		}
	}
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && strings.HasPrefix(out[j], "!") == strings.HasPrefix(out[i], "!") {
			j++
		}
		slices.Sort(out[i:j])
		i = j
	}
	return out
}

// matchGlobs applies globs in order, the last one matching p deciding; a
// glob starting with "!" excludes. rel is p relative to the project ("" when
// p is outside it); root-relative globs ("//...") match p from the root.
func matchGlobs(globs []string, rootRel, rel string, inProject bool) bool {
	return compileGlobs(globs).match(rootRel, rel, inProject)
}

// globList is a list of globs made ready to match many paths: a path
// outside a glob's literal leading directories ("dist" of "dist/**") is not
// given to the pattern matcher at all.
type globList []glob

type glob struct {
	pattern   string // without its "!" and "//"
	neg, root bool   // "!...", "//..."
	base      string // the literal leading directories, "" when none
}

func compileGlobs(list []string) globList {
	gl := make(globList, 0, len(list))
	for _, s := range list {
		var g glob
		s, g.neg = strings.CutPrefix(s, "!")
		s, g.root = strings.CutPrefix(s, "//")
		g.pattern = s
		if base, _ := doublestar.SplitPattern(s); base != "." && !strings.Contains(base, "\\") {
			g.base = base
		}
		gl = append(gl, g)
	}
	return gl
}

// match is [matchGlobs] for the compiled list.
func (gl globList) match(rootRel, rel string, inProject bool) bool {
	in := false
	for i := range gl {
		g := &gl[i]
		p := rel
		if g.root {
			p = rootRel
		} else if !inProject {
			continue
		}
		if in != g.neg {
			continue // this glob cannot change the answer
		}
		if g.base != "" && !(strings.HasPrefix(p, g.base) && (len(p) == len(g.base) || p[len(g.base)] == '/')) {
			continue
		}
		if ok, _ := doublestar.Match(g.pattern, p); ok {
			in = !g.neg
		}
	}
	return in
}

// projectRel returns p (root-relative) relative to the project dir.
func projectRel(dir, p string) (string, bool) {
	if dir == "." {
		return p, true
	}
	if len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir) {
		return p[len(dir)+1:], true
	}
	return "", false
}

// inputFiles returns t's input files in snap, sorted by path, each once.
// extra states a file the snapshot lacks (a package.json or lockfile git
// ignores); nil means none. yours says which files that t's outputs match
// are the user's (nil: fileState.yours), which are inputs too.
func inputFiles(snap *snapshot, t *TaskSpec, extra func(p string) (fileState, bool), yours func(p string, st fileState) bool) []InputFile {
	if yours == nil {
		yours = func(_ string, st fileState) bool { return st.yours() }
	}
	outputs, inputs := compileGlobs(t.Outputs), compileGlobs(t.Inputs)
	isOutput := func(p, rel string, inProject bool) bool {
		return len(outputs) > 0 && inProject && outputs.match(p, rel, true)
	}
	i, j := snap.rangeOf(t.RelDir)
	n := j - i + len(Lockfiles) + 1 + len(t.SourceDeps)
	for _, d := range t.SourceDeps {
		di, dj := snap.rangeOf(d)
		n += dj - di
	}
	out := make([]InputFile, 0, n)
	add := func(k int) {
		out = append(out, InputFile{Path: snap.paths[k], ID: snap.states[k].id, Exec: snap.states[k].exec})
	}
	for k := i; k < j; k++ {
		p := snap.paths[k]
		rel, in := projectRel(t.RelDir, p)
		if isOutput(p, rel, in) {
			// Yours, not the task's: an input, whatever the inputs say.
			if yours(p, snap.states[k]) {
				add(k)
			}
			continue
		}
		if t.Inputs != nil && !inputs.match(p, rel, true) {
			continue
		}
		add(k)
	}
	for _, base := range rootGlobBases(t.Inputs) {
		bi, bj := snap.rangeOf(base)
		for k := bi; k < bj; k++ {
			p := snap.paths[k]
			rel, in := projectRel(t.RelDir, p)
			if !in && inputs.match(p, rel, false) {
				add(k)
			}
		}
	}
	manifests := append([]string{path.Join(t.RelDir, "package.json")}, Lockfiles...)
	for _, d := range t.SourceDeps {
		// Every file of the dependency, but the task's outputs (a
		// dependency may hold the project, or the project it).
		di, dj := snap.rangeOf(d)
		for k := di; k < dj; k++ {
			p := snap.paths[k]
			if rel, in := projectRel(t.RelDir, p); !isOutput(p, rel, in) {
				add(k)
			}
		}
		manifests = append(manifests, path.Join(d, "package.json"))
	}
	// package.json and the lockfiles, always: most often package.json is
	// there already and the lockfiles go in front of or among the rest;
	// each is put in its place rather than sorting the whole list again.
	// The files of source dependencies may repeat a root glob's: sorted
	// and compacted below.
	sorted := len(t.SourceDeps) == 0 && sort.SliceIsSorted(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	for _, p := range manifests {
		k := sort.Search(len(out), func(k int) bool { return out[k].Path >= p })
		if sorted && k < len(out) && out[k].Path == p {
			continue
		}
		st, ok := snap.get(p)
		if !ok && extra != nil {
			st, ok = extra(p)
		}
		if !ok {
			continue
		}
		f := InputFile{Path: p, ID: st.id, Exec: st.exec}
		if !sorted {
			out = append(out, f)
			continue
		}
		out = append(out, InputFile{})
		copy(out[k+1:], out[k:])
		out[k] = f
	}
	if !sorted {
		slices.SortFunc(out, func(a, b InputFile) int { return strings.Compare(a.Path, b.Path) })
		w := 0
		for k, f := range out {
			if k == 0 || f.Path != out[w-1].Path {
				out[w] = f
				w++
			}
		}
		out = out[:w]
	}
	return out
}

// rootGlobBases returns the directories (from the root) under which the
// root-relative globs of list can match: "." for a glob like "//**/x".
func rootGlobBases(list []string) []string {
	var bases []string
	for _, g := range list {
		if !strings.HasPrefix(g, "//") {
			continue
		}
		base, rest := doublestar.SplitPattern(g[2:])
		if !strings.ContainsAny(rest, "*?[{\\") {
			base = g[2:] // a literal path: that file (or directory)
		}
		if base == "" {
			base = "."
		}
		bases = append(bases, base)
	}
	return bases
}

// scanDirs returns the root-relative paths whose files can be inputs of t:
// for rescanning after it ran.
func scanDirs(t *TaskSpec) []string {
	dirs := append([]string{t.RelDir}, t.SourceDeps...)
	if t.RelDir != "." {
		dirs = append(dirs, rootGlobBases(t.Inputs)...)
		dirs = append(dirs, Lockfiles...)
	}
	for _, d := range dirs {
		if d == "." {
			return nil // everything
		}
	}
	return dirs
}

// makeKey builds t's key from the files of snap; platform holds the
// platform properties (OS, architecture), ek hashes the variables' values
// (nil: [PublicEnvKey], for tests).
func makeKey(snap *snapshot, t *TaskSpec, platform []reapi.Property, ek *EnvKey, extra func(p string) (fileState, bool)) *Key {
	files := inputFiles(snap, t, extra, nil)
	return keyOf(t, files, fileLines(files), platform, ek)
}

// fileLines returns the input list's lines for files: the bulk of it, which
// does not depend on the dependencies' keys.
func fileLines(files []InputFile) []byte {
	m := make([]byte, 0, len(files)*96)
	for _, f := range files {
		m = appendFileLine(m, f)
	}
	return m
}

// appendFileLine appends f's line of the input list.
func appendFileLine(m []byte, f InputFile) []byte {
	m = append(m, "file "...)
	m = append(m, f.ID...)
	if f.Exec {
		m = append(m, " x "...)
	} else {
		m = append(m, " - "...)
	}
	m = appendQuoted(m, f.Path)
	return append(m, '\n')
}

// keyOf builds t's key from its input files and their lines (fileLines);
// ek hashes the variables' values (nil: [PublicEnvKey], for tests) and is
// named among the platform properties.
func keyOf(t *TaskSpec, files []InputFile, lines []byte, platform []reapi.Property, ek *EnvKey) *Key {
	if ek == nil {
		ek = PublicEnvKey()
	}
	k := &Key{spec: t, Deps: append([]DepKey(nil), t.Deps...)}
	sort.Slice(k.Deps, func(i, j int) bool { return k.Deps[i].ID < k.Deps[j].ID })

	k.Inputs = files
	m := make([]byte, 0, 64+len(k.Deps)*96)
	m = append(m, "vx inputs 1\n"...)
	for _, d := range k.Deps {
		m = append(m, "dep "...)
		m = append(m, d.Action.Hash...)
		m = append(m, ' ')
		m = strconv.AppendQuote(m, d.ID)
		m = append(m, '\n')
	}
	k.manifestHead, k.manifestLines = m, lines
	h := sha256.New()
	h.Write(m)
	h.Write(lines)
	k.InputRoot = Digest{Hash: hex.EncodeToString(h.Sum(nil)), Size: int64(len(m) + len(lines))} // DigestOf(k.manifest())

	for _, e := range t.Env {
		k.Env = append(k.Env, reapi.Property{Name: e.Name, Value: ek.hash(e.Name, e.Value)})
	}
	sort.Slice(k.Env, func(i, j int) bool { return k.Env[i].Name < k.Env[j].Name })
	args := t.Argv
	if len(t.Args) > 0 {
		args = append(append(make([]string, 0, len(t.Argv)+len(t.Args)), t.Argv...), hideArgs(ek, t.Args)...)
	}
	cmd := &reapi.Command{Arguments: args, Environment: k.Env, WorkingDirectory: t.RelDir, OutputPaths: canonicalGlobs(t.Outputs)}
	if t.RelDir == "." {
		cmd.WorkingDirectory = ""
	}
	k.command = cmd.Marshal()
	k.Command = reapi.DigestOf(k.command)

	k.Platform = append([]reapi.Property(nil), platform...)
	node := t.Node
	if node == "" {
		node = "none"
	}
	k.Platform = append(k.Platform, reapi.Property{Name: "node-version", Value: node}, reapi.Property{Name: EnvKeyProperty, Value: ek.Name})
	sort.Slice(k.Platform, func(i, j int) bool { return k.Platform[i].Name < k.Platform[j].Name })
	a := &reapi.Action{CommandDigest: k.Command, InputRootDigest: k.InputRoot, Salt: []byte(FormatVersion), Platform: k.Platform}
	k.action = a.Marshal()
	k.Action = reapi.DigestOf(k.action)
	return k
}

// appendQuoted appends p as strconv.Quote writes it, quickly for the usual
// path of printable ASCII.
func appendQuoted(b []byte, p string) []byte {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return strconv.AppendQuote(b, p)
		}
	}
	b = append(b, '"')
	b = append(b, p...)
	return append(b, '"')
}
