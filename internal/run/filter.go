package run

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/suggest"
	"github.com/vxrun/vx/workspace"
)

// This file selects the projects of a run: the default (the current project,
// or every project at the root), pnpm's --filter selector grammar, and
// --affected. docs/cli.md is the user's account of the same rules.

// A selector is one --filter value in pnpm's grammar:
//
//	[!] [...[^]] [name] [{dir}] [[ref]] [[^]...]    or    [!] ./path
//
// name is a glob on project names, {dir} a glob on project directories
// relative to Selection.Dir, [ref] the projects with files changed since a
// git ref; "name..." adds the dependencies, "...name" the dependents, "^"
// leaves the matched projects themselves out, "!" subtracts.
type selector struct {
	raw          string
	exclude      bool   // !sel
	dependencies bool   // sel...
	dependents   bool   // ...sel
	excludeSelf  bool   // the ^ of sel^... or ...^sel
	name         string // glob on names; "" = any
	dir          string // {dir} or the ./path form, as written; "" = none
	ref          string // [ref]; "" = none
}

// parseSelector reads a --filter value, as pnpm's parsePackageSelector
// does, except that forms pnpm silently reads otherwise are errors: "..."
// or "^" around a ./path (pnpm drops them; {./path}... is the form that
// keeps them) and text that fits no form.
func parseSelector(raw string) (selector, error) {
	s := selector{raw: raw}
	r := raw
	if strings.HasPrefix(r, "!") {
		s.exclude, r = true, r[1:]
	}
	if strings.HasSuffix(r, "...") {
		s.dependencies, r = true, r[:len(r)-3]
		if strings.HasSuffix(r, "^") {
			s.excludeSelf, r = true, r[:len(r)-1]
		}
	}
	if strings.HasPrefix(r, "...") {
		s.dependents, r = true, r[3:]
		if strings.HasPrefix(r, "^") {
			s.excludeSelf, r = true, r[1:]
		}
	}
	if isLocation(r) {
		if s.dependencies || s.dependents {
			pre := 0 // where r starts in raw
			if s.exclude {
				pre = 1
			}
			if s.dependents {
				pre += 3
				if strings.HasPrefix(raw[pre:], "^") {
					pre++
				}
			}
			hint := raw[:pre] + "{" + r + "}" + raw[pre+len(r):]
			return s, fmt.Errorf("--filter %q: pnpm ignores \"...\" and \"^\" around a ./path; write {%s} instead, e.g. --filter %q", raw, r, hint)
		}
		s.dir = r
		return s, nil
	}
	rest := r
	if i := strings.IndexAny(rest, "{["); i >= 0 {
		s.name, rest = rest[:i], rest[i:]
	} else {
		s.name, rest = rest, ""
	}
	if strings.HasPrefix(rest, "{") {
		end := strings.IndexByte(rest, '}')
		if end < 2 {
			return s, selectorError(raw, "a {dir} needs a directory and a closing }")
		}
		s.dir, rest = rest[1:end], rest[end+1:]
	}
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 2 {
			return s, selectorError(raw, "a [ref] needs a git ref and a closing ]")
		}
		s.ref, rest = rest[1:end], rest[end+1:]
		if strings.HasPrefix(s.ref, "-") {
			return s, selectorError(raw, "a git ref cannot start with \"-\"")
		}
	}
	switch {
	case rest != "":
		return s, selectorError(raw, fmt.Sprintf("%q is not understood after the name, {dir} and [ref] parts", rest))
	case strings.ContainsAny(s.name, "}]"):
		return s, selectorError(raw, "a name cannot hold } or ]")
	case strings.HasPrefix(s.name, "."):
		return s, selectorError(raw, "a name cannot start with \".\"; a directory is written ./dir or {dir}")
	case s.name == "" && s.dir == "" && s.ref == "":
		return s, selectorError(raw, "it names no project")
	case !utf8.ValidString(s.name):
		return s, selectorError(raw, "the name is not valid UTF-8")
	}
	return s, nil
}

func selectorError(raw, why string) error {
	return fmt.Errorf("--filter %q: %s; the forms are name, name..., ...name, name^..., ...^name, ./dir, {dir}, [git-ref], !selector (docs/cli.md)", raw, why)
}

// isLocation reports pnpm's path form: ".", "..", or a path starting with
// "./", "../", ".\" or "..\".
func isLocation(r string) bool {
	switch {
	case r == "." || r == "..":
		return true
	case strings.HasPrefix(r, "./") || strings.HasPrefix(r, `.\`):
		return true
	case strings.HasPrefix(r, "../") || strings.HasPrefix(r, `..\`):
		return true
	}
	return false
}

// selection is the outcome of selectProjects: the projects in workspace
// order and, for those chosen by a filter or --affected, why.
type selection struct {
	projects []*workspace.Project
	why      map[*workspace.Project]string
	// fromChanges is set when git changes decided the selection ([ref] or
	// --affected): selecting nothing, or nothing with the script, is then
	// a run with nothing to do rather than a mistake.
	fromChanges bool
	base        string // --affected: the base compared with, for messages
}

// selectProjects applies the defaults, the filters and --affected.
//
// Without filters: the current project when vx runs in one; at the root,
// every project but the root unless the root is the only one. Filters
// follow pnpm: the projects of the selectors without "!", or the default
// set when every selector has one, minus the projects of the "!"
// selectors. --affected keeps of that set the projects "...[base]" selects.
func selectProjects(ws *workspace.Workspace, sel Selection) (selection, error) {
	f := &filterer{ws: ws, sel: sel, why: map[*workspace.Project]string{}, changes: map[string]*changes{}}
	out := selection{why: f.why}
	var include, exclude []selector
	for _, raw := range sel.Filters {
		s, err := parseSelector(raw)
		if err != nil {
			return out, err
		}
		if s.ref != "" {
			out.fromChanges = true
		}
		if s.exclude {
			exclude = append(exclude, s)
		} else {
			include = append(include, s)
		}
	}
	var picked map[*workspace.Project]bool
	if len(include) == 0 {
		picked = map[*workspace.Project]bool{}
		for _, p := range defaultProjects(ws, len(sel.Filters) > 0) {
			picked[p] = true
		}
	} else {
		var err error
		if picked, err = f.apply(include); err != nil {
			return out, err
		}
	}
	if len(exclude) > 0 {
		drop, err := f.apply(exclude)
		if err != nil {
			return out, err
		}
		for p := range drop {
			delete(picked, p)
		}
	}
	if sel.Affected {
		out.fromChanges = true
		base, err := f.affectedBase()
		if err != nil {
			return out, err
		}
		out.base = base.show
		// The affected projects' reasons replace the filters'.
		f.why = map[*workspace.Project]string{}
		aff, err := f.apply([]selector{{raw: "...[" + base.ref + "]", dependents: true, ref: base.ref}})
		if err != nil {
			return out, err
		}
		for p := range picked {
			if !aff[p] {
				delete(picked, p)
			}
		}
		out.why = f.why
	}
	for _, p := range ws.Projects {
		if picked[p] {
			out.projects = append(out.projects, p)
		}
	}
	return out, nil
}

// defaultProjects is what a run selects without filters: the current
// project, or at the root every project but the root (the root alone when
// it is the only project). Filters that only exclude start from the same
// set, except that in a project they start from the whole workspace, as
// pnpm's do.
func defaultProjects(ws *workspace.Workspace, filtered bool) []*workspace.Project {
	if !filtered && ws.Current != nil && !ws.Current.IsRoot {
		return []*workspace.Project{ws.Current}
	}
	if len(ws.Projects) == 1 {
		return ws.Projects
	}
	var out []*workspace.Project
	for _, p := range ws.Projects {
		if !p.IsRoot {
			out = append(out, p)
		}
	}
	return out
}

// dependencies is the one accessor for the workspace's dependency edges
// that selection follows: the projects p depends on.
func dependencies(ws *workspace.Workspace, p *workspace.Project) []*workspace.Project {
	return p.Deps
}

// filterer holds one selection's state: the dependents graph and the git
// changes, each computed once.
type filterer struct {
	ws         *workspace.Workspace
	sel        Selection
	why        map[*workspace.Project]string
	dependents map[*workspace.Project][]*workspace.Project
	changes    map[string]*changes // by ref
	inGit      bool                // git said the root is in a work tree
	real       map[string]string   // real paths, by path
}

// apply selects the union of what the selectors select, as pnpm's
// _filterGraph does: a selector's entry projects (by name, directory,
// changes), then, with "...", their dependencies and/or dependents ("^":
// without the entries themselves).
func (f *filterer) apply(sels []selector) (map[*workspace.Project]bool, error) {
	out := map[*workspace.Project]bool{}
	for _, s := range sels {
		entries, err := f.entries(s)
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 && s.ref == "" {
			if fix, ok := suggestFilter(f.ws, s); ok {
				return nil, fmt.Errorf("--filter %q matches no project; did you mean --filter %q? vx ls lists the projects", s.raw, fix)
			}
			return nil, fmt.Errorf("--filter %q matches no project; run vx ls to see the projects", s.raw)
		}
		if !s.excludeSelf {
			for _, p := range entries {
				f.because(p, "--filter "+quote.Name(s.raw))
			}
		}
		if !s.dependencies && !s.dependents {
			for _, p := range entries {
				out[p] = true
			}
			continue
		}
		if s.dependencies {
			walked := map[*workspace.Project]bool{}
			f.walk(entries, walked, !s.excludeSelf, "dependency of ", func(p *workspace.Project) []*workspace.Project { return dependencies(f.ws, p) })
			for p := range walked {
				out[p] = true
			}
		}
		if s.dependents {
			rev := f.reverse()
			walked := map[*workspace.Project]bool{}
			f.walk(entries, walked, !s.excludeSelf, "depends on ", func(p *workspace.Project) []*workspace.Project { return rev[p] })
			for p := range walked {
				out[p] = true
			}
			if s.dependencies {
				// pnpm adds the dependencies of the dependents too.
				more := map[*workspace.Project]bool{}
				f.walk(sortedProjects(f.ws, walked), more, false, "dependency of ", func(p *workspace.Project) []*workspace.Project { return dependencies(f.ws, p) })
				for p := range more {
					out[p] = true
				}
			}
		}
	}
	return out, nil
}

// walk adds to walked the projects reachable from next through edges, and
// next themselves when includeSelf; it records why each was reached. It
// follows pnpm's pickSubgraph, including its way of handling an entry left
// out by "^" that another entry reaches.
func (f *filterer) walk(next []*workspace.Project, walked map[*workspace.Project]bool, includeSelf bool, how string, edges func(*workspace.Project) []*workspace.Project) {
	for _, p := range next {
		if walked[p] {
			continue
		}
		if includeSelf {
			walked[p] = true
		}
		for _, d := range edges(p) {
			if !walked[d] {
				f.because(d, how+quote.Name(p.Name))
			}
		}
		f.walk(edges(p), walked, true, how, edges)
	}
}

// because records the first reason a project was selected.
func (f *filterer) because(p *workspace.Project, why string) {
	if _, ok := f.why[p]; !ok {
		f.why[p] = why
	}
}

// reverse returns the dependents graph, built once.
func (f *filterer) reverse() map[*workspace.Project][]*workspace.Project {
	if f.dependents == nil {
		f.dependents = map[*workspace.Project][]*workspace.Project{}
		for _, p := range f.ws.Projects {
			for _, d := range dependencies(f.ws, p) {
				f.dependents[d] = append(f.dependents[d], p)
			}
		}
	}
	return f.dependents
}

func sortedProjects(ws *workspace.Workspace, set map[*workspace.Project]bool) []*workspace.Project {
	var out []*workspace.Project
	for _, p := range ws.Projects {
		if set[p] {
			out = append(out, p)
		}
	}
	return out
}

// entries returns the projects a selector names before "..." and "^"
// apply, in workspace order: those changed since [ref] (under {dir} when
// given), or those under {dir} or at ./path, narrowed by the name glob.
func (f *filterer) entries(s selector) ([]*workspace.Project, error) {
	var cands []*workspace.Project
	switch {
	case s.ref != "":
		ch, err := f.changedSince(s.ref)
		if err != nil {
			return nil, err
		}
		var inDir func(rel string) bool
		if s.dir != "" {
			m, err := f.dirMatcher(s.dir)
			if err != nil {
				return nil, err
			}
			inDir = m.under
		}
		for _, p := range f.ws.Projects {
			if files := ch.of(p, inDir); len(files) > 0 {
				cands = append(cands, p)
				f.because(p, changedWhy(files))
			}
		}
	case s.dir != "":
		m, err := f.dirMatcher(s.dir)
		if err != nil {
			return nil, err
		}
		for _, p := range f.ws.Projects {
			if m.matches(p) {
				cands = append(cands, p)
			}
		}
	default:
		cands = f.ws.Projects
	}
	if s.name == "" {
		return cands, nil
	}
	return matchNames(cands, s.name), nil
}

func changedWhy(files []string) string {
	why := "changed: " + files[0]
	if len(files) > 1 {
		why += fmt.Sprintf(" (and %d more)", len(files)-1)
	}
	return why
}

// suggestFilter returns s as the user probably meant it, when s names a
// project (no glob, no directory, no ref) and a project's name is close:
// the name, or the part after its scope (--filter kit selects
// @sveltejs/kit), with s's operators kept ("!wbe..." -> "!web...").
func suggestFilter(ws *workspace.Workspace, s selector) (string, bool) {
	if s.name == "" || s.dir != "" || s.ref != "" || strings.ContainsAny(s.name, "*?[{") {
		return "", false
	}
	var names []string
	scoped := map[string]int{} // unscoped part -> how many scoped names have it
	for _, p := range ws.Projects {
		if p.Unnamed {
			continue
		}
		names = append(names, p.Name)
		if _, bare, ok := strings.Cut(p.Name, "/"); ok && strings.HasPrefix(p.Name, "@") {
			scoped[bare]++
		}
	}
	best, ok := suggest.Closest(s.name, names)
	if !ok && !strings.Contains(s.name, "/") {
		var bare []string
		for b, n := range scoped {
			if n == 1 { // the part alone selects it only when one scope has it
				bare = append(bare, b)
			}
		}
		slices.Sort(bare)
		best, ok = suggest.Closest(s.name, bare)
	}
	if !ok {
		return "", false
	}
	i := strings.LastIndex(s.raw, s.name)
	return s.raw[:i] + best + s.raw[i+len(s.name):], true
}

// matchNames returns the projects whose name the glob matches. As in pnpm,
// a pattern without "@" or "/" that matches nothing stands for "@*/pattern"
// when exactly one scoped name matches that: --filter kit finds
// @sveltejs/kit.
func matchNames(projects []*workspace.Project, pattern string) []*workspace.Project {
	var out []*workspace.Project
	for _, p := range projects {
		if globMatch(pattern, p.Name) {
			out = append(out, p)
		}
	}
	if len(out) == 0 && !strings.HasPrefix(pattern, "@") && !strings.Contains(pattern, "/") {
		if scoped := matchNames(projects, "@*/"+pattern); len(scoped) == 1 {
			return scoped
		}
	}
	return out
}

// dirMatcher matches project directories against a {dir} or ./path
// selector, written relative to the directory vx runs in.
type dirMatcher struct {
	f     *filterer
	bases []string // the start directory, as given and real: slash form, folded on Windows
	rel   string   // the pattern left after leading ".." steps, cleaned; "." = the base itself
	glob  bool
}

func (f *filterer) dirMatcher(dir string) (*dirMatcher, error) {
	rel := path.Clean(strings.ReplaceAll(dir, `\`, "/"))
	if path.IsAbs(rel) {
		// pnpm joins the text to the start directory whatever it is.
		rel = path.Clean(strings.TrimLeft(rel, "/"))
	}
	ups := 0
	for rel == ".." || strings.HasPrefix(rel, "../") {
		ups++
		rel = strings.TrimPrefix(strings.TrimPrefix(rel, ".."), "/")
		if rel == "" {
			rel = "."
		}
	}
	m := &dirMatcher{f: f, rel: f.fold(rel), glob: strings.ContainsAny(rel, "*?[{")}
	if m.glob && !doublestar.ValidatePattern(rel) {
		return nil, fmt.Errorf("--filter directory %q is not a valid glob", dir)
	}
	for _, start := range f.paths(f.sel.Dir) {
		base := start
		for range ups {
			base = filepath.Dir(base)
		}
		m.bases = appendUnique(m.bases, f.fold(filepath.ToSlash(base)))
	}
	return m, nil
}

// matches reports whether the pattern selects the project's directory (its
// path in the workspace or its real path).
func (m *dirMatcher) matches(p *workspace.Project) bool {
	for _, d := range m.f.paths(p.Dir) {
		d = m.f.fold(filepath.ToSlash(d))
		for _, base := range m.bases {
			rel, ok := relSlash(base, d)
			if !ok {
				continue
			}
			if m.glob {
				if ok, _ := doublestar.Match(m.rel, rel); ok {
					return true
				}
			} else if rel == m.rel {
				return true
			}
		}
	}
	return false
}

// under reports whether a file (slash-separated, relative to the workspace
// root) is inside the directory pattern: the pattern matches the file or
// one of its parent directories.
func (m *dirMatcher) under(file string) bool {
	root := m.f.fold(filepath.ToSlash(m.f.ws.Root))
	for _, base := range m.bases {
		for d := m.f.fold(file); ; d = path.Dir(d) {
			rel, ok := relSlash(base, root+"/"+d)
			if d == "." {
				rel, ok = relSlash(base, root)
			}
			if ok {
				if m.glob {
					if hit, _ := doublestar.Match(m.rel, rel); hit {
						return true
					}
				} else if rel == m.rel {
					return true
				}
			}
			if d == "." {
				break
			}
		}
	}
	return false
}

// relSlash returns target relative to base when target is base or below
// it; both are clean slash paths.
func relSlash(base, target string) (string, bool) {
	if target == base {
		return ".", true
	}
	prefix := strings.TrimSuffix(base, "/") + "/"
	if strings.HasPrefix(target, prefix) {
		return target[len(prefix):], true
	}
	return "", false
}

// paths returns p and, when it differs, its real path: a directory reached
// through a symbolic link (macOS /tmp, a linked home) matches either way.
func (f *filterer) paths(p string) []string {
	p = filepath.Clean(p)
	if f.real == nil {
		f.real = map[string]string{}
	}
	r, ok := f.real[p]
	if !ok {
		evalSymlinks := f.sel.RealPath
		if evalSymlinks == nil {
			evalSymlinks = filepath.EvalSymlinks
		}
		var err error
		if r, err = evalSymlinks(p); err != nil {
			r = p
		}
		f.real[p] = r
	}
	if r == p {
		return []string{p}
	}
	return []string{p, r}
}

// fold lower-cases a path on Windows, where file names are
// case-insensitive.
func (f *filterer) fold(s string) string {
	if f.sel.GOOS == "windows" {
		return strings.ToLower(s)
	}
	return s
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// globMatch matches name against a pattern of literals, * (any run of
// characters, "/" included) and ? (one character). It works on characters,
// not bytes: "caf?" matches "café".
func globMatch(pattern, name string) bool {
	px, nx := 0, 0
	starPx, starNx := -1, -1 // the last * seen, and where in name it stopped
	for px < len(pattern) || nx < len(name) {
		if px < len(pattern) {
			c, pw := utf8.DecodeRuneInString(pattern[px:])
			if c == '*' {
				starPx, starNx = px, nx
				px += pw
				continue
			}
			if nx < len(name) {
				_, nw := utf8.DecodeRuneInString(name[nx:])
				if c == '?' || pattern[px:px+pw] == name[nx:nx+nw] {
					px += pw
					nx += nw
					continue
				}
			}
		}
		if starPx >= 0 && starNx < len(name) {
			// Back to the last *, which now takes one more character.
			_, nw := utf8.DecodeRuneInString(name[starNx:])
			starNx += nw
			px, nx = starPx+1, starNx
			continue
		}
		return false
	}
	return true
}
