package exec

import (
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WorkspaceEnv names the variable vx sets on every task to the absolute path
// of the workspace root. A vx started inside a task reads it to detect a
// nested run.
const WorkspaceEnv = "VX_RUN_WORKSPACE"

// TaskEnv names the variable vx sets on every task to the task's id,
// "<project>#<task>".
const TaskEnv = "VX_RUN_TASK"

// EssentialEnv is the fixed allowlist of variables every task receives from
// the parent environment when the parent has them: the POSIX essentials
// first, then the Windows ones. It is part of the isolation policy, not a
// setting: vx never reads a configuration that widens or narrows it, and the
// builder works from its own copy, so modifying this slice changes nothing.
// A project that needs more declares it with
// passThrough; one that needs less overrides it with a define.
//
// The names are spelled in capitals. On Windows they match the parent's
// variables whatever their case, so "Path", "SystemRoot", "ComSpec" and
// "windir" are found.
var EssentialEnv = []string{
	// POSIX
	"PATH", "HOME", "SHELL", "USER", "LOGNAME", "TMPDIR", "TEMP", "TMP",
	"LANG", "LC_ALL", "LC_CTYPE", "TERM", "COLORTERM", "FORCE_COLOR",
	"NO_COLOR", "CI", "NODE_OPTIONS",
	// Windows
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
	"PROGRAMFILES(X86)", "COMSPEC", "PATHEXT", "SYSTEMDRIVE", "WINDIR",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "NUMBER_OF_PROCESSORS",
	"PROCESSOR_ARCHITECTURE",
}

// EnvOptions describes one task's environment for [BuildIsolatedEnv].
type EnvOptions struct {
	// Source is the parent environment as KEY=VALUE entries (cmd/vx passes
	// os.Environ()). When a name occurs more than once the last occurrence
	// wins. Entries without '=' and entries with an empty name (Windows'
	// per-drive "=C:=C:\dir" entries) are ignored.
	Source []string

	// PassThrough lists exact variable names copied from Source when Source
	// has them. Patterns such as "PREFIX_*" are expanded by the config layer
	// before they reach this package.
	PassThrough []string

	// Define holds literal NAME -> value pairs. They override the
	// essentials and the passThrough names, PATH included.
	Define map[string]string

	// BinPaths are directories put in front of PATH, in the given order,
	// after Define is applied. Empty entries are skipped.
	BinPaths []string

	// GOOS selects the naming rules: "" means runtime.GOOS; "windows" means
	// case-insensitive names and ';' as the PATH list separator; any other
	// value means case-sensitive names and ':'.
	GOOS string
}

// BuildIsolatedEnv returns the environment of a child process: a sorted list
// of KEY=VALUE entries, each name once, ready for the Env field of
// [os/exec.Cmd].
//
// It applies four layers, each one overriding the ones before it:
//
//  1. every name of [EssentialEnv] that opts.Source has;
//  2. every name of opts.PassThrough that opts.Source has (a name set to the
//     empty string is passed as empty; a name Source lacks is left out, never
//     passed as NAME=);
//  3. opts.Define, literally, PATH included;
//  4. opts.BinPaths, joined with the list separator and put in front of the
//     PATH the first three layers produced. If that PATH is missing or
//     empty, PATH becomes just the bins.
//
// Nothing else of Source reaches the result. Values are never altered, and
// names are not validated (the config layer does that).
//
// On Windows (opts.GOOS) names are compared case-insensitively, as Windows
// compares them: each rune mapped with [unicode.ToUpper], except that a
// non-ASCII rune never equals an ASCII one ("ı" is not "I"). So Source's
// "Path" is the essential PATH and a passThrough "foo" copies Source's
// "FOO". When layers name the same variable with different spellings, the
// result keeps the spelling of the highest layer that set it (layers 1 and 2
// copy Source's entry as it is), except that the bins layer keeps the
// spelling of the PATH entry it extends, or writes "PATH" when there is none. If Define holds two spellings of one name,
// the spelling that sorts last byte-wise wins. The result is sorted the way
// CreateProcess expects the environment block: by name, case-insensitively
// (upper-cased), in code point order. On other systems names are compared
// and sorted byte-wise.
func BuildIsolatedEnv(opts EnvOptions) []string {
	var b envBuilder
	b.build(&opts, 0)
	return b.finish()
}

// TaskVars are the variables vx sets on every task, over everything
// [BuildIsolatedEnv] produced.
type TaskVars struct {
	Workspace      string // VX_RUN_WORKSPACE: absolute workspace root
	ID             string // VX_RUN_TASK: "<project>#<task>"
	Event          string // npm_lifecycle_event: the script name
	Script         string // npm_lifecycle_script: the script body
	PackageName    string // npm_package_name; left out when empty (unset is not empty)
	PackageVersion string // npm_package_version; left out when empty
	PackageJSON    string // npm_package_json: absolute path of the project's package.json
	Dir            string // PWD: the task's working directory, absolute, as vx reached it (symlinks kept); left out when empty
}

// TaskEnviron returns [BuildIsolatedEnv](opts) with the [TaskVars] set over
// it, sorted as BuildIsolatedEnv sorts.
//
// Each task variable replaces any entry of the same name, whatever its
// spelling on Windows, and is spelled as vx spells it (VX_RUN_WORKSPACE,
// VX_RUN_TASK, npm_lifecycle_event, npm_lifecycle_script, npm_package_name,
// npm_package_version, npm_package_json, PWD). VX_RUN_*, npm_lifecycle_* and
// npm_package_json are always set, even to the empty string. An empty
// PackageName or PackageVersion means the package.json has no such field:
// the variable is then absent from the result, even if a passThrough name or
// a define supplied it, because vx owns these names and a value from the
// parent would describe another package.
//
// PWD is set because os/exec adds it only when Cmd.Env is nil: without it a
// shell takes the physical directory, and a project linked into the
// workspace would see a path outside the workspace.
func TaskEnviron(opts EnvOptions, v TaskVars) []string {
	var b envBuilder
	b.build(&opts, 8)
	b.set(WorkspaceEnv, v.Workspace, true)
	b.set(TaskEnv, v.ID, true)
	b.set("npm_lifecycle_event", v.Event, true)
	b.set("npm_lifecycle_script", v.Script, true)
	b.set("npm_package_name", v.PackageName, v.PackageName != "")
	b.set("npm_package_version", v.PackageVersion, v.PackageVersion != "")
	b.set("npm_package_json", v.PackageJSON, true)
	b.set("PWD", v.Dir, v.Dir != "")
	return b.finish()
}

// LookupEnv returns the value of the variable name in env, a list of
// KEY=VALUE entries, and whether it is there. The last occurrence wins, as
// it does for a child process. On Windows (goos "windows", or "" on a
// Windows host) names are compared case-insensitively, by the rule
// [BuildIsolatedEnv] uses. Entries without '=' or with an empty name are
// ignored, so an empty name is never found.
func LookupEnv(env []string, name, goos string) (string, bool) {
	if name == "" {
		return "", false
	}
	fold := envIsWindows(goos)
	for i := len(env) - 1; i >= 0; i-- {
		kv := env[i]
		n := strings.IndexByte(kv, '=')
		if n <= 0 {
			continue
		}
		if envSameName(kv[:n], name, fold) {
			return kv[n+1:], true
		}
	}
	return "", false
}

// envIsWindows reports whether goos selects the Windows naming rules.
func envIsWindows(goos string) bool {
	if goos == "" {
		goos = runtime.GOOS
	}
	return goos == "windows"
}

// envListSep returns the PATH list separator of goos.
func envListSep(windows bool) string {
	if windows {
		return ";"
	}
	return ":"
}

// EnvNameKey returns the key under which goos identifies the variable
// name: on Windows its upper-cased form by the rule [BuildIsolatedEnv]
// applies (a non-ASCII letter never becomes an ASCII one; invalid UTF-8
// stands for itself), elsewhere name unchanged. Two names denote one
// variable exactly when their keys are equal, and a name starts with a
// prefix under goos's rule exactly when its key starts with the prefix's
// key. "" means runtime.GOOS.
func EnvNameKey(name, goos string) string {
	if !envIsWindows(goos) {
		return name
	}
	k, _ := envFoldKey(make([]byte, 0, len(name)), name, math.MaxInt)
	return string(k)
}

// envSameName reports whether a and b name the same variable.
func envSameName(a, b string, fold bool) bool {
	if !fold {
		return a == b
	}
	return envCompareFold(a, b) == 0
}

// envCompareFold compares a and b as Windows compares variable names: each
// rune upper-cased by envUpperRune, in code point order. ASCII takes a fast
// path.
func envCompareFold(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) {
		ca, cb := a[i], b[i]
		if ca|cb < utf8.RuneSelf {
			if 'a' <= ca && ca <= 'z' {
				ca -= 'a' - 'A'
			}
			if 'a' <= cb && cb <= 'z' {
				cb -= 'a' - 'A'
			}
			if ca != cb {
				return int(ca) - int(cb)
			}
			i++
			continue
		}
		return envCompareFoldSlow(a[i:], b[i:])
	}
	return (len(a) - i) - (len(b) - i)
}

func envCompareFoldSlow(a, b string) int {
	for a != "" && b != "" {
		ra, na := envUpperRune(a)
		rb, nb := envUpperRune(b)
		if ra != rb {
			return int(ra) - int(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) - len(b)
}

// envUpperRune decodes the first rune of s and upper-cases it with
// [unicode.ToUpper], except that a non-ASCII rune never becomes an ASCII one
// (Windows does not equate "ı" with "I" nor "ſ" with "S"), so only ASCII
// names match ASCII names. A byte that does not start valid UTF-8 stands for
// itself: it decodes to a value past the last code point, so no two distinct
// invalid bytes, nor an invalid byte and a rune, compare equal.
func envUpperRune(s string) (rune, int) {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n == 1 {
		return unicode.MaxRune + 1 + rune(s[0]), 1
	}
	if u := unicode.ToUpper(r); u >= utf8.RuneSelf || r < utf8.RuneSelf {
		return u, n
	}
	return r, n // ı and ſ do not become I and S
}

// envFoldKey appends the upper-cased form of name to dst: the key under
// which Windows names are looked up; two names have the same key exactly
// when envCompareFold finds them equal. It gives up and returns nil, false
// once the key grows past max bytes.
func envFoldKey(dst []byte, name string, max int) ([]byte, bool) {
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
		} else if r, n := envUpperRune(name[i:]); r > unicode.MaxRune {
			dst = append(dst, name[i]) // invalid UTF-8 kept as is
			i++
		} else {
			dst = utf8.AppendRune(dst, r)
			i += n
		}
		if len(dst) > max {
			return nil, false
		}
	}
	return dst, true
}

// envEssentialIndex maps each essential name (already upper case, so the
// same under both naming rules) to its index in EssentialEnv. It is built
// from a private copy so a caller who modifies EssentialEnv changes nothing.
var (
	envEssentialNames = slices.Clone(EssentialEnv)
	envEssentialIndex = func() map[string]int {
		m := make(map[string]int, len(envEssentialNames))
		for i, n := range envEssentialNames {
			m[n] = i
		}
		return m
	}()
	envEssentialMaxLen = func() int {
		m := 0
		for _, n := range envEssentialNames {
			m = max(m, len(n))
		}
		return m
	}()
)

// envEssFirst[c] has bit l set when an essential of length l starts with
// the byte c; envEssByFirst[c] lists those essentials' indexes. They let the
// source pass reject most names after two loads, without hashing.
var envEssFirst, envEssByFirst = func() (first [utf8.RuneSelf]uint64, by [utf8.RuneSelf][]uint8) {
	for i, n := range envEssentialNames {
		first[n[0]] |= 1 << len(n)
		by[n[0]] = append(by[n[0]], uint8(i))
	}
	return first, by
}()

// envPathSlot is PATH's index in envEssentialNames.
const envPathSlot = 0

const envNumEssential = 32

// envKV is one result entry: "KEY=VALUE" and the length of KEY.
type envKV struct {
	s string
	n int
}

func (e envKV) key() string { return e.s[:e.n] }

func (e envKV) value() string { return e.s[e.n+1:] }

// envBuilder holds the entries of one environment being built.
type envBuilder struct {
	fold bool
	out  []envKV
}

// envSlots finds the slot of a name: each essential, then each distinct
// passThrough name, has one. pos maps a slot to its entry in out, or -1.
type envSlots struct {
	fold      bool
	ptKeys    []string // key of each passThrough slot (upper-cased on Windows)
	ptMap     map[string]int32
	ptLenMask uint64    // bit min(len(key), 63) of each passThrough key
	ptFirst   [4]uint64 // bit b set when a passThrough key starts with byte b
	ptASCII   bool      // every passThrough key is ASCII
	maxLen    int       // longest key
	pos       []int32
	defStart  int // entries from here on were added by defines
}

// envLenBit is the bit of a name of length n in a length mask.
func envLenBit(n int) uint64 { return 1 << min(n, 63) }

// envUpperASCII upper-cases an ASCII letter and returns other bytes as is.
func envUpperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// envEqualUpperASCII reports whether name, upper-cased, is key, an ASCII
// upper-case key of the same length. A non-ASCII name is never equal.
func envEqualUpperASCII(name, key string) bool {
	for i := 0; i < len(key); i++ {
		if envUpperASCII(name[i]) != key[i] {
			return false
		}
	}
	return true
}

// find returns the slot of a name from Source, or -1. Its fast path relies
// on the keys being ASCII (the essentials always are): then only an ASCII
// name can match, and its key has its length and its upper-cased first byte.
func (t *envSlots) find(name string, kbuf *[64]byte) int32 {
	n := len(name)
	if t.fold && !t.ptASCII {
		if n > 4*t.maxLen {
			return -1 // too long even if every rune shrank
		}
		k, ok := envFoldKey(kbuf[:0], name, t.maxLen)
		if !ok {
			return -1
		}
		return t.slotBytes(k)
	}
	if n > t.maxLen {
		return -1
	}
	c := name[0]
	if t.fold {
		c = envUpperASCII(c)
	}
	if c < utf8.RuneSelf && envEssFirst[c]&envLenBit(n) != 0 {
		for _, e := range envEssByFirst[c] {
			k := envEssentialNames[e]
			if len(k) == n && (name == k || t.fold && envEqualUpperASCII(name, k)) {
				return int32(e)
			}
		}
	}
	if t.ptLenMask&envLenBit(n) == 0 {
		return -1
	}
	if t.ptMap == nil {
		for j, pk := range t.ptKeys {
			if len(pk) == n && (name == pk || t.fold && envEqualUpperASCII(name, pk)) {
				return int32(envNumEssential + j)
			}
		}
		return -1
	}
	if !t.fold {
		if s, ok := t.ptMap[name]; ok {
			return s
		}
		return -1
	}
	k, ok := envFoldKey(kbuf[:0], name, t.maxLen)
	if !ok {
		return -1
	}
	if s, ok := t.ptMap[string(k)]; ok {
		return s
	}
	return -1
}

// slot returns the slot of key (upper-cased on Windows), or -1.
func (t *envSlots) slot(key string) int32 {
	if s, ok := envEssentialIndex[key]; ok {
		return int32(s)
	}
	if t.ptMap != nil {
		if s, ok := t.ptMap[key]; ok {
			return s
		}
		return -1
	}
	for j, pk := range t.ptKeys {
		if pk == key {
			return int32(envNumEssential + j)
		}
	}
	return -1
}

// Small passThrough lists are matched by a linear scan; longer ones get a
// map keyed on the passThrough names (never on the source's names).
const envPassThroughScanMax = 12

// build applies the four layers of BuildIsolatedEnv to b.out, leaving room
// for extra more entries.
func (b *envBuilder) build(opts *EnvOptions, extra int) {
	fold := envIsWindows(opts.GOOS)
	b.fold = fold
	t := envSlots{fold: fold, ptASCII: true, maxLen: envEssentialMaxLen}
	var posBuf [envNumEssential + envPassThroughScanMax]int32
	var kbuf [64]byte

	// Slots: essentials first, then each passThrough name that is neither
	// an essential nor a repeat of an earlier one under the naming rules.
	nslots := envNumEssential
	if len(opts.PassThrough) > 0 {
		t.ptKeys = make([]string, 0, len(opts.PassThrough))
		if len(opts.PassThrough) > envPassThroughScanMax {
			t.ptMap = make(map[string]int32, len(opts.PassThrough))
		}
		for _, name := range opts.PassThrough {
			if name == "" {
				continue
			}
			key := name
			if fold {
				if k, _ := envFoldKey(kbuf[:0], name, math.MaxInt); string(k) != name {
					key = string(k)
				}
			}
			if t.slot(key) >= 0 {
				continue
			}
			if t.ptMap != nil {
				t.ptMap[key] = int32(nslots)
			}
			t.ptKeys = append(t.ptKeys, key)
			nslots++
			t.maxLen = max(t.maxLen, len(key))
			t.ptLenMask |= envLenBit(len(key))
			t.ptFirst[key[0]>>6] |= 1 << (key[0] & 63)
			for i := 0; i < len(key); i++ {
				if key[i] >= utf8.RuneSelf {
					t.ptASCII = false
				}
			}
		}
	}
	src := posBuf[:0]
	if nslots > len(posBuf) {
		src = make([]int32, 0, nslots)
	}
	for range nslots {
		src = append(src, -1)
	}

	// One pass over Source: find the slot of each entry's name, if any; a
	// later occurrence overwrites an earlier one. Only the allowlist and
	// passThrough names are looked up by key, never the source's names.
	slow := fold && !t.ptASCII
	scan := t.maxLen + 1 // a name can match only if '=' is within scan bytes
	if slow {
		scan = 4*t.maxLen + 1 // runes may shrink when upper-cased
	}
	for i, kv := range opts.Source {
		if kv == "" {
			continue
		}
		if !slow {
			// Most names fail here: no key starts with their
			// first byte (upper-cased on Windows; a non-ASCII one
			// never matches an ASCII key).
			c := kv[0]
			if fold {
				c = envUpperASCII(c)
			}
			if (c >= utf8.RuneSelf || envEssFirst[c] == 0) && t.ptFirst[c>>6]&(1<<(c&63)) == 0 {
				continue
			}
		}
		n := strings.IndexByte(kv[:min(len(kv), scan)], '=')
		if n <= 0 {
			continue // no name, or too long to match
		}
		if s := t.find(kv[:n], &kbuf); s >= 0 {
			src[s] = int32(i)
		}
	}

	// Layers 1 and 2: the entries found, as Source has them. src becomes
	// pos (slot -> entry in out).
	found := 0
	for _, x := range src {
		if x >= 0 {
			found++
		}
	}
	b.out = make([]envKV, 0, found+len(opts.Define)+1+extra)
	for s, x := range src {
		if x < 0 {
			continue
		}
		kv := opts.Source[x]
		src[s] = int32(len(b.out))
		b.out = append(b.out, envKV{s: kv, n: strings.IndexByte(kv, '=')})
	}
	t.pos = src

	// Layer 3: defines, in byte-wise order of their names, so that of two
	// spellings of one Windows name the one sorting last wins.
	if len(opts.Define) > 0 {
		t.defStart = len(b.out)
		keys := make([]string, 0, len(opts.Define))
		for k := range opts.Define {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.define(&t, k, opts.Define[k], kbuf[:0])
		}
	}

	// Layer 4: bins in front of PATH.
	b.prependBins(&t, opts.BinPaths)
}

// slotBytes is slot for a key held in a byte slice.
func (t *envSlots) slotBytes(key []byte) int32 {
	if s, ok := envEssentialIndex[string(key)]; ok {
		return int32(s)
	}
	if t.ptMap != nil {
		if s, ok := t.ptMap[string(key)]; ok {
			return s
		}
		return -1
	}
	for j, pk := range t.ptKeys {
		if pk == string(key) {
			return int32(envNumEssential + j)
		}
	}
	return -1
}

// define sets name=value over the entries so far.
func (b *envBuilder) define(t *envSlots, name, value string, kbuf []byte) {
	key := name
	if b.fold {
		k, _ := envFoldKey(kbuf, name, math.MaxInt)
		key = string(k)
	}
	e := envKV{s: name + "=" + value, n: len(name)}
	if s := t.slot(key); s >= 0 {
		if p := t.pos[s]; p >= 0 {
			b.out[p] = e
			return
		}
		t.pos[s] = int32(len(b.out))
		b.out = append(b.out, e)
		return
	}
	// Neither an essential nor a passThrough name: it can only collide
	// with an earlier define spelled differently (Windows).
	if b.fold {
		for i := t.defStart; i < len(b.out); i++ {
			if envSameName(b.out[i].key(), name, true) {
				b.out[i] = e
				return
			}
		}
	}
	b.out = append(b.out, e)
}

// prependBins puts the non-empty bins, in order, in front of PATH.
func (b *envBuilder) prependBins(t *envSlots, bins []string) {
	sep := envListSep(b.fold)
	size, count := 0, 0
	for _, d := range bins {
		if d != "" {
			size += len(d) + len(sep)
			count++
		}
	}
	if count == 0 {
		return
	}
	p := t.pos[envPathSlot]
	name, old := "PATH", ""
	if p >= 0 {
		name, old = b.out[p].key(), b.out[p].value()
	}
	var sb strings.Builder
	sb.Grow(len(name) + 1 + size + len(old))
	sb.WriteString(name)
	sb.WriteByte('=')
	i := 0
	for _, d := range bins {
		if d == "" {
			continue
		}
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(d)
		i++
	}
	if old != "" {
		sb.WriteString(sep)
		sb.WriteString(old)
	}
	e := envKV{s: sb.String(), n: len(name)}
	if p >= 0 {
		b.out[p] = e
		return
	}
	t.pos[envPathSlot] = int32(len(b.out))
	b.out = append(b.out, e)
}

// set replaces any entry named name (under the naming rules) with
// name=value, or removes it when present is false.
func (b *envBuilder) set(name, value string, present bool) {
	for i := range b.out {
		if envSameName(b.out[i].key(), name, b.fold) {
			if present {
				b.out[i] = envKV{s: name + "=" + value, n: len(name)}
			} else {
				b.out = slices.Delete(b.out, i, i+1)
			}
			return
		}
	}
	if present {
		b.out = append(b.out, envKV{s: name + "=" + value, n: len(name)})
	}
}

// finish sorts the entries by name and returns them as strings.
func (b *envBuilder) finish() []string {
	// Sort indexes rather than the entries: moving small integers is
	// cheaper than moving strings, which costs write barriers.
	var buf [64]int32
	idx := buf[:0]
	if len(b.out) > len(buf) {
		idx = make([]int32, 0, len(b.out))
	}
	for i := range b.out {
		idx = append(idx, int32(i))
	}
	out := b.out
	if b.fold {
		slices.SortFunc(idx, func(x, y int32) int {
			kx, ky := out[x].key(), out[y].key()
			if c := envCompareFold(kx, ky); c != 0 {
				return c
			}
			return strings.Compare(kx, ky)
		})
	} else {
		slices.SortFunc(idx, func(x, y int32) int {
			return strings.Compare(out[x].key(), out[y].key())
		})
	}
	res := make([]string, len(idx))
	for i, x := range idx {
		res[i] = out[x].s
	}
	return res
}
