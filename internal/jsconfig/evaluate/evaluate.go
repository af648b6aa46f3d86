package evaluate

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/vxrun/vx/internal/jsconfig/wire"
)

//go:embed evaluate.mjs
var evaluatorJS []byte

// virtualModule is what `import ... from "@vxrun/vx"` gets, installed or
// not: the helpers are identities, there for the types.
const virtualModule = `export function defineConfig(config) { return config; }
export function defineProject(config) { return config; }
`

// The module specifier vx provides itself.
const vxModule = "@vxrun/vx"

// Evaluate bundles and evaluates the files of req and returns the
// response: the default exports as JSON and what they depended on, or the
// first problem. environ is node's environment (vx's own); what the
// configs print goes to stderr. ctx stops node.
func Evaluate(ctx context.Context, req wire.Request, environ []string, stderr io.Writer) wire.Response {
	resp, err := evaluate(ctx, req, environ, stderr)
	if err != nil {
		return wire.Response{Version: wire.Version, Error: &wire.Error{Msg: err.Error()}}
	}
	resp.Version = wire.Version
	return resp
}

func evaluate(ctx context.Context, req wire.Request, environ []string, stderr io.Writer) (wire.Response, error) {
	if req.Version != wire.Version {
		return wire.Response{}, fmt.Errorf("vx-config speaks version %d of the protocol and vx %d: install both from one release", wire.Version, req.Version)
	}
	tmp, err := os.MkdirTemp("", "vx-config-")
	if err != nil {
		return wire.Response{}, err
	}
	defer os.RemoveAll(tmp)

	b := &bundler{req: req, inputs: map[string]input{}, deps: map[depKey]wire.Dep{}}
	// node starts while esbuild bundles: its start-up is most of an
	// evaluation's time, and it waits for the manifest only once it
	// watches node:fs.
	n, err := startNode(ctx, req, tmp, environ, stderr)
	if err != nil {
		return wire.Response{}, err
	}
	bundles, maps, berr := b.build(tmp)
	if berr != nil {
		n.stop()
		return wire.Response{Error: berr}, nil
	}
	out, err := n.evaluate(b.manifest(bundles))
	if err != nil {
		return wire.Response{}, err
	}
	if out.Error != nil {
		return wire.Response{Error: b.mapError(out.Error, maps)}, nil
	}
	resp := wire.Response{NodeVersion: out.NodeVersion, Volatile: out.Volatile}
	for _, r := range out.Results {
		resp.Results = append(resp.Results, wire.Result{File: r.File, JSON: r.Value})
	}
	resp.Deps = b.collect(out, environ)
	return resp, nil
}

// input is a file of a bundle: its content, and the length of what vx
// put in front of its line prefixLine (1-based; 0 when nothing).
type input struct {
	content    []byte
	prefixLine int
	prefixLen  int // in UTF-16 code units
}

type depKey struct{ kind, path, prefix string }

type bundler struct {
	req    wire.Request
	outDir string // where the bundles are written

	mu     sync.Mutex
	inputs map[string]input    // by absolute path
	deps   map[depKey]wire.Dep // read while resolving and loading
	// externals are the modules the bundles leave to node (its built-in
	// ones): the evaluator watches the network modules only when one is
	// imported, since loading them all costs every evaluation.
	externals map[string]bool
}

func (b *bundler) addDep(d wire.Dep) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := depKey{d.Kind, d.Path, d.Prefix}
	if _, ok := b.deps[k]; !ok {
		b.deps[k] = d
	}
}

// build bundles each file of the request into dir/c<i>.mjs and returns
// their paths, with the source map of each.
func (b *bundler) build(dir string) ([]string, []*sourceMap, *wire.Error) {
	b.outDir = dir
	var entries []api.EntryPoint
	for i, f := range b.req.Files {
		entries = append(entries, api.EntryPoint{InputPath: f, OutputPath: fmt.Sprintf("c%d", i)})
	}
	res := api.Build(api.BuildOptions{
		EntryPointsAdvanced: entries,
		Outdir:              dir,
		OutExtension:        map[string]string{".js": ".mjs"},
		AbsWorkingDir:       b.req.Root,
		Bundle:              true,
		Platform:            api.PlatformNode,
		Format:              api.FormatESModule,
		Engines:             []api.Engine{{Name: api.EngineNode, Version: "18"}},
		Sourcemap:           api.SourceMapExternal,
		LogLevel:            api.LogLevelSilent,
		Write:               false,
		// tsconfig.json files play no part: the same source bundles the
		// same everywhere, and no file outside the recorded ones counts.
		TsconfigRaw: `{"compilerOptions": {}}`,
		Define: map[string]string{
			"import.meta.url":      "__vx_meta_url",
			"import.meta.dirname":  "__vx_meta_dirname",
			"import.meta.filename": "__vx_meta_filename",
			"__dirname":            "__vx_meta_dirname",
			"__filename":           "__vx_meta_filename",
		},
		// Bundled CommonJS code calls require() for node's built-in
		// modules; an ES module has none of its own.
		Banner:  map[string]string{"js": `import { createRequire as __vx_createRequire } from "node:module"; const require = __vx_createRequire(import.meta.url);`},
		Plugins: []api.Plugin{{Name: "vx", Setup: b.setup}},
	})
	if len(res.Errors) > 0 {
		return nil, nil, b.buildError(res.Errors[0])
	}
	var bundles []string
	maps := make([]*sourceMap, len(b.req.Files))
	for i := range b.req.Files {
		bundles = append(bundles, filepath.Join(dir, fmt.Sprintf("c%d.mjs", i)))
	}
	for _, f := range res.OutputFiles {
		if strings.HasSuffix(f.Path, ".map") {
			m, err := parseSourceMap(f.Contents)
			if err != nil {
				return nil, nil, &wire.Error{Msg: "esbuild wrote a source map vx cannot read: " + err.Error()}
			}
			for i, p := range bundles {
				if p+".map" == f.Path {
					maps[i] = m
				}
			}
			continue
		}
		if err := os.WriteFile(f.Path, f.Contents, 0o644); err != nil {
			return nil, nil, &wire.Error{Msg: err.Error()}
		}
		if computedImport.Match(f.Contents) {
			// import(x) or require(x) of a name esbuild cannot see: it may
			// be any of node's modules.
			b.mu.Lock()
			if b.externals == nil {
				b.externals = map[string]bool{}
			}
			b.externals["*"] = true
			b.mu.Unlock()
		}
	}
	return bundles, maps, nil
}

// computedImport finds an import() or require() whose argument is not a
// string literal, and code that evaluates a string (eval, the Function
// constructor), which may import anything (a comment that mentions one
// counts too: it only costs loading the modules the evaluator watches).
var computedImport = regexp.MustCompile("\\b(import|require)\\(\\s*[^\"'`\\s)]|\\beval\\b|\\bFunction\\s*\\(")

// buildError turns esbuild's first error into vx's, positioned in the
// source (esbuild counts columns in bytes, vx in characters).
func (b *bundler) buildError(m api.Message) *wire.Error {
	e := &wire.Error{Msg: lowerFirst(m.Text)}
	if strings.HasPrefix(m.Text, "Could not resolve") {
		e.Suggest = "is the package installed (npm install)?"
		if strings.HasPrefix(m.Text, `Could not resolve "./`) || strings.HasPrefix(m.Text, `Could not resolve "../`) || strings.HasPrefix(m.Text, `Could not resolve "/`) {
			e.Suggest = "is the path right?"
		}
	}
	if l := m.Location; l != nil && l.File != "" {
		e.File = l.File
		if !filepath.IsAbs(e.File) {
			e.File = filepath.Join(b.req.Root, e.File)
		}
		e.Line = l.Line
		col := min(l.Column, len(l.LineText))
		e.Col = utf8.RuneCountInString(l.LineText[:col]) + 1
	}
	return e
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r >= 'A' && r <= 'Z' && !(n < len(s) && s[n] >= 'A' && s[n] <= 'Z') {
		return string(r+'a'-'A') + s[n:]
	}
	return s
}

// The plugin's namespaces and the marker of its own resolve calls.
const (
	nsVirtual = "vx"
	nsFile    = "file"
)

type selfResolve struct{}

func (b *bundler) setup(pb api.PluginBuild) {
	pb.OnResolve(api.OnResolveOptions{Filter: `^@vxrun/vx$`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
		return api.OnResolveResult{Path: vxModule, Namespace: nsVirtual}, nil
	})
	pb.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: nsVirtual}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
		s := virtualModule
		return api.OnLoadResult{Contents: &s, Loader: api.LoaderJS}, nil
	})
	pb.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
		if _, self := a.PluginData.(selfResolve); self || a.Kind == api.ResolveEntryPoint {
			return api.OnResolveResult{}, nil // esbuild's own resolution
		}
		return b.resolve(pb, a), nil
	})
	pb.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: nsFile}, b.load)
}

// resolve resolves an import as esbuild would, with the workspace's
// projects found by name whether installed or not, and records what the
// answer depended on.
func (b *bundler) resolve(pb api.PluginBuild, a api.OnResolveArgs) api.OnResolveResult {
	spec, dir := a.Path, a.ResolveDir
	opts := api.ResolveOptions{Importer: a.Importer, Namespace: a.Namespace, ResolveDir: dir, Kind: a.Kind, PluginData: selfResolve{}, With: a.With}
	name, sub, bare := packageName(spec)
	if bare {
		if pdir, ok := b.req.Packages[name]; ok && !isBuiltin(spec) {
			target := workspaceEntry(pdir, sub)
			b.addDep(wire.Dep{Kind: wire.KindFile, Path: filepath.Join(pdir, "package.json"), State: wire.FileState(filepath.Join(pdir, "package.json"))})
			spec, opts.ResolveDir = target, pdir
			b.noteRelative(filepath.Join(pdir, filepath.FromSlash(target)))
		}
	}
	r := pb.Resolve(spec, opts)
	if len(r.Errors) > 0 {
		return api.OnResolveResult{Errors: r.Errors}
	}
	if r.External || r.Namespace != nsFile {
		if r.External {
			b.mu.Lock()
			if b.externals == nil {
				b.externals = map[string]bool{}
			}
			b.externals[r.Path] = true
			b.mu.Unlock()
		}
		return api.OnResolveResult{Path: r.Path, External: r.External, Namespace: r.Namespace}
	}
	switch {
	case bare && spec == a.Path:
		b.notePackage(dir, name)
	case !bare:
		target := spec
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, filepath.FromSlash(spec))
		}
		b.noteRelative(target)
		if rel, err := filepath.Rel(target, r.Path); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
			// A directory's index or its package.json's main.
			b.addDep(wire.Dep{Kind: wire.KindList, Path: target, Prefix: "index", State: wire.ListState(target, "index", b.req.GOOS)})
			b.addDep(wire.Dep{Kind: wire.KindFile, Path: filepath.Join(target, "package.json"), State: wire.FileState(filepath.Join(target, "package.json"))})
		}
	}
	return api.OnResolveResult{Path: r.Path, Namespace: r.Namespace, SideEffects: sideEffects(r.SideEffects)}
}

func sideEffects(b bool) api.SideEffects {
	if b {
		return api.SideEffectsTrue
	}
	return api.SideEffectsFalse
}

// noteRelative records the names beside a relative import's target that
// could make it resolve elsewhere: every name starting with the target's
// (x.ts beside x.js, a directory x).
func (b *bundler) noteRelative(target string) {
	d, base := filepath.Split(target)
	b.addDep(wire.Dep{Kind: wire.KindList, Path: filepath.Clean(d), Prefix: base, State: wire.ListState(d, base, b.req.GOOS)})
}

// notePackage records where a bare import of name from dir was looked
// for: node_modules/<name> in dir and each directory above it up to the
// one that has it, and that one's package.json.
func (b *bundler) notePackage(dir, name string) {
	for d := dir; ; {
		p := filepath.Join(d, "node_modules", filepath.FromSlash(name))
		st := wire.StatState(p, false)
		b.addDep(wire.Dep{Kind: wire.KindStat, Path: p, State: st})
		if st == "dir" {
			pj := filepath.Join(p, "package.json")
			b.addDep(wire.Dep{Kind: wire.KindFile, Path: pj, State: wire.FileState(pj)})
			return
		}
		up := filepath.Dir(d)
		if up == d {
			return
		}
		d = up
	}
}

// load reads a file of the bundle, keeps its content for the dependencies
// and for positions, and gives it the import.meta values of its own path.
func (b *bundler) load(a api.OnLoadArgs) (api.OnLoadResult, error) {
	loader, ok := loaderFor(a.Path)
	if !ok {
		return api.OnLoadResult{Errors: []api.Message{{Text: fmt.Sprintf("cannot import %s: a config imports JavaScript, TypeScript and JSON", filepath.Base(a.Path))}}}, nil
	}
	data, err := os.ReadFile(a.Path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	in := input{content: data}
	text := string(data)
	if loader != api.LoaderJSON && (strings.Contains(text, "import.meta") || strings.Contains(text, "__dirname") || strings.Contains(text, "__filename")) {
		prefix := metaPrefix(a.Path, b.req.GOOS)
		in.prefixLine = 1
		at := 0
		if strings.HasPrefix(text, "#!") {
			if i := strings.IndexByte(text, '\n'); i >= 0 {
				at, in.prefixLine = i+1, 2
			}
		}
		text = text[:at] + prefix + text[at:]
		in.prefixLen = len(utf16.Encode([]rune(prefix)))
	}
	b.mu.Lock()
	b.inputs[filepath.Clean(a.Path)] = in
	b.mu.Unlock()
	b.addDep(wire.Dep{Kind: wire.KindFile, Path: a.Path, State: wire.ContentState(data)})
	return api.OnLoadResult{Contents: &text, Loader: loader}, nil
}

// metaPrefix declares the values import.meta.url, import.meta.dirname and
// import.meta.filename (and __dirname and __filename) have in the file at
// path, on one line: the bundle runs from elsewhere.
func metaPrefix(path, goos string) string {
	url, _ := json.Marshal(fileURL(path, goos))
	p, _ := json.Marshal(path)
	d, _ := json.Marshal(filepath.Dir(path))
	return fmt.Sprintf("var __vx_meta_url = %s, __vx_meta_filename = %s, __vx_meta_dirname = %s;", url, p, d)
}

// fileURL is the file: URL of an absolute path of goos: file:///C:/x/y.ts
// on Windows, file:///x/y.ts elsewhere, with the characters a URL path
// cannot hold escaped.
func fileURL(path, goos string) string {
	p := path
	if goos == "windows" {
		p = strings.ReplaceAll(p, `\`, "/")
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
	}
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte(`"#%<>?[\]^`+"`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func loaderFor(path string) (api.Loader, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ts", ".mts", ".cts":
		return api.LoaderTS, true
	case ".tsx":
		return api.LoaderTSX, true
	case ".js", ".mjs", ".cjs":
		return api.LoaderJS, true
	case ".jsx":
		return api.LoaderJSX, true
	case ".json":
		return api.LoaderJSON, true
	}
	return api.LoaderNone, false
}

// packageName splits a bare specifier into the package's name and the
// path after it: "@acme/x/y" is ("@acme/x", "y"). bare is false for a
// relative or absolute path.
func packageName(spec string) (name, sub string, bare bool) {
	if spec == "" || strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") || filepath.IsAbs(spec) || strings.Contains(spec, ":") && !strings.HasPrefix(spec, "node:") {
		return "", "", false
	}
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		name = parts[0] + "/" + parts[1]
		if len(parts) == 3 {
			sub = parts[2]
		}
		return name, sub, true
	}
	name, sub, _ = strings.Cut(spec, "/")
	return name, sub, true
}

func isBuiltin(spec string) bool { return strings.HasPrefix(spec, "node:") }

// workspaceEntry is the path, relative to the project's directory, that
// an import of the project (sub "" ) or of a path in it resolves to: its
// package.json's "exports" for it (the "import", "node" or "default"
// condition), else for the project itself its "module" or "main", else
// the path itself (esbuild then tries the extensions and index files).
func workspaceEntry(dir, sub string) string {
	var pkg struct {
		Exports json.RawMessage `json:"exports"`
		Module  string          `json:"module"`
		Main    string          `json:"main"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	_ = json.Unmarshal(data, &pkg)
	key := "."
	if sub != "" {
		key = "./" + sub
	}
	if len(pkg.Exports) > 0 {
		if t := exportTarget(pkg.Exports, key); t != "" {
			return t
		}
	}
	if sub == "" {
		for _, m := range []string{pkg.Module, pkg.Main} {
			if m != "" {
				return "./" + strings.TrimPrefix(m, "./")
			}
		}
		return "."
	}
	return key
}

// exportTarget finds key ("." or "./x") in a package.json "exports".
func exportTarget(exports json.RawMessage, key string) string {
	var s string
	if json.Unmarshal(exports, &s) == nil {
		if key == "." {
			return s
		}
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(exports, &m) != nil {
		return ""
	}
	subpaths := false
	for k := range m {
		subpaths = subpaths || strings.HasPrefix(k, ".")
	}
	if !subpaths { // conditions of "."
		if key != "." {
			return ""
		}
		return condition(exports)
	}
	if v, ok := m[key]; ok {
		return condition(v)
	}
	return ""
}

// condition picks a target from a string or an object of conditions.
func condition(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		return ""
	}
	for _, c := range []string{"import", "node", "default", "require"} {
		if t, ok := m[c]; ok {
			if s := condition(t); s != "" {
				return s
			}
		}
	}
	return ""
}

// evalOutput is what the evaluator wrote.
type evalOutput struct {
	Error   *evalError `json:"error"`
	Results []struct {
		File  string          `json:"file"`
		Value json.RawMessage `json:"value"`
	} `json:"results"`
	NodeVersion string            `json:"nodeVersion"`
	Files       [][2]string       `json:"files"`
	Lists       []json.RawMessage `json:"lists"`
	Stats       [][3]string       `json:"stats"`
	Env         [][2]*string      `json:"env"`
	Environ     bool              `json:"environ"`
	Volatile    string            `json:"volatile"`
}

// evalError is a problem the evaluator met, with the positions in the
// bundles of the stack of an exception.
type evalError struct {
	File   string  `json:"file"`
	Msg    string  `json:"msg"`
	Frames []frame `json:"frames"`
}

type frame struct{ Bundle, Line, Col int }

// node is the evaluator's node, started before the bundles are there.
type node struct {
	cmd    *osexec.Cmd
	stdin  io.WriteCloser
	path   string // node's program
	result string // where the evaluator writes
}

// startNode writes the evaluator into dir and starts node on it, in the
// workspace's root with environ; node's stdout and stderr, what the
// configs print, go to stderr.
func startNode(ctx context.Context, req wire.Request, dir string, environ []string, stderr io.Writer) (*node, error) {
	script := filepath.Join(dir, "evaluate.mjs")
	if err := os.WriteFile(script, evaluatorJS, 0o644); err != nil {
		return nil, err
	}
	// node stays in vx-config's process group (job object on Windows):
	// vx ends the whole tree when the time is up.
	cmd := osexec.CommandContext(ctx, req.Node, script, dir)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = req.Root, environ, stderr, stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start node (%s): %v", req.Node, err)
	}
	return &node{cmd: cmd, stdin: stdin, path: req.Node, result: filepath.Join(dir, "result.json")}, nil
}

// stop ends a node that has nothing to evaluate.
func (n *node) stop() {
	n.stdin.Close()
	_ = n.cmd.Process.Kill()
	_ = n.cmd.Wait()
}

// manifest is what the evaluator reads on its stdin: the bundles, each
// with the config file it is made of, and the modules they leave to node.
func (b *bundler) manifest(bundles []string) []byte {
	type entry struct {
		Bundle string `json:"bundle"`
		File   string `json:"file"`
	}
	man := struct {
		Bundles   []entry  `json:"bundles"`
		Externals []string `json:"externals"`
	}{}
	b.mu.Lock()
	for e := range b.externals {
		man.Externals = append(man.Externals, e)
	}
	b.mu.Unlock()
	slices.Sort(man.Externals)
	for i, p := range bundles {
		man.Bundles = append(man.Bundles, entry{p, b.req.Files[i]})
	}
	data, _ := json.Marshal(man)
	return data
}

// evaluate gives node the manifest and reads what the evaluator wrote.
func (n *node) evaluate(manifest []byte) (*evalOutput, error) {
	// A node that ended already (too old, say) has written its answer:
	// writing to it fails, and that is no error of its own.
	_, _ = n.stdin.Write(manifest)
	_ = n.stdin.Close()
	runErr := n.cmd.Wait()
	data, err := os.ReadFile(n.result)
	if err != nil {
		if runErr != nil {
			return nil, fmt.Errorf("node (%s) ended before the config was evaluated: %v", n.path, runErr)
		}
		return nil, fmt.Errorf("node (%s) ended without a result", n.path)
	}
	var out evalOutput
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("the evaluator's result is not JSON: %v", err)
	}
	return &out, nil
}

// mapError positions an error of the evaluation in the source, through
// the source maps: the innermost frame of a bundle that maps to a file.
func (b *bundler) mapError(e *evalError, maps []*sourceMap) *wire.Error {
	out := &wire.Error{File: e.File, Msg: e.Msg}
	for _, f := range e.Frames {
		if f.Bundle < 0 || f.Bundle >= len(maps) || maps[f.Bundle] == nil {
			continue
		}
		src, line, col16, ok := maps[f.Bundle].lookup(f.Line, f.Col)
		if !ok {
			continue
		}
		// Sources are relative to the bundle's directory (absolute when
		// no relative path leads there: another drive on Windows).
		file := filepath.FromSlash(src)
		if !filepath.IsAbs(file) {
			file = filepath.Join(b.outDir, file)
		}
		b.mu.Lock()
		in, known := b.inputs[file]
		b.mu.Unlock()
		if !known {
			continue
		}
		if line == in.prefixLine {
			col16 = max(col16-in.prefixLen, 0)
		}
		out.File, out.Line, out.Col = file, line, charColumn(in.content, line, col16)
		break
	}
	return out
}

// charColumn converts a 0-based column in UTF-16 code units on line
// (1-based) of data to vx's 1-based column in characters.
func charColumn(data []byte, line, col16 int) int {
	lines := bytes.SplitN(data, []byte("\n"), line+1)
	if line-1 >= len(lines) {
		return col16 + 1
	}
	units, chars := 0, 0
	for _, r := range string(lines[line-1]) {
		if units >= col16 {
			break
		}
		units += utf16.RuneLen(r)
		chars++
	}
	return chars + 1
}

// fileState is the state of a file the evaluator read: its content's
// hash, or a read error's state. The evaluator sends a small file's bytes
// (base64:...) rather than load node:crypto to hash them.
func fileState(s string) string {
	b64, ok := strings.CutPrefix(s, "base64:")
	if !ok {
		return s
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return s // no state a file reads as: evaluated anew
	}
	return wire.ContentState(data)
}

// collect gathers every dependency: the files esbuild bundled and what
// resolving their imports looked at, what the configs read through node:fs
// and process.env, and the variables node itself reads.
func (b *bundler) collect(out *evalOutput, environ []string) []wire.Dep {
	b.mu.Lock()
	deps := make([]wire.Dep, 0, len(b.deps))
	for _, d := range b.deps {
		deps = append(deps, d)
	}
	b.mu.Unlock()
	for _, f := range out.Files {
		deps = append(deps, wire.Dep{Kind: wire.KindFile, Path: f[0], State: fileState(f[1])})
	}
	for _, raw := range out.Lists {
		var l [2]json.RawMessage
		var p string
		if json.Unmarshal(raw, &l) != nil || json.Unmarshal(l[0], &p) != nil {
			continue
		}
		var names []string
		var state string
		if json.Unmarshal(l[1], &names) == nil {
			state = wire.NamesState(names, "", b.req.GOOS)
		} else {
			_ = json.Unmarshal(l[1], &state)
		}
		deps = append(deps, wire.Dep{Kind: wire.KindList, Path: p, State: state})
	}
	for _, s := range out.Stats {
		deps = append(deps, wire.Dep{Kind: s[0], Path: s[1], State: s[2]})
	}
	for _, e := range out.Env {
		if e[0] == nil {
			continue
		}
		st := ""
		if e[1] != nil {
			st = "=" + *e[1]
		}
		deps = append(deps, wire.Dep{Kind: wire.KindEnv, Path: *e[0], State: st})
	}
	if out.Environ {
		deps = append(deps, wire.Dep{Kind: wire.KindEnviron, State: wire.EnvironState(environ)})
	}
	// node reads NODE_OPTIONS itself, before any config runs.
	deps = append(deps, wire.Dep{Kind: wire.KindEnv, Path: "NODE_OPTIONS", State: wire.Current(wire.Dep{Kind: wire.KindEnv, Path: "NODE_OPTIONS"}, b.req.GOOS, environ)})
	slices.SortFunc(deps, func(x, y wire.Dep) int {
		return strings.Compare(x.Kind+"\x00"+x.Path+"\x00"+x.Prefix, y.Kind+"\x00"+y.Path+"\x00"+y.Prefix)
	})
	return slices.CompactFunc(deps, func(x, y wire.Dep) bool { return x.Kind == y.Kind && x.Path == y.Path && x.Prefix == y.Prefix })
}
