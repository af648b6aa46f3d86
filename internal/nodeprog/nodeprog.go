package nodeprog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/inputfile"
)

// Timeout bounds the time node --version may take.
const Timeout = 10 * time.Second

// Unknown is the version of a node that did not answer node --version.
const Unknown = "unknown"

// A Program is the node a child finds in its PATH.
type Program struct {
	Path string // as found in PATH
	Real string // with symbolic links resolved
	// Shim says that the program is a version manager's shim (or a script):
	// the version it runs depends on the directory, the environment and
	// the manager's files, which ID then holds.
	Shim bool
	// ID is the hex SHA-256 of what decides the version: two programs with
	// the same ID run the same version.
	ID string
}

// A Memo keeps versions by [Program.ID] across runs.
type Memo interface {
	NodeVersion(p Program) (string, bool)
	SetNodeVersion(p Program, version string)
}

// A Finder finds node programs and their versions, remembering what it
// read for the rest of its life (one run): the directories of PATH, the
// pin files of each directory, each identity's version. Its zero value
// works; it is safe for concurrent use.
type Finder struct {
	GOOS string // "" = the host's
	// Memo, when not nil, keeps versions across runs.
	Memo Memo
	// Ask returns what node --version prints for p, run with env in dir;
	// nil runs it for at most Timeout. Tests give a fake.
	Ask func(p Program, env []string, dir string) (string, error)

	mu     sync.Mutex
	dirs   map[string]string // a PATH directory -> the node in it, "" none
	kinds  map[string]kind   // a found path -> what it is
	pins   map[string]string // a directory -> its pin files and those above it, as a canonical text
	global map[string]string // the managers' variables -> the digest of their global files
	probes map[string]*probe // an ID -> its version
}

type kind struct {
	real  string
	shim  bool
	ident string // the file's identity (stat)
	err   error
}

type probe struct {
	once    sync.Once
	version string
}

func (f *Finder) goos() string {
	if f.GOOS == "" {
		return runtime.GOOS
	}
	return f.GOOS
}

// Find returns the node a child with environment env, started in dir,
// finds in its PATH, and its identity; false when there is none. It never
// starts node.
func (f *Finder) Find(env []string, dir string) (Program, bool) {
	path, at := f.look(env)
	if path == "" {
		return Program{}, false
	}
	k := f.kindOf(path)
	if k.err != nil {
		return Program{}, false
	}
	p := Program{Path: path, Real: k.real, Shim: k.shim}
	h := sha256.New()
	if !k.shim {
		h.Write([]byte("node binary\x00" + k.real + "\x00" + k.ident))
		p.ID = hex.EncodeToString(h.Sum(nil))
		return p, true
	}
	h.Write([]byte("node shim\x00" + path + "\x00" + k.real + "\x00" + k.ident + "\x00"))
	vars := managerVars(env, f.goos())
	for _, kv := range vars {
		h.Write([]byte(kv + "\x00"))
	}
	// The PATH after the shim's directory: where a "system" version is.
	pathVal, _ := exec.LookupEnv(env, "PATH", f.goos())
	list := filepath.SplitList(pathVal)
	if at+1 < len(list) {
		h.Write([]byte("after\x00" + strings.Join(list[at+1:], "\x00") + "\x00"))
	}
	h.Write([]byte("pins\x00" + f.pinsOf(dir, env) + "\x00"))
	h.Write([]byte("global\x00" + f.globalOf(vars, env) + "\x00"))
	p.ID = hex.EncodeToString(h.Sum(nil))
	return p, true
}

// Version returns the version of the node a child with environment env,
// started in dir, runs ("v22.3.0"): "" when there is no node in its PATH,
// [Unknown] when node --version failed.
func (f *Finder) Version(env []string, dir string) string {
	p, ok := f.Find(env, dir)
	if !ok {
		return ""
	}
	return f.VersionOf(p, env, dir)
}

// VersionOf returns the version p runs with env in dir: from the memo, or
// asked once per identity.
func (f *Finder) VersionOf(p Program, env []string, dir string) string {
	f.mu.Lock()
	if f.probes == nil {
		f.probes = map[string]*probe{}
	}
	pr, ok := f.probes[p.ID]
	if !ok {
		pr = &probe{}
		f.probes[p.ID] = pr
	}
	memo := f.Memo
	f.mu.Unlock()
	pr.once.Do(func() {
		if memo != nil {
			if v, ok := memo.NodeVersion(p); ok {
				pr.version = v
				return
			}
		}
		ask := f.Ask
		if ask == nil {
			ask = askNode
		}
		out, err := ask(p, env, dir)
		v := parseVersion(out)
		if err != nil || v == "" {
			pr.version = Unknown // not remembered: asked again next run
			return
		}
		pr.version = v
		if memo != nil {
			memo.SetNodeVersion(p, v)
		}
	})
	return pr.version
}

// Reset makes f forget what it read (for a new run: vx watch's next
// batch, after a pin file may have changed) and gives it the memo m.
func (f *Finder) Reset(m Memo) {
	f.mu.Lock()
	f.Memo = m
	f.dirs, f.kinds, f.pins, f.global, f.probes = nil, nil, nil, nil, nil
	f.mu.Unlock()
}

// SetMemo gives f a memo when it has none yet.
func (f *Finder) SetMemo(m Memo) {
	f.mu.Lock()
	if f.Memo == nil {
		f.Memo = m
	}
	f.mu.Unlock()
}

// askNode runs p's node --version with env in dir, for at most Timeout.
func askNode(p Program, env []string, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := osexec.CommandContext(ctx, p.Path, "--version")
	cmd.Env = env
	cmd.Dir = dir
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return string(out), err
}

// parseVersion returns the first line of out that is a version ("v20.1.0"),
// "" when none is.
func parseVersion(out string) string {
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if len(line) > 1 && line[0] == 'v' && line[1] >= '0' && line[1] <= '9' && !strings.ContainsAny(line, " \t") && len(line) < 64 {
			return line
		}
	}
	return ""
}

// look finds node in env's PATH as exec.LookPath does, one directory at a
// time, remembering each directory's answer (the tasks of a run share
// most of their PATH); it returns the path and the index of its directory
// in PATH.
func (f *Finder) look(env []string) (string, int) {
	goos := f.goos()
	pathVal, _ := exec.LookupEnv(env, "PATH", goos)
	pathext, hasExt := exec.LookupEnv(env, "PATHEXT", goos)
	for i, dir := range filepath.SplitList(pathVal) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // exec.LookPath refuses relative entries too
		}
		f.mu.Lock()
		found, seen := f.dirs[dir]
		f.mu.Unlock()
		if !seen {
			one := []string{"PATH=" + dir}
			if hasExt {
				one = append(one, "PATHEXT="+pathext)
			}
			if p, err := exec.LookPath("node", one); err == nil {
				found = p
			}
			f.mu.Lock()
			if f.dirs == nil {
				f.dirs = map[string]string{}
			}
			f.dirs[dir] = found
			f.mu.Unlock()
		}
		if found != "" {
			return found, i
		}
	}
	return "", -1
}

// kindOf says what the program at path is, once per path.
func (f *Finder) kindOf(path string) kind {
	f.mu.Lock()
	k, ok := f.kinds[path]
	f.mu.Unlock()
	if ok {
		return k
	}
	k = classify(path, f.goos())
	f.mu.Lock()
	if f.kinds == nil {
		f.kinds = map[string]kind{}
	}
	f.kinds[path] = k
	f.mu.Unlock()
	return k
}

// classify resolves path's links and tells a node binary from a shim.
func classify(path, goos string) kind {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return kind{err: err}
	}
	fi, err := os.Stat(real)
	if err != nil {
		return kind{err: err}
	}
	k := kind{real: real, ident: identity(real, fi), shim: true}
	if !fi.Mode().IsRegular() {
		return k
	}
	k.shim = !isNodeBinary(path, real, goos) || !nativeMagic(real)
	return k
}

// isNodeBinary says whether the names of path and real are those of a
// node binary: real is named node (node.exe), and neither is in a
// directory where version managers keep their shims.
func isNodeBinary(path, real, goos string) bool {
	base := filepath.Base(real)
	if goos == "windows" {
		base = strings.ToLower(base)
		base = strings.TrimSuffix(base, ".exe")
	}
	if base != "node" {
		return false // volta-shim, mise, asdf's or a wrapper's script name
	}
	return !inShimDir(path, goos) && !inShimDir(real, goos)
}

// shimDirs are directory names (slash-separated, lower case) under which
// version managers keep shims that run a version the directory chooses.
// (asdf, mise, nodenv and scoop keep theirs in a "shims" directory.)
var shimDirs = []string{"/shims/", "/.volta/bin/", "/volta/bin/", "/.proto/bin/", "/proto/bin/", "/.nodenv/bin/"}

func inShimDir(p, goos string) bool {
	p = filepath.ToSlash(p)
	if goos == "windows" {
		p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
		// Volta puts its node.exe shim in its own directory (Program
		// Files\Volta), its real nodes under tools\image; Chocolatey's
		// bin holds shims of what it installed.
		if strings.Contains(p, "/volta/") && !strings.Contains(p, "/tools/image/") || strings.Contains(p, "/chocolatey/bin/") {
			return true
		}
	}
	for _, d := range shimDirs {
		if strings.Contains(p, d) {
			return true
		}
	}
	return false
}

// nativeMagic reports whether the file at p starts as an executable of one
// of the systems node runs on does (ELF, Mach-O, PE): a script is a shim.
func nativeMagic(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	if n, _ := f.Read(b[:]); n < 4 {
		return false
	}
	switch string(b[:]) {
	case "\x7fELF", "\xcf\xfa\xed\xfe", "\xce\xfa\xed\xfe", "\xca\xfe\xba\xbe", "\xfe\xed\xfa\xcf", "\xfe\xed\xfa\xce":
		return true
	}
	return b[0] == 'M' && b[1] == 'Z'
}

// varPrefixes are the prefixes of the variables version managers read.
var varPrefixes = []string{"NVM_", "FNM_", "ASDF_", "MISE_", "RTX_", "VOLTA_", "NODENV_", "PROTO_", "NODE_VERSION", "N_PREFIX"}

// homeVars are the variables whose directories the managers read from.
var homeVars = []string{"HOME", "USERPROFILE", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "LOCALAPPDATA", "APPDATA"}

// managerVars returns the variables of env that version managers read, as
// sorted NAME=value lines.
func managerVars(env []string, goos string) []string {
	var out []string
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		n := name
		if goos == "windows" {
			n = strings.ToUpper(n)
		}
		keep := slices.Contains(homeVars, n)
		for _, p := range varPrefixes {
			keep = keep || strings.HasPrefix(n, p)
		}
		if keep {
			v, _ := exec.LookupEnv(env, name, goos) // the last of duplicates
			out = append(out, n+"="+v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// pinsOf returns the pin files of dir and of the directories above it, as
// a text that holds each file's name, content and level (0: dir).
func (f *Finder) pinsOf(dir string, env []string) string {
	names := extraPinNames(env, f.goos())
	var b strings.Builder
	level := 0
	for d := filepath.Clean(dir); ; level++ {
		b.WriteString(strconv.Itoa(level))
		b.WriteByte('\x00')
		b.WriteString(f.dirPins(d, names))
		parent := filepath.Dir(d)
		if parent == d || d == "" || d == "." {
			break
		}
		d = parent
	}
	return b.String()
}

// extraPinNames returns the pin file names that env's variables give
// (asdf's and mise's default file names, mise's environment's files).
func extraPinNames(env []string, goos string) []string {
	var names []string
	for _, v := range []string{"ASDF_DEFAULT_TOOL_VERSIONS_FILENAME", "MISE_DEFAULT_TOOL_VERSIONS_FILENAME", "MISE_DEFAULT_CONFIG_FILENAME", "RTX_DEFAULT_TOOL_VERSIONS_FILENAME", "RTX_DEFAULT_CONFIG_FILENAME"} {
		if n, ok := exec.LookupEnv(env, v, goos); ok && n != "" && !strings.ContainsAny(n, `/\`) {
			names = append(names, n)
		}
	}
	return names
}

// dirPins returns the pin files directly in d (by name and content), once
// per directory and name list.
func (f *Finder) dirPins(d string, extra []string) string {
	key := d + "\x00" + strings.Join(extra, "\x00")
	f.mu.Lock()
	s, ok := f.pins[key]
	f.mu.Unlock()
	if ok {
		return s
	}
	s = readPins(d, extra)
	f.mu.Lock()
	if f.pins == nil {
		f.pins = map[string]string{}
	}
	f.pins[key] = s
	f.mu.Unlock()
	return s
}

// pinNames are the files a version manager reads in a directory to
// choose node's version.
var pinNames = []string{".tool-versions", ".nvmrc", ".node-version", "package.json", ".prototools", ".nodenv-version"}

// isPinName says whether name, an entry of a directory, is one of the
// files version managers read there (mise's and rtx's config files are
// every "mise.*.toml", ".mise.*.toml", ".rtx.*.toml").
func isPinName(name string, extra []string) bool {
	if slices.Contains(pinNames, name) || slices.Contains(extra, name) {
		return true
	}
	for _, p := range []string{"mise.", ".mise.", "rtx.", ".rtx."} {
		if strings.HasPrefix(name, p) && strings.HasSuffix(name, ".toml") {
			return true
		}
	}
	return false
}

// pinSubdirs are the directories under which mise reads config files.
var pinSubdirs = map[string][]string{
	".config": {"mise.toml", "mise/config.toml", "mise/config.local.toml", "mise/mise.toml", "mise/conf.d"},
	".mise":   {"config.toml", "config.local.toml", "mise.toml", "conf.d"},
	"mise":    {"config.toml", "config.local.toml"},
}

func readPins(d string, extra []string) string {
	entries, err := os.ReadDir(d)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, e := range entries {
		name := e.Name()
		if subs, ok := pinSubdirs[name]; ok && e.IsDir() {
			for _, s := range subs {
				writeFile(&b, filepath.Join(d, name, filepath.FromSlash(s)), name+"/"+s)
			}
			continue
		}
		if !isPinName(name, extra) {
			continue
		}
		writeFile(&b, filepath.Join(d, name), name)
	}
	return b.String()
}

// writeFile writes name and what of the file (or directory of files) at p
// can choose a version: package.json's "volta", "engines" and
// "devEngines" (with the file a "volta" "extends" names), any other
// file's content, a directory's files' names and contents.
func writeFile(b *strings.Builder, p, name string) {
	fi, err := os.Stat(p)
	if err != nil {
		return
	}
	b.WriteString(name)
	b.WriteByte('\x00')
	if fi.IsDir() {
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if !e.IsDir() {
				writeFile(b, filepath.Join(p, e.Name()), name+"/"+e.Name())
			}
		}
		return
	}
	data, err := inputfile.Read(p)
	if err != nil {
		b.WriteString("unreadable: " + err.Error())
		b.WriteByte('\x00')
		return
	}
	if filepath.Base(p) == "package.json" {
		var m struct {
			Volta      json.RawMessage `json:"volta"`
			Engines    json.RawMessage `json:"engines"`
			DevEngines json.RawMessage `json:"devEngines"`
		}
		if json.Unmarshal(data, &m) == nil {
			var ext struct {
				Extends string `json:"extends"`
			}
			b.Write(m.Volta)
			b.WriteByte('\x00')
			b.Write(m.Engines)
			b.WriteByte('\x00')
			b.Write(m.DevEngines)
			b.WriteByte('\x00')
			if json.Unmarshal(m.Volta, &ext) == nil && ext.Extends != "" {
				writeFile(b, filepath.Join(filepath.Dir(p), filepath.FromSlash(ext.Extends)), "extends")
			}
			return
		}
	}
	sum := sha256.Sum256(data)
	b.WriteString(hex.EncodeToString(sum[:]))
	b.WriteByte('\x00')
}

// globalOf returns a digest of the managers' global files as vars (the
// managers' variables) place them: default versions, global configs, the
// installed versions.
func (f *Finder) globalOf(vars []string, env []string) string {
	key := strings.Join(vars, "\x00")
	f.mu.Lock()
	s, ok := f.global[key]
	f.mu.Unlock()
	if ok {
		return s
	}
	var b strings.Builder
	for _, p := range globalFiles(env, f.goos()) {
		writeFile(&b, p, p)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t, _ := os.Readlink(p) // fnm's default alias is a link
			b.WriteString("-> " + t + "\x00")
		}
	}
	for _, d := range installDirs(env, f.goos()) {
		if !filepath.IsAbs(d) {
			continue
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		b.WriteString(d + "\x00")
		for _, e := range entries {
			b.WriteString(e.Name() + "\x00")
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	s = hex.EncodeToString(sum[:])
	f.mu.Lock()
	if f.global == nil {
		f.global = map[string]string{}
	}
	f.global[key] = s
	f.mu.Unlock()
	return s
}

// places are the directories env's variables give the managers.
type places struct {
	home, config, data string
	get                func(name string) string
}

func placesOf(env []string, goos string) places {
	get := func(name string) string {
		v, _ := exec.LookupEnv(env, name, goos)
		return v
	}
	p := places{home: get("HOME"), get: get}
	if goos == "windows" && p.home == "" {
		p.home = get("USERPROFILE")
	}
	p.config = get("XDG_CONFIG_HOME")
	if p.config == "" && p.home != "" {
		p.config = filepath.Join(p.home, ".config")
	}
	p.data = get("XDG_DATA_HOME")
	if p.data == "" && p.home != "" {
		p.data = filepath.Join(p.home, ".local", "share")
	}
	return p
}

func or(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// globalFiles returns the files holding the managers' global choices.
func globalFiles(env []string, goos string) []string {
	p := placesOf(env, goos)
	var out []string
	add := func(parts ...string) {
		for _, s := range parts {
			if s == "" {
				return
			}
		}
		if j := filepath.Join(parts...); filepath.IsAbs(j) {
			out = append(out, j)
		}
	}
	add(or(p.get("ASDF_CONFIG_FILE"), filepath.Join(p.home, ".asdfrc")))
	add(p.home, or(p.get("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME"), ".tool-versions"))
	miseConfig := or(p.get("MISE_CONFIG_DIR"), filepath.Join(p.config, "mise"))
	add(miseConfig, "config.toml")
	add(miseConfig, "config.local.toml")
	add(miseConfig, "conf.d")
	add(p.get("MISE_GLOBAL_CONFIG_FILE"))
	add(p.get("MISE_SYSTEM_CONFIG_FILE"))
	if goos != "windows" {
		add("/etc/mise/config.toml")
		add("/etc/mise/conf.d")
	}
	add(p.config, "rtx", "config.toml")
	volta := or(p.get("VOLTA_HOME"), filepath.Join(p.home, ".volta"))
	if goos == "windows" && p.get("VOLTA_HOME") == "" && p.get("LOCALAPPDATA") != "" {
		volta = filepath.Join(p.get("LOCALAPPDATA"), "Volta")
	}
	add(volta, "tools", "user", "platform.json")
	nvm := or(p.get("NVM_DIR"), filepath.Join(p.home, ".nvm"))
	add(nvm, "alias", "default")
	for _, fnm := range fnmDirs(p) {
		add(fnm, "aliases", "default")
	}
	nodenv := or(p.get("NODENV_ROOT"), filepath.Join(p.home, ".nodenv"))
	add(nodenv, "version")
	add(p.home, ".prototools")
	return out
}

func fnmDirs(p places) []string {
	if d := p.get("FNM_DIR"); d != "" {
		return []string{d}
	}
	return []string{filepath.Join(p.data, "fnm"), filepath.Join(p.home, ".fnm")}
}

// installDirs returns the directories listing each manager's installed
// node versions.
func installDirs(env []string, goos string) []string {
	p := placesOf(env, goos)
	if p.home == "" {
		return nil
	}
	dirs := []string{
		filepath.Join(or(p.get("ASDF_DATA_DIR"), filepath.Join(p.home, ".asdf")), "installs", "nodejs"),
		filepath.Join(or(p.get("MISE_DATA_DIR"), filepath.Join(p.data, "mise")), "installs", "node"),
		filepath.Join(or(p.get("VOLTA_HOME"), filepath.Join(p.home, ".volta")), "tools", "image", "node"),
		filepath.Join(or(p.get("NVM_DIR"), filepath.Join(p.home, ".nvm")), "versions", "node"),
		filepath.Join(or(p.get("NODENV_ROOT"), filepath.Join(p.home, ".nodenv")), "versions"),
		filepath.Join(or(p.get("PROTO_HOME"), filepath.Join(p.home, ".proto")), "tools", "node"),
	}
	for _, d := range fnmDirs(p) {
		dirs = append(dirs, filepath.Join(d, "node-versions"))
	}
	return dirs
}
