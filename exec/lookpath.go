package exec

import (
	"io/fs"
	osexec "os/exec"
	"path"
	"runtime"
	"strings"
)

// defaultPathExt is the extension list LookPath uses on Windows when the
// child's PATHEXT is unset or empty, the same default cmd.exe has.
const defaultPathExt = ".COM;.EXE;.BAT;.CMD"

// LookPath finds the program file as the child whose environment is env
// would find it, not as vx would: the directories are those of the PATH
// variable in env, not of vx's own PATH. Use it for every program vx starts
// with a custom environment; [os/exec.LookPath] reads vx's PATH instead.
//
// A name holding a path separator ("/" on Unix; "\", "/" or ":" on Windows)
// is not searched for: it is checked as given, relative to vx's working
// directory. Otherwise each PATH entry is tried in order and the first match
// wins. A directory of that name is skipped, and so, on Unix, is a file
// without execute permission.
//
// A relative PATH entry (".", "bin" or an empty entry, which means ".") is
// refused, as [os/exec.LookPath] refuses it: when the first match is in such
// an entry, LookPath returns that path together with an error wrapping
// [os/exec.ErrDot] rather than searching on, so that which program would
// have run is never silently changed. The current directory is never
// searched implicitly, not even on Windows.
//
// Windows: variable names in env are matched case-insensitively (Path, PATH
// and path are one variable; the last one in env wins), and so are file
// names. A name without an extension from PATHEXT is tried with each
// extension of PATHEXT in order (the child's PATHEXT, or ".COM;.EXE;.BAT;.CMD"
// when it is unset or empty), so "tsc" finds "node_modules\.bin\tsc.cmd"; a
// name that has one is first tried as it is. Entries of Path may be quoted.
// Extensions are returned in lower case.
//
// Errors are [*os/exec.Error] values naming file and wrapping
// [os/exec.ErrNotFound], [os/exec.ErrDot] or, for a file named with a path
// that exists but may not be run, [io/fs.ErrPermission], so errors.Is works.
func LookPath(file string, env []string) (string, error) {
	return lookPath(file, "", env, runtime.GOOS, isExecutable)
}

// lookPath is the pure core of LookPath. goos selects the rules; isExec
// reports whether the file at a path may be run (nil), or why not. A name
// with a separator is resolved against dir when dir is not empty and the
// name is relative.
func lookPath(file, dir string, env []string, goos string, isExec func(string) error) (string, error) {
	win := goos == "windows"
	if file == "" {
		return "", &osexec.Error{Name: file, Err: osexec.ErrNotFound}
	}
	var exts []string
	if win {
		exts = lpPathExt(lpGetenv(env, "PATHEXT", true))
	}
	if lpHasSeparator(file, win) {
		p := file
		if dir != "" && !lpIsAbs(p, win) {
			p = lpJoin(dir, file, win)
		}
		found, err := lpFind(p, exts, win, isExec)
		if err != nil {
			return "", &osexec.Error{Name: file, Err: err}
		}
		return found, nil
	}
	for _, entry := range lpSplitList(lpGetenv(env, "PATH", win), win) {
		if entry == "" {
			entry = "."
		}
		found, err := lpFind(lpJoin(entry, file, win), exts, win, isExec)
		if err != nil {
			continue
		}
		if !lpIsAbs(entry, win) {
			if !win && !strings.Contains(found, "/") {
				found = "./" + found
			}
			return found, &osexec.Error{Name: file, Err: osexec.ErrDot}
		}
		return found, nil
	}
	return "", &osexec.Error{Name: file, Err: osexec.ErrNotFound}
}

// lpFind checks one candidate path, trying the PATHEXT extensions on
// Windows. It returns the path that may be run, or ErrNotFound, or the
// reason a file that exists may not be run (only on Unix, where a name is
// tried as it is).
func lpFind(p string, exts []string, win bool, isExec func(string) error) (string, error) {
	if !win {
		if err := isExec(p); err != nil {
			if err == fs.ErrPermission {
				return "", err
			}
			return "", osexec.ErrNotFound
		}
		return p, nil
	}
	if ext := lpExt(p); ext != "" {
		for _, e := range exts {
			if strings.EqualFold(ext, e) {
				if isExec(p) == nil {
					return p, nil
				}
				break
			}
		}
	}
	for _, e := range exts {
		if c := p + e; isExec(c) == nil {
			return c, nil
		}
	}
	return "", osexec.ErrNotFound
}

// lpGetenv returns the value of name in env; the last occurrence wins and
// fold compares names case-insensitively (Windows). Unset and empty are the
// same here: both mean "no directories" or "the default extensions".
func lpGetenv(env []string, name string, fold bool) string {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(env[i], "=")
		if !ok || k == "" {
			continue
		}
		if k == name || fold && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// lpPathExt turns a PATHEXT value into lower-case extensions with a leading
// dot, falling back to defaultPathExt when nothing usable is left.
func lpPathExt(v string) []string {
	exts := lpSplitExt(v)
	if len(exts) == 0 {
		exts = lpSplitExt(defaultPathExt)
	}
	return exts
}

func lpSplitExt(v string) []string {
	var exts []string
	for _, e := range strings.Split(v, ";") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		exts = append(exts, strings.ToLower(e))
	}
	return exts
}

// lpSplitList splits a PATH value. On Windows entries are separated by ';'
// and may be wrapped in double quotes, inside which ';' is part of the
// entry; the quotes are removed. An empty value has no entries.
func lpSplitList(v string, win bool) []string {
	if v == "" {
		return nil
	}
	if !win {
		return strings.Split(v, ":")
	}
	var list []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			list = append(list, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(list, b.String())
}

func lpHasSeparator(file string, win bool) bool {
	if win {
		return strings.ContainsAny(file, `\/:`)
	}
	return strings.Contains(file, "/")
}

// lpIsAbs reports whether p is absolute: "/x" on Unix; "C:\x", "C:/x" or
// a UNC path "\\host\share" on Windows ("\x" and "C:x" depend on the
// current drive or directory, so they are relative).
func lpIsAbs(p string, win bool) bool {
	if !win {
		return strings.HasPrefix(p, "/")
	}
	if len(p) >= 2 && lpIsSlash(p[0]) && lpIsSlash(p[1]) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && lpIsSlash(p[2]) &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

func lpIsSlash(c byte) bool { return c == '\\' || c == '/' }

// lpJoin joins a directory and a name with the separator of the OS. On Unix
// the result is cleaned, as filepath.Join cleans it; on Windows it is not.
func lpJoin(dir, file string, win bool) string {
	if !win {
		return path.Join(dir, file)
	}
	if strings.HasSuffix(dir, `\`) || strings.HasSuffix(dir, "/") {
		return dir + file
	}
	return dir + `\` + file
}

// lpExt returns the extension of the last element of a Windows path,
// including the dot, or "".
func lpExt(p string) string {
	i := strings.LastIndexByte(p, '.')
	if i < 0 || strings.LastIndexAny(p, `\/:`) > i {
		return ""
	}
	return p[i:]
}
