package exec

import (
	"slices"
	"sort"
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

// envModel computes BuildIsolatedEnv's result the slow, obvious way: one map
// keyed on canonical names, the layers applied one after the other.
func envModel(opts EnvOptions, fold bool) map[string]envModelVar {
	canon := func(s string) string { return envModelCanon(s, fold) }
	vars := map[string]envModelVar{}
	wanted := map[string]bool{}
	for _, n := range slices.Concat(EssentialEnv, opts.PassThrough) {
		if n != "" {
			wanted[canon(n)] = true
		}
	}
	for _, kv := range opts.Source { // last occurrence wins
		name, value, ok := strings.Cut(kv, "=")
		if ok && name != "" && wanted[canon(name)] {
			vars[canon(name)] = envModelVar{name, value}
		}
	}
	keys := make([]string, 0, len(opts.Define))
	for k := range opts.Define {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		vars[canon(k)] = envModelVar{k, opts.Define[k]}
	}
	var bins []string
	for _, b := range opts.BinPaths {
		if b != "" {
			bins = append(bins, b)
		}
	}
	if len(bins) > 0 {
		sep := ":"
		if fold {
			sep = ";"
		}
		p, ok := vars[canon("PATH")]
		if !ok {
			p.name = "PATH"
		}
		if p.value == "" {
			p.value = strings.Join(bins, sep)
		} else {
			p.value = strings.Join(bins, sep) + sep + p.value
		}
		vars[canon("PATH")] = p
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
		c := strings.Compare(a, b)
		if fold {
			c = envCompareFold(a, b)
		}
		if c >= 0 {
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
		got := BuildIsolatedEnv(opts)

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
		binned := slices.ContainsFunc(opts.BinPaths, func(b string) bool { return b != "" })
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
			t.Errorf("BuildIsolatedEnv() mismatch with model (-want +got):\n%s", diff)
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
		if fold {
			if c := envCompareFold(ka, kb); c != 0 {
				return c
			}
		}
		return strings.Compare(ka, kb)
	})
	return env
}

// FuzzEnvNameFold checks that the three forms of the Windows naming rule
// agree: the lookup key, the comparison, and the plain model.
func FuzzEnvNameFold(f *testing.F) {
	for _, p := range [][2]string{
		{"Path", "PATH"}, {"windir", "WINDIR"}, {"été", "ÉTÉ"}, {"ı", "I"}, {"ſ", "s"},
		{"\xc3", "Ã"}, {"a\xff", "A\xff"}, {"PATH_X", "PATHEXT"}, {"ᲀ", "В"}, {"", "x"},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, _ := envFoldKey(nil, a, len(a)*4+4)
		kb, _ := envFoldKey(nil, b, len(b)*4+4)
		keyEq := string(ka) == string(kb)
		modelEq := envModelCanon(a, true) == envModelCanon(b, true)
		c, back := envCompareFold(a, b), envCompareFold(b, a)
		if keyEq != modelEq || (c == 0) != modelEq {
			t.Errorf("%q vs %q: key equal %v, model equal %v, envCompareFold %d", a, b, keyEq, modelEq, c)
		}
		if envSign(c) != -envSign(back) {
			t.Errorf("envCompareFold(%q, %q) = %d but envCompareFold(%q, %q) = %d", a, b, c, b, a, back)
		}
		if string(ka) != envModelCanon(a, true) {
			t.Errorf("envFoldKey(%q) = %q, model %q", a, ka, envModelCanon(a, true))
		}
	})
}
