package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/jsconfig/evaluate"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("u", false, "rewrite the testscript files with the actual output")

// TestMain puts a vx first on PATH and runs the tests, so testscript files
// and Go tests alike can exec a real vx: vx built from this package (see
// [buildVx]), else a copy of the test binary, which started under the name
// "vx" runs vx's main. A copy named vxtest is the one program the scripts'
// tasks need that is the same in sh and cmd.exe (see [vxtest]); a copy
// named vx-config is vx's config helper, beside vx where vx looks for it
// (the test binary links what cmd/vx-config does; vx itself does not).
//
// This is what testscript.Main does, except that the temporary directory is
// removed entry by entry: under Wine, os.RemoveAll fails on a non-empty
// directory ("Invalid function"), and testscript.Main treats that as fatal.
func TestMain(m *testing.M) {
	switch strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") {
	case "vx":
		os.Exit(run())
	case "vxtest":
		os.Exit(vxtest(os.Args[1:]))
	case "vx-config":
		os.Exit(evaluate.Main(os.Stdin, os.Stdout, os.Stderr, os.Environ()))
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "vx-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer testdir.RemoveTree(dir)
	for _, name := range []string{"vx", "vxtest", "vx-config"} {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		if name == "vx" && buildVx(filepath.Join(dir, name)) {
			continue
		}
		if err := copyExecutable(filepath.Join(dir, name)); err != nil {
			fmt.Fprintf(os.Stderr, "cannot put %s on PATH: %v\n", name, err)
			return 2
		}
	}
	os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	raiseParallel()
	code := m.Run()
	if vxRemote.dir != "" { // vx-remote, built by the remote cache's tests
		testdir.RemoveTree(vxRemote.dir)
	}
	return code
}

// raiseParallel lets twice as many parallel tests run at once as go test's
// default, -parallel GOMAXPROCS, unless -parallel was given. That default
// suits tests that compute; these start vx, tasks, git and node and wait
// for them, idle in the test process, so at GOMAXPROCS children that could
// overlap (a task's sleep, a start-up, the disk) wait for a slot instead,
// and on a machine loaded by other work the package gets a smaller share
// of the CPU. Measured on the shared 2-core machine, load 15-17, one after
// the other: 335 s for the package at -parallel 2, 257 s at 4, the same
// CPU (165 s and 167 s).
func raiseParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
}

// buildVx builds vx from this package's source into dst, with the test
// binary's -race and -tags, and reports whether it did. The tests start vx
// some 1,500 times; this test binary, which also links testscript, the
// config helper's esbuild and the tests, costs twice the CPU of vx itself to
// start (about 43 ms against 23 ms on Linux), a third of a minute of CPU
// for the package, for a build that Go's cache makes cheap (the test
// binary's packages are compiled already). Where that build cannot run (the
// Windows test binary under Wine has no Go toolchain) or fails, the copy of
// the test binary is vx, as it was: the same code, main's run.
func buildVx(dst string) bool {
	if runtime.GOOS == "windows" {
		return false
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		return false
	}
	args := []string{"build", "-buildvcs=false", "-o", dst}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "-race" && s.Value == "true":
				args = append(args, "-race")
			case s.Key == "-tags" && s.Value != "":
				args = append(args, "-tags", s.Value)
			}
		}
	}
	cmd := osexec.Command(goBin, append(args, "github.com/vxrun/vx/cmd/vx")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cmd/vx tests: go %s: %v; the tests run a copy of the test binary as vx\n%s", strings.Join(args, " "), err, out)
		return false
	}
	return true
}

func copyExecutable(dst string) error {
	src, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// vxtest is what the scripts' tasks run where sh and cmd.exe differ:
//
//	vxtest env                  print the environment, one KEY=VALUE a line, sorted
//	vxtest exit N               exit with status N
//	vxtest barrier PREFIX ID N  create the file PREFIX-ID, then wait (5 s at most)
//	                            until N files PREFIX-* exist: "all N up", else exit 1
//	vxtest bound FILE N         add a line to FILE; when it then holds more than N,
//	                            exit 1: a task that starts vx, if nothing stops it,
//	                            fails fast instead of nesting without end
func vxtest(args []string) int {
	if code, ok := vxtestServe(args); ok {
		return code
	}
	switch {
	case len(args) == 3 && args[0] == "bound":
		n, _ := strconv.Atoi(args[2])
		f, err := os.OpenFile(args[1], os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o644)
		if err == nil {
			_, err = f.WriteString("start\n")
		}
		var b []byte
		if err == nil {
			b, err = os.ReadFile(args[1])
		}
		if f != nil {
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if starts := strings.Count(string(b), "\n"); starts > n {
			fmt.Fprintf(os.Stderr, "vxtest: %d starts, more than %d: stopping\n", starts, n)
			return 1
		}
		return 0
	case len(args) == 4 && args[0] == "barrier":
		n, _ := strconv.Atoi(args[3])
		if err := os.WriteFile(args[1]+"-"+args[2], nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		up := 0
		for range 100 {
			files, _ := filepath.Glob(args[1] + "-*")
			if up = len(files); up >= n {
				fmt.Printf("all %d up\n", n)
				return 0
			}
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Printf("only %d up\n", up)
		return 1
	case len(args) == 1 && args[0] == "env":
		env := os.Environ()
		slices.Sort(env)
		for _, kv := range env {
			fmt.Println(kv)
		}
		return 0
	case len(args) == 2 && args[0] == "exit":
		n, err := strconv.Atoi(args[1])
		if err == nil {
			return n
		}
	}
	fmt.Fprintf(os.Stderr, "vxtest: unknown arguments %q\n", args)
	return 2
}

// TestScript runs the end-to-end scripts in testdata/script: each is a
// workspace and the vx commands run in it, and reads like documentation.
// They run on Windows too (under Wine in .ci/run), with commands added to
// testscript's:
//
//	exits N program [args...]
//
// runs program like exec and checks that it exits with status N; its stdout
// and stderr are checked as exec's are. $VX is vx's absolute path. The
// watch*.txtar scripts drive a vx watch in the background with watch,
// edit and burst (see [watchScriptCmd]); they need Unix signals.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Values[watchKey{}] = &watchSlot{}
			vx, err := osexec.LookPath("vx")
			env.Setenv("VX", vx)
			return err
		},
		// [need:tool] holds when tool is on PATH; when it is not and
		// CI=true, the script fails (a test may not skip for want of a
		// tool in CI): "[!need:git] skip 'git not found'".
		Condition: func(cond string) (bool, error) {
			tool, ok := strings.CutPrefix(cond, "need:")
			if !ok {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			if _, err := osexec.LookPath(tool); err != nil {
				if os.Getenv(testtool.CIEnv) == "true" {
					return false, fmt.Errorf("%s is not installed; CI=true: a test may not skip for want of a tool in CI", tool)
				}
				return false, nil
			}
			return true, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"watch":    watchScriptCmd,
			"edit":     editCmd,
			"replace":  replaceCmd,
			"burst":    burstCmd,
			"freeport": freePortCmd,
			"alive":    aliveCmd,
			"sleep": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: sleep duration")
				}
				d, err := time.ParseDuration(args[0])
				ts.Check(err)
				time.Sleep(d)
			},
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				want, err := 0, error(nil)
				if len(args) > 1 {
					want, err = strconv.Atoi(args[0])
				}
				if neg || len(args) < 2 || err != nil {
					ts.Fatalf("usage: exits N program [args...]")
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *osexec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("%s: %v", args[1], err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
				}
			},
		},
	})
}
