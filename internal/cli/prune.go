package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	osexec "os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/inputfile"
	"github.com/vxrun/vx/internal/lockfile"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/suggest"
	"github.com/vxrun/vx/workspace"
)

var pruneCmd = &command{
	name:    "prune",
	summary: "write a copy of the workspace cut to some projects, with a pruned lockfile (for Docker images)",
	usage:   "vx prune <project>... [--docker] [--out-dir DIR]",
	flags: []flagSpec{
		{name: "docker", kind: boolFlag, usage: "lay it out for a Dockerfile: DIR/json (manifests and install files: the install layer), DIR/full (everything), DIR/<lockfile>"},
		{name: "out-dir", kind: stringFlag, arg: "DIR", usage: "where to write, from the current directory (default out); must be absent or empty"},
	},
	run: runPrune,
}

// installFiles are the root files a package manager's install reads, copied
// when present (the yarn release, plugins and patch files they name are
// found from them).
var installFiles = []string{".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "bunfig.toml", ".nvmrc", ".node-version"}

// pruneFile is one file of the pruned tree: its path relative to the root
// (slash-separated) and either its new content or the file to copy.
type pruneFile struct {
	rel     string
	data    []byte // nil: copy the file at rel
	install bool   // a manifest or install file: in DIR/json too with --docker
}

func runPrune(p *Process, a *parsed) (int, error) {
	if len(a.pos) == 0 {
		return ExitUsage, usagef("name the projects to keep: vx prune <project>... (vx ls lists them)")
	}
	outDir := a.str("out-dir")
	if outDir == "" {
		outDir = "out"
	}
	if !filepath.IsAbs(outDir) {
		outDir = filepath.Join(p.Dir, outDir)
	}
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return ExitUsage, err
	}
	var named []*workspace.Project
	for _, name := range a.pos {
		pr, err := ws.Lookup(name)
		if err != nil {
			return ExitUsage, err
		}
		if pr == nil {
			names := make([]string, len(ws.Projects))
			for i, q := range ws.Projects {
				names[i] = q.Name
			}
			hint := "vx ls lists the projects"
			if best, ok := suggest.Closest(name, names); ok {
				hint = "did you mean " + quote.Q(best) + "?"
			}
			return ExitUsage, usagef("prune: no project named %s; %s", quote.Q(name), hint)
		}
		named = append(named, pr)
	}
	if err := checkOutDir(outDir, relOrAbs(p.Dir, outDir)); err != nil {
		return ExitUsage, err
	}

	// The projects kept: those named, their workspace dependencies, the root.
	keep := map[string]*workspace.Project{}
	var stack []*workspace.Project
	stack = append(stack, named...)
	for len(stack) > 0 {
		pr := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if keep[pr.RelDir] != nil {
			continue
		}
		keep[pr.RelDir] = pr
		stack = append(stack, pr.Deps...)
	}
	for _, pr := range ws.Projects {
		if pr.IsRoot {
			keep["."] = pr
		}
	}

	lockName, err := findLockfile(ws.Root)
	if err != nil {
		return ExitUsage, err
	}
	lockData, err := inputfile.Read(filepath.Join(ws.Root, lockName))
	if err != nil {
		return ExitUsage, fmt.Errorf("prune: %w", err)
	}
	projects, err := lockfileProjects(ws)
	if err != nil {
		return ExitUsage, err
	}
	lf, err := lockfile.ParseWorkspace(lockName, lockData, projects)
	if err != nil {
		return ExitUsage, pruneLockErr(lockName, err)
	}
	// The lockfile may link projects the manifests' names did not (an
	// alias to a workspace project): keep those too.
	byDir := map[string]*workspace.Project{}
	for _, pr := range ws.Projects {
		byDir[pr.RelDir] = pr
	}
	for _, d := range lf.WorkspaceClosure(sortedKeys(keep)...) {
		if pr := byDir[d]; pr != nil && keep[d] == nil {
			keep[d] = pr
		}
	}
	dirs := sortedKeys(keep)
	pruned, err := lockfile.Prune(lockName, lockData, projects, dirs)
	if err != nil {
		return ExitUsage, pruneLockErr(lockName, err)
	}

	res, err := loadConfig(p, a, ws, false)
	if err != nil {
		return ExitUsage, err
	}

	files, err := pruneFiles(p, ws, keep, res.Config, res.Files, lockName, pruned, outDir)
	if err != nil {
		return ExitUsage, err
	}
	docker := a.set["docker"]
	w := &treeWriter{out: outDir}
	if err := os.MkdirAll(outDir, 0o777); err != nil {
		return ExitUsage, fmt.Errorf("prune: %w", err)
	}
	for _, f := range files {
		var dests []string
		switch {
		case !docker:
			dests = []string{f.rel}
		case f.rel == lockName:
			dests = []string{lockName, "json/" + lockName}
		case f.install:
			dests = []string{"json/" + f.rel, "full/" + f.rel}
			if f.rel == "pnpm-workspace.yaml" {
				dests = append(dests, f.rel)
			}
		default:
			dests = []string{"full/" + f.rel}
		}
		for _, d := range dests {
			if err := w.write(d, f, ws.Root); err != nil {
				return ExitUsage, err
			}
		}
	}
	kept := make([]string, 0, len(named))
	for _, d := range dirs {
		if d != "." {
			kept = append(kept, quote.Name(keep[d].Name))
		}
	}
	if len(kept) == 0 {
		kept = append(kept, "the root alone")
	}
	fmt.Fprintf(p.Stdout, "pruned to %s: %d files in %s (%s: %d of %d packages)\n", strings.Join(kept, ", "), w.n,
		quote.Name(relOrAbs(p.Dir, outDir)), lockName, len(lf.Closure(dirs...)), len(lf.Entries))
	return ExitOK, nil
}

// relOrAbs shows path relative to dir when it is below it.
func relOrAbs(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return p
}

func pruneLockErr(name string, err error) error {
	if errors.Is(err, lockfile.ErrUnsupported) {
		return fmt.Errorf("prune: %w; vx prune needs a lockfile it can read and cut (docs/prune.md lists them)", err)
	}
	return fmt.Errorf("prune: %w", err)
}

// checkOutDir refuses an output directory that exists and is not empty, or
// is not a directory.
func checkOutDir(dir, show string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if !fi.IsDir() {
		return usagef("prune: %s exists and is not a directory; choose another with --out-dir", quote.Q(show))
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if len(ents) > 0 {
		return usagef("prune: %s is not empty; remove it or choose another with --out-dir", quote.Q(show))
	}
	return nil
}

// findLockfile returns the name of the root's lockfile.
func findLockfile(root string) (string, error) {
	for _, name := range lockfile.Names {
		fi, err := os.Lstat(filepath.Join(root, name))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if name == "bun.lockb" {
			return "", usagef("prune: bun.lockb is binary and vx cannot cut it; write the text lockfile with bun install --save-text-lockfile (bun.lock), then remove bun.lockb")
		}
		return name, nil
	}
	return "", usagef("prune: no lockfile at the workspace root %s; run the package manager's install first", quote.Q(root))
}

// lockfileProjects reads every project's package.json for the lockfile
// readers that need the manifests (yarn classic).
func lockfileProjects(ws *workspace.Workspace) ([]lockfile.Project, error) {
	var out []lockfile.Project
	for _, pr := range ws.Projects {
		data, err := inputfile.Read(pr.Manifest)
		if err != nil {
			return nil, fmt.Errorf("prune: %w", err)
		}
		var m struct {
			Dependencies, DevDependencies, OptionalDependencies map[string]any
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("prune: %s: %v", quote.Name(pr.Manifest), err)
		}
		lp := lockfile.Project{Dir: pr.RelDir, Version: pr.Version, Deps: map[string]string{}}
		if !pr.Unnamed {
			lp.Name = pr.Name
		}
		for _, deps := range []map[string]any{m.Dependencies, m.OptionalDependencies, m.DevDependencies} {
			for k, v := range deps {
				if s, ok := v.(string); ok {
					lp.Deps[k] = s
				}
			}
		}
		out = append(out, lp)
	}
	return out, nil
}

// pruneFiles lists the files of the pruned tree.
func pruneFiles(p *Process, ws *workspace.Workspace, keep map[string]*workspace.Project, cfg *config.Config, cfgFiles []string,
	lockName string, pruned []byte, outDir string) ([]pruneFile, error) {
	root := ws.Root
	var files []pruneFile
	seen := map[string]bool{}
	add := func(f pruneFile) {
		if !seen[f.rel] {
			seen[f.rel] = true
			files = append(files, f)
		}
	}
	dirs := sortedKeys(keep)
	add(pruneFile{rel: lockName, data: pruned, install: true})
	// The root manifest and pnpm-workspace.yaml, their patterns cut to the
	// projects kept.
	if keep["."] != nil {
		data, err := inputfile.Read(filepath.Join(root, "package.json"))
		if err != nil {
			return nil, fmt.Errorf("prune: %w", err)
		}
		cut, err := cutManifestWorkspaces(data, dirs)
		if err != nil {
			return nil, fmt.Errorf("prune: %s: %w", quote.Name(filepath.Join(root, "package.json")), err)
		}
		add(pruneFile{rel: "package.json", data: cut, install: true})
	}
	if data, err := readIfRegular(filepath.Join(root, "pnpm-workspace.yaml")); err != nil {
		return nil, err
	} else if data != nil {
		add(pruneFile{rel: "pnpm-workspace.yaml", data: cutPnpmWorkspace(data, dirs), install: true})
	}
	for _, d := range dirs {
		if d != "." {
			add(pruneFile{rel: d + "/package.json", install: true})
		}
	}
	// What an install reads.
	for _, name := range installFiles {
		if isRegular(filepath.Join(root, name)) {
			add(pruneFile{rel: name, install: true})
		}
	}
	if data, err := readIfRegular(filepath.Join(root, ".yarnrc.yml")); err != nil {
		return nil, err
	} else if data != nil {
		for _, rel := range yarnrcFiles(data) {
			if isRegular(filepath.Join(root, filepath.FromSlash(rel))) {
				add(pruneFile{rel: rel, install: true})
			}
		}
	}
	var refs bytes.Buffer
	refs.Write(pruned)
	for _, f := range files {
		refs.Write(f.data)
	}
	for _, rel := range patchRefs(refs.Bytes()) {
		if isRegular(filepath.Join(root, filepath.FromSlash(rel))) {
			add(pruneFile{rel: rel, install: true})
		}
	}
	// vx's own config: the root's and the kept projects' config files.
	// (What a vx.config.ts imports beyond its project is not followed.)
	for _, f := range cfgFiles {
		rel, err := filepath.Rel(root, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		if dir := path.Dir(rel); dir == "." || keep[dir] != nil {
			add(pruneFile{rel: rel})
		}
	}
	// The kept projects' sources.
	var projDirs []string
	for _, d := range dirs {
		if d != "." {
			projDirs = append(projDirs, d)
		}
	}
	srcs, err := sourceFiles(p, root, projDirs)
	if err != nil {
		return nil, err
	}
	outRel, outErr := filepath.Rel(root, outDir)
	outRel = filepath.ToSlash(outRel)
	for _, rel := range srcs {
		if outErr == nil && (rel == outRel || strings.HasPrefix(rel, outRel+"/")) {
			continue
		}
		if isOutput(rel, keep, cfg) {
			continue
		}
		add(pruneFile{rel: rel})
	}
	return files, nil
}

// isOutput reports whether rel (from the root) is in a kept project and
// matches the outputs of one of its tasks in the config.
func isOutput(rel string, keep map[string]*workspace.Project, cfg *config.Config) bool {
	if cfg == nil {
		return false
	}
	for dir, pr := range keep {
		if dir == "." || !strings.HasPrefix(rel, dir+"/") {
			continue
		}
		inProj := strings.TrimPrefix(rel, dir+"/")
		for key, t := range cfg.Tasks {
			if proj, _, ok := strings.Cut(key, "#"); ok && proj != pr.Name {
				continue
			}
			for _, g := range t.Outputs {
				if strings.HasPrefix(g, "!") {
					continue
				}
				if ok, _ := doublestar.Match(g, inProj); ok {
					return true
				}
			}
		}
	}
	return false
}

// sourceFiles lists the files under dirs (relative to root): with git, the
// tracked files and the untracked ones git does not ignore; without, every
// file. node_modules and .git never.
func sourceFiles(p *Process, root string, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	var list []string
	git, err := exec.LookPath("git", p.Environ)
	usedGit := false
	if err == nil {
		cmd := osexec.Command(git, append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--"}, dirs...)...)
		cmd.Dir, cmd.Env = root, append(slices.Clone(p.Environ), "GIT_OPTIONAL_LOCKS=0")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		switch {
		case err == nil:
			usedGit = true
			for _, f := range strings.Split(stdout.String(), "\x00") {
				if f != "" {
					list = append(list, f)
				}
			}
		case strings.Contains(stderr.String(), "not a git repository"):
		default:
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = err.Error()
			}
			return nil, fmt.Errorf("prune: git ls-files: %s", msg)
		}
	}
	if !usedGit {
		for _, d := range dirs {
			err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(d)), func(p string, e fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if e.IsDir() && (e.Name() == "node_modules" || e.Name() == ".git") {
					return filepath.SkipDir
				}
				if !e.IsDir() {
					rel, _ := filepath.Rel(root, p)
					list = append(list, filepath.ToSlash(rel))
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("prune: %w", err)
			}
		}
	}
	out := list[:0]
	for _, f := range list {
		if slices.Contains(strings.Split(f, "/"), "node_modules") || slices.Contains(strings.Split(f, "/"), ".git") {
			continue
		}
		out = append(out, f)
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// readIfRegular reads p when it is a regular file; nil, nil when absent.
func readIfRegular(p string) ([]byte, error) {
	if !isRegular(p) {
		return nil, nil
	}
	data, err := inputfile.Read(p)
	if err != nil {
		return nil, fmt.Errorf("prune: %w", err)
	}
	return data, nil
}

// yarnrcFiles returns the files a .yarnrc.yml names that an install needs:
// yarnPath (the yarn release) and the plugins' paths, when inside the root.
func yarnrcFiles(data []byte) []string {
	var rc struct {
		YarnPath string `yaml:"yarnPath"`
		Plugins  []any  `yaml:"plugins"`
	}
	if yaml.Unmarshal(data, &rc) != nil {
		return nil
	}
	var out []string
	addRel := func(p string) {
		p = path.Clean(filepath.ToSlash(p))
		if p != "." && !path.IsAbs(p) && !strings.HasPrefix(p, "../") && p != ".." {
			out = append(out, p)
		}
	}
	if rc.YarnPath != "" {
		addRel(rc.YarnPath)
	}
	for _, pl := range rc.Plugins {
		switch v := pl.(type) {
		case string:
			addRel(v)
		case map[string]any:
			if s, ok := v["path"].(string); ok {
				addRel(s)
			}
		}
	}
	return out
}

// patchRef is compiled on first use: nothing of vx prune's runs at start-up.
var patchRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z0-9_.@~+/%-]+\.patch\b`) })

// patchRefs returns the root-relative paths of the .patch files a text
// names (berry's "~/.yarn/patches/x.patch", pnpm's "patches/x.patch").
func patchRefs(text []byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range patchRef().FindAll(text, -1) {
		p := strings.TrimPrefix(string(m), "~/")
		p = path.Clean(p)
		if path.IsAbs(p) || strings.HasPrefix(p, "../") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// cutPatterns keeps the workspace patterns that match a kept directory
// (negations all stay); ok is false when every pattern stays.
func cutPatterns(patterns []string, dirs []string) ([]string, bool) {
	var out []string
	for _, pat := range patterns {
		if strings.HasPrefix(pat, "!") {
			out = append(out, pat)
			continue
		}
		clean := strings.TrimSuffix(strings.TrimPrefix(pat, "./"), "/")
		for _, d := range dirs {
			if ok, _ := doublestar.Match(clean, d); ok && d != "." {
				out = append(out, pat)
				break
			}
		}
	}
	return out, len(out) != len(patterns)
}

// cutManifestWorkspaces rewrites the root package.json's "workspaces"
// (the array, or the object's "packages") to the patterns that match a kept
// project; the file is unchanged, byte for byte, when all stay.
func cutManifestWorkspaces(data []byte, dirs []string) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	raw, ok := m["workspaces"]
	if !ok {
		return data, nil
	}
	var list []string
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		if json.Unmarshal(raw, &obj) != nil || json.Unmarshal(obj["packages"], &list) != nil {
			return data, nil
		}
	}
	cut, changed := cutPatterns(list, dirs)
	if !changed {
		return data, nil
	}
	if cut == nil {
		cut = []string{}
	}
	var newVal any = cut
	if obj != nil {
		o := map[string]any{}
		for k, v := range obj {
			o[k] = v
		}
		o["packages"] = cut
		newVal = o
	}
	return replaceMember(data, "workspaces", newVal)
}

// replaceMember returns the JSON object data with the top-level member key
// set to v, the members' order kept, indented as the file was.
func replaceMember(data []byte, key string, v any) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for n := 0; dec.More(); n++ {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if n > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if k == key {
			enc, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			b.Write(enc)
		} else {
			b.Write(raw)
		}
	}
	b.WriteByte('}')
	indent := "  "
	for _, ln := range strings.Split(string(data), "\n")[1:] {
		if t := strings.TrimLeft(ln, " \t"); t != ln && t != "" {
			indent = ln[:len(ln)-len(t)]
			break
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", indent); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// cutPnpmWorkspace drops the "packages" items of pnpm-workspace.yaml that
// match no kept project, line by line (every other line, comments and
// settings included, stays).
func cutPnpmWorkspace(data []byte, dirs []string) []byte {
	lines := strings.Split(string(data), "\n")
	var out []string
	in := false
	for _, ln := range lines {
		trim := strings.TrimSpace(ln)
		if ln != "" && ln[0] != ' ' && ln[0] != '-' && ln[0] != '#' {
			in = strings.HasPrefix(trim, "packages:")
		}
		if in && strings.HasPrefix(trim, "- ") {
			var item []string
			if yaml.Unmarshal([]byte(trim), &item) == nil && len(item) == 1 {
				if _, changed := cutPatterns(item, dirs); changed {
					continue
				}
			}
		}
		out = append(out, ln)
	}
	return []byte(strings.Join(out, "\n"))
}

// treeWriter writes the pruned tree under out, creating every file anew
// (O_EXCL: nothing already there, a link included, is written through).
type treeWriter struct {
	out string
	n   int
}

func (w *treeWriter) write(dest string, f pruneFile, root string) error {
	target := filepath.Join(w.out, filepath.FromSlash(dest))
	if err := os.MkdirAll(filepath.Dir(target), 0o777); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if f.data != nil {
		return w.create(target, bytes.NewReader(f.data), 0o666)
	}
	src := filepath.Join(root, filepath.FromSlash(f.rel))
	fi, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // listed by git, deleted since
	}
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		link, err := os.Readlink(src)
		if err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		if err := os.Symlink(link, target); err != nil {
			return fmt.Errorf("prune: %w", err)
		}
		w.n++
		return nil
	case !fi.Mode().IsRegular():
		return nil // no FIFOs, devices or sockets
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	defer in.Close()
	return w.create(target, in, fi.Mode().Perm())
}

func (w *treeWriter) create(target string, r io.Reader, perm fs.FileMode) error {
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm|0o600)
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return fmt.Errorf("prune: %w", err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	w.n++
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
