package exec

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// envFuzzSplit turns one fuzz string into a list: entries separated by '\n'.
func envFuzzSplit(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// envFuzzDefines turns "K=V\nK2=V2" into a Define map (the key is cut at
// the first '=', so a key may be empty or odd: the builder must cope).
func envFuzzDefines(s string) map[string]string {
	m := map[string]string{}
	for _, line := range envFuzzSplit(s) {
		k, v, _ := strings.Cut(line, "=")
		m[k] = v
	}
	return m
}

// envModelCanon is the documented naming rule written plainly: on Windows
// each rune is upper-cased, except that a non-ASCII rune never becomes an
// ASCII one and a byte of invalid UTF-8 stays itself.
func envModelCanon(name string, fold bool) string {
	if !fold {
		return name
	}
	var sb strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			sb.WriteByte(name[i])
		case r < utf8.RuneSelf:
			sb.WriteRune(unicode.ToUpper(r))
		case unicode.ToUpper(r) < utf8.RuneSelf:
			sb.WriteRune(r)
		default:
			sb.WriteRune(unicode.ToUpper(r))
		}
		i += n
	}
	return sb.String()
}

type envModelVar struct{ name, value string }

// envModelRunes is the documented sort rule written plainly: on Windows the
// canonical name's characters, a byte of invalid UTF-8 counting as a
// character past the last code point; elsewhere the bytes.
func envModelRunes(name string, fold bool) []rune {
	var rs []rune
	if !fold {
		for i := 0; i < len(name); i++ {
			rs = append(rs, rune(name[i]))
		}
		return rs
	}
	c := envModelCanon(name, true)
	for i := 0; i < len(c); {
		r, n := utf8.DecodeRuneInString(c[i:])
		if r == utf8.RuneError && n == 1 {
			r = unicode.MaxRune + 1 + rune(c[i])
		}
		rs = append(rs, r)
		i += n
	}
	return rs
}

// envModelCompare orders two names as the result must be ordered.
func envModelCompare(a, b string, fold bool) int {
	return slices.Compare(envModelRunes(a, fold), envModelRunes(b, fold))
}

// envModel states what BuildIsolatedEnv's result must be, name by name,
// without building it in layers: for each variable that some layer could
// set, the highest layer that sets it decides. It shares no code with the
// builder.
func envModel(opts EnvOptions, fold bool) map[string]envModelVar {
	same := func(a, b string) bool { return envModelCanon(a, fold) == envModelCanon(b, fold) }
	// What Source says of a name the allowlist or passThrough holds: its
	// last entry of that name, as Source spells it.
	fromSource := func(name string) (envModelVar, bool) {
		listed := slices.ContainsFunc(EssentialEnv, func(n string) bool { return same(n, name) }) ||
			slices.ContainsFunc(opts.PassThrough, func(n string) bool { return n != "" && same(n, name) })
		for i := len(opts.Source) - 1; listed && i >= 0; i-- {
			n, v, ok := strings.Cut(opts.Source[i], "=")
			if ok && n != "" && same(n, name) {
				return envModelVar{n, v}, true
			}
		}
		return envModelVar{}, false
	}
	// What Define says: of the keys naming it, the one sorting last.
	fromDefine := func(name string) (envModelVar, bool) {
		var best envModelVar
		found := false
		for k, v := range opts.Define {
			if same(k, name) && (!found || k > best.name) {
				best, found = envModelVar{k, v}, true
			}
		}
		return best, found
	}
	var candidates []string
	for _, kv := range opts.Source {
		n, _, _ := strings.Cut(kv, "=")
		candidates = append(candidates, n)
	}
	for k := range opts.Define {
		candidates = append(candidates, k)
	}
	candidates = append(candidates, "PATH")
	var bins []string
	for _, b := range opts.BinPaths {
		if b != "" && checkBinPath(b, fold) == nil { // no relative entry, no list separator
			bins = append(bins, b)
		}
	}
	sep := ":"
	if fold {
		sep = ";"
	}
	vars := map[string]envModelVar{}
	for _, c := range candidates {
		v, ok := fromDefine(c)
		if !ok {
			v, ok = fromSource(c)
		}
		if same(c, "PATH") && len(bins) > 0 {
			if !ok {
				v = envModelVar{"PATH", ""}
			}
			if v.value == "" {
				v.value = strings.Join(bins, sep)
			} else {
				v.value = strings.Join(bins, sep) + sep + v.value
			}
			ok = true
		}
		if ok {
			vars[envModelCanon(c, fold)] = v
		}
	}
	return vars
}

// envCheckSorted fails unless env is strictly sorted by name under the
// naming rules (so each name is there once).
func envCheckSorted(t *testing.T, env []string, fold bool) {
	t.Helper()
	for i := 1; i < len(env); i++ {
		a, _, _ := strings.Cut(env[i-1], "=")
		b, _, _ := strings.Cut(env[i], "=")
		if envModelCompare(a, b, fold) >= 0 {
			t.Fatalf("entries %d and %d out of order or repeated: %q, %q", i-1, i, env[i-1], env[i])
		}
	}
}

func FuzzBuildIsolatedEnv(f *testing.F) {
	f.Add("PATH=/bin\nHOME=/h\nGITHUB_TOKEN=x\nFOO=1", "FOO\nBAR", "BAZ=2", "/p\n/r", false)
	f.Add("Path=C:\\W\nwindir=C:\\W\nfoo=1\n=C:=C:\\", "FOO", "path=D:\\", "C:\\b", true)
	f.Add("PATH=\nA=\nA=2", "A\nA\n", "", "\n", false)
	f.Add("été=1\nCı=2\nſHELL=3", "ÉTÉ\nCI", "\xff=x", "b", true)
	f.Fuzz(func(t *testing.T, source, passThrough, define, bins string, windows bool) {
		goos := "linux"
		if windows {
			goos = "windows"
		}
		opts := EnvOptions{
			Source:      envFuzzSplit(source),
			PassThrough: envFuzzSplit(passThrough),
			Define:      envFuzzDefines(define),
			BinPaths:    envFuzzSplit(bins),
			GOOS:        goos,
		}
		canon := func(s string) string { return envModelCanon(s, windows) }
		got := buildEnv(opts).sorted()

		envCheckSorted(t, got, windows)

		// Every key is an essential, a passThrough name, a define key or
		// PATH; a key not defined (nor PATH grown by bins) carries the
		// last value the source has for it, never an invented NAME=.
		allowed := map[string]bool{canon("PATH"): true}
		for _, n := range slices.Concat(EssentialEnv, opts.PassThrough) {
			allowed[canon(n)] = true
		}
		defined := map[string]bool{}
		for k := range opts.Define {
			defined[canon(k)] = true
		}
		binned := slices.ContainsFunc(opts.BinPaths, func(b string) bool { return b != "" && checkBinPath(b, windows) == nil })
		for _, kv := range got {
			name, value, ok := strings.Cut(kv, "=")
			if !ok {
				t.Fatalf("entry %q has no '='", kv)
			}
			c := canon(name)
			if !allowed[c] && !defined[c] {
				t.Errorf("entry %q: not an essential, passThrough name, define or PATH", kv)
			}
			if defined[c] || binned && c == canon("PATH") {
				continue
			}
			if v, ok := LookupEnv(opts.Source, name, goos); !ok || v != value {
				t.Errorf("entry %q: source has %q, %v", kv, v, ok)
			}
		}

		// The whole result equals the plain model, spelling included.
		var want []string
		for _, v := range envModel(opts, windows) {
			want = append(want, v.name+"="+v.value)
		}
		want = envModelSort(want, windows)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("buildEnv().sorted() mismatch with model (-want +got):\n%s", diff)
		}

		// TaskEnviron: the model plus the task variables, the empty
		// package version leaving npm_package_version out.
		vars := TaskVars{Workspace: "/w", ID: "p#t", Event: "build", Script: bins, PackageName: "p", PackageJSON: "/w/p"}
		m := envModel(opts, windows)
		delete(m, canon("npm_package_version"))
		for _, v := range []envModelVar{
			{WorkspaceEnv, "/w"}, {TaskEnv, "p#t"}, {"npm_lifecycle_event", "build"},
			{"npm_lifecycle_script", bins}, {"npm_package_name", "p"}, {"npm_package_json", "/w/p"},
		} {
			m[canon(v.name)] = v
		}
		want = want[:0]
		for _, v := range m {
			want = append(want, v.name+"="+v.value)
		}
		want = envModelSort(want, windows)
		if diff := cmp.Diff(want, TaskEnviron(opts, vars)); diff != "" {
			t.Errorf("TaskEnviron() mismatch with model (-want +got):\n%s", diff)
		}
	})
}

// envModelSort sorts entries by name as BuildIsolatedEnv documents it.
func envModelSort(env []string, fold bool) []string {
	if env == nil {
		env = []string{}
	}
	slices.SortFunc(env, func(a, b string) int {
		ka, _, _ := strings.Cut(a, "=")
		kb, _, _ := strings.Cut(b, "=")
		return envModelCompare(ka, kb, fold)
	})
	return env
}

// FuzzEnvNameKey checks EnvNameKey against the plain statement of the
// Windows naming rule: equal keys for one variable, keys in the documented
// order otherwise, and a prefix's key a prefix of the name's key.
func FuzzEnvNameKey(f *testing.F) {
	for _, p := range [][2]string{
		{"Path", "PATH"}, {"windir", "WINDIR"}, {"été", "ÉTÉ"}, {"ı", "I"}, {"ſ", "s"},
		{"\xc3", "Ã"}, {"a\xff", "A\xff"}, {"PATH_X", "PATHEXT"}, {"ᲀ", "В"}, {"", "x"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := EnvNameKey(a, "windows"), EnvNameKey(b, "windows")
		if got, want := strings.Compare(ka, kb), envModelCompare(a, b, true); got != want {
			t.Errorf("%q vs %q: keys %q, %q compare %d, the rule says %d", a, b, ka, kb, got, want)
		}
		if (ka == kb) != (envModelCanon(a, true) == envModelCanon(b, true)) {
			t.Errorf("%q vs %q: keys equal %v, rule disagrees", a, b, ka == kb)
		}
		if strings.HasPrefix(envModelCanon(a, true), envModelCanon(b, true)) && utf8.ValidString(b) && !strings.HasPrefix(ka, kb) {
			t.Errorf("%q starts with %q under the rule, but key %q does not start with %q", a, b, ka, kb)
		}
		if EnvNameKey(a, "linux") != a {
			t.Errorf("EnvNameKey(%q, linux) = %q", a, EnvNameKey(a, "linux"))
		}
	})
}
