package main

// Reliability proofs, portable part: helpers shared by every OS, the
// lost-byte test and the bad-input table. docs/reliability.md says what each
// test proves and how to run it. The Unix-only proofs (no leak, no orphan,
// the guard under pressure, symlinks and unreadable directories) are in
// reliability_unix_test.go, Ctrl-C on a pseudo-terminal in
// reliability_linux_test.go, the Windows ones in reliability_windows_test.go.
//
// The tests run the real vx: cmd/vx/main_test.go's TestMain puts a copy of
// the test binary named vx on PATH. Scripts call a second multi-call helper,
// vxrel, which is also this test binary, recognised by its argv[0] in init
// below and put in each workspace's node_modules/.bin, so scripts find it by
// bare name on every OS.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// relHelperName is the argv[0] (without .exe) that turns the test binary into
// the helper scripts call.
const relHelperName = "vxrel"

func init() {
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == relHelperName {
		os.Exit(relHelper(os.Args[1:]))
	}
}

// relHelper runs one helper command and returns its exit code:
//
//	envdump FILE                  write the environment, NUL-separated, to FILE
//	gen SEED OUT ERR [o][e]       write OUT bytes of lines to stdout and ERR to
//	                              stderr (see lineGen); o/e: no final newline
//	bytes SEED N                  write N binary bytes to stdout and to stderr
//	sleep SECONDS                 sleep
//	tree PIDFILE                  start a child "sleep 300" of itself, append
//	                              both pids to PIDFILE, then sleep 300
func relHelper(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "vxrel: "+format+"\n", a...)
		return 3
	}
	if len(args) == 0 {
		return fail("no command")
	}
	switch args[0] {
	case "envdump":
		if len(args) != 2 {
			return fail("usage: envdump FILE")
		}
		if err := os.WriteFile(args[1], []byte(strings.Join(os.Environ(), "\x00")), 0o644); err != nil {
			return fail("%v", err)
		}
		return 0
	case "gen":
		if len(args) < 4 {
			return fail("usage: gen SEED OUT ERR [flags]")
		}
		seed, _ := strconv.ParseUint(args[1], 10, 64)
		outN, _ := strconv.Atoi(args[2])
		errN, _ := strconv.Atoi(args[3])
		flags := ""
		if len(args) > 4 {
			flags = args[4]
		}
		out := genStream(seed, "o", outN, !strings.Contains(flags, "o"))
		errb := genStream(seed, "e", errN, !strings.Contains(flags, "e"))
		// Interleave the two streams in chunks of random sizes that do not
		// follow line boundaries, so vx sees partial lines on both pipes.
		rng := rand.New(rand.NewPCG(seed, 99))
		for len(out) > 0 || len(errb) > 0 {
			for _, s := range []struct {
				f *os.File
				b *[]byte
			}{{os.Stdout, &out}, {os.Stderr, &errb}} {
				n := chunkSize(rng)
				n = min(n, len(*s.b))
				if n == 0 {
					continue
				}
				if _, err := s.f.Write((*s.b)[:n]); err != nil {
					return fail("write: %v", err)
				}
				*s.b = (*s.b)[n:]
			}
		}
		return 0
	case "bytes":
		if len(args) != 3 {
			return fail("usage: bytes SEED N")
		}
		seed, _ := strconv.ParseUint(args[1], 10, 64)
		n, _ := strconv.Atoi(args[2])
		os.Stdout.Write(binaryPattern(seed, n))
		os.Stderr.Write(binaryPattern(seed+1, n))
		return 0
	case "sleep":
		s, _ := strconv.Atoi(args[1])
		time.Sleep(time.Duration(s) * time.Second)
		return 0
	case "tree":
		if len(args) != 2 {
			return fail("usage: tree PIDFILE")
		}
		self, err := os.Executable()
		if err != nil {
			return fail("%v", err)
		}
		child := exec.Command(self, "sleep", "300")
		child.Args[0] = relHelperName
		if err := child.Start(); err != nil {
			return fail("start child: %v", err)
		}
		f, err := os.OpenFile(args[1], os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(f, "%d\n%d\n", os.Getpid(), child.Process.Pid)
		f.Close()
		time.Sleep(300 * time.Second)
		return 0
	}
	if f := platformHelpers[args[0]]; f != nil {
		return f(args[1:])
	}
	return fail("unknown command %q", args[0])
}

// chunkSize picks the size of one write: mostly a few KiB, sometimes a few
// bytes (to split lines), sometimes more than a pipe buffer.
func chunkSize(rng *rand.Rand) int {
	switch r := rng.IntN(10); {
	case r < 2:
		return 1 + rng.IntN(16)
	case r < 9:
		return 1 + rng.IntN(8<<10)
	default:
		return 1 + rng.IntN(100<<10)
	}
}

// binaryPattern returns n bytes made of shuffled runs of all 256 byte
// values; the last byte is never a newline.
func binaryPattern(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, 0, n+256)
	for len(b) < n {
		run := make([]byte, 256)
		for i := range run {
			run[i] = byte(i)
		}
		rng.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
		b = append(b, run...)
	}
	b = b[:n]
	if n > 0 && b[n-1] == '\n' {
		b[n-1] = 0
	}
	return b
}

// lineGen produces, deterministically from a seed, the lines of one output
// stream of one task: the helper writes them, the test regenerates them to
// check what vx printed. Lines have random lengths (some empty, a few longer
// than a pipe buffer) and are tagged with their stream and sequence number
// so a failure says which line went wrong.
type lineGen struct {
	rng       *rand.Rand
	tag       string
	seq       int
	remaining int  // bytes of the stream not yet produced
	finalNL   bool // the stream ends with a newline
	buf       []byte
}

func newLineGen(seed uint64, tag string, size int, finalNL bool) *lineGen {
	return &lineGen{rng: rand.New(rand.NewPCG(seed, uint64(len(tag))*1000+uint64(tag[0]))), tag: tag, remaining: size, finalNL: finalNL}
}

const lineAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,;:!?'\"()[]{}<>/\\|@#$%^&*+=~`\t\r\x1b\xc3\xa9"

// next returns the next line without its newline, whether the stream has a
// newline after it, and false when the stream is exhausted. The slice is
// valid until the next call.
func (g *lineGen) next() (line []byte, nl bool, ok bool) {
	if g.remaining <= 0 {
		return nil, false, false
	}
	var n int
	switch r := g.rng.IntN(1000); {
	case r < 80:
		n = 0
	case r < 999:
		n = g.rng.IntN(240)
	default:
		n = 20000 + g.rng.IntN(100000)
	}
	g.buf = fmt.Appendf(g.buf[:0], "%s%d:", g.tag, g.seq)
	for range n {
		g.buf = append(g.buf, lineAlphabet[g.rng.IntN(len(lineAlphabet))])
	}
	g.seq++
	if len(g.buf)+1 < g.remaining {
		g.remaining -= len(g.buf) + 1
		return g.buf, true, true
	}
	// The last line: cut to fit the size exactly.
	if g.finalNL {
		g.buf = g.buf[:g.remaining-1]
	} else {
		g.buf = g.buf[:g.remaining]
	}
	g.remaining = 0
	return g.buf, g.finalNL, true
}

// genStream returns the whole stream a lineGen describes.
func genStream(seed uint64, tag string, size int, finalNL bool) []byte {
	g := newLineGen(seed, tag, size, finalNL)
	out := make([]byte, 0, size)
	for {
		line, nl, ok := g.next()
		if !ok {
			return out
		}
		out = append(out, line...)
		if nl {
			out = append(out, '\n')
		}
	}
}

// essentialNames is the allowlist of issue 2, written out here rather than
// read from exec.EssentialEnv, so that widening the allowlist fails this
// test.
var essentialNames = []string{
	"PATH", "HOME", "SHELL", "USER", "LOGNAME", "TMPDIR", "TEMP", "TMP",
	"LANG", "LC_ALL", "LC_CTYPE", "TERM", "COLORTERM", "FORCE_COLOR",
	"NO_COLOR", "CI", "NODE_OPTIONS",
	"SYSTEMROOT", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES",
	"PROGRAMFILES(X86)", "COMSPEC", "PATHEXT", "SYSTEMDRIVE", "WINDIR",
	"USERPROFILE", "HOMEDRIVE", "HOMEPATH", "NUMBER_OF_PROCESSORS",
	"PROCESSOR_ARCHITECTURE",
}

// readEnvDump reads an environment written by "vxrel envdump"; a name that
// appears twice (case-insensitively on Windows) fails the test. Windows'
// hidden per-drive entries ("=C:=C:\\dir") keep their leading "=" in the
// name.
func readEnvDump(t testing.TB, file string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the task did not dump its environment: %v", err)
	}
	env := map[string]string{}
	seen := map[string]bool{}
	for _, kv := range strings.Split(string(raw), "\x00") {
		i := strings.IndexByte(kv[min(1, len(kv)):], '=') + min(1, len(kv))
		if i < 1 {
			t.Errorf("%s: entry without '=': %q", file, kv)
			continue
		}
		k, v := kv[:i], kv[i+1:]
		fold := k
		if runtime.GOOS == "windows" {
			fold = strings.ToUpper(k)
		}
		if seen[fold] {
			t.Errorf("%s: %q appears twice in the environment", file, k)
		}
		seen[fold] = true
		env[k] = v
	}
	return env
}

// vxBinary returns the vx that TestMain put on PATH.
func vxBinary(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("vx")
	if err != nil {
		t.Fatalf("vx is not on PATH (cmd/vx/main_test.go's TestMain puts it there): %v", err)
	}
	return p
}

var helperOnce struct {
	sync.Once
	path string
	err  error
}

// installHelper puts vxrel (this test binary) in dir: a symlink on Unix, a
// copy on Windows, where the name must end in .exe.
func installHelper(t testing.TB, dir string) {
	t.Helper()
	helperOnce.Do(func() { helperOnce.path, helperOnce.err = os.Executable() })
	if helperOnce.err != nil {
		t.Fatal(helperOnce.err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, relHelperName)
	if runtime.GOOS == "windows" {
		// A copy: Wine cannot delete a hard link to a running program,
		// which would fail the temporary directory's cleanup.
		dst += ".exe"
		data, err := os.ReadFile(helperOnce.path)
		if err == nil {
			err = os.WriteFile(dst, data, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.Symlink(helperOnce.path, dst); err != nil {
		t.Fatal(err)
	}
}

// writeTree creates files under root; keys are slash-separated paths.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mustJSON marshals v (maps come out with sorted keys).
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// testEnv is the environment vx gets when a test does not choose one: the
// test's own, without any VX_RUN_* (the tests may themselves run inside a
// vx task).
func testEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		// vx's own settings and the CI markers that change its defaults
		// (grouped output under CI, ::group:: lines under GitHub Actions)
		// come from the test, never from the machine running it.
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(strings.ToUpper(k), "VX_") || strings.EqualFold(k, "CI") || strings.EqualFold(k, "GITHUB_ACTIONS") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// watchInterrupts fails the test if the test process itself receives an
// interrupt while it runs: vx and its tasks must signal only the tasks'
// process groups (Unix) or console process groups (Windows, where a
// CTRL_BREAK_EVENT sent to a group that no longer exists, or to group 0,
// reaches every process of the console, the test included). Without the
// watch such a stray event kills the test binary without a word.
func watchInterrupts(t *testing.T) {
	c := make(chan os.Signal, 64)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	t.Cleanup(func() {
		signal.Stop(c)
		if n := len(c); n > 0 {
			var got []string
			for range n {
				got = append(got, fmt.Sprint(<-c))
			}
			t.Errorf("the test process itself received %q while vx ran (on Windows: console control events); vx or a task signalled beyond the tasks' own process groups", got)
		}
	})
}

// vxRun is one finished vx process.
type vxRun struct {
	code           int
	stdout, stderr []byte
	elapsed        time.Duration
}

// runVx runs vx with args in dir and env, and fails the test if it has not
// ended within deadline (the process, in its own group, is then killed).
func runVx(t testing.TB, deadline time.Duration, dir string, env []string, args ...string) vxRun {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(vxBinary(t), args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, &stdout, &stderr
	newProcessGroup(cmd)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start vx %q: %v", args, err)
	}
	r, ok := waitDeadline(cmd, deadline)
	r.elapsed = time.Since(start)
	r.stdout, r.stderr = stdout.Bytes(), stderr.Bytes()
	if !ok {
		t.Fatalf("vx %q in %s did not end within %v; killed. stderr:\n%s", args, dir, deadline, r.stderr)
	}
	return r
}

// waitDeadline waits for a started cmd; past deadline it kills the
// process's group and reports false.
func waitDeadline(cmd *exec.Cmd, deadline time.Duration) (vxRun, bool) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	var err error
	ok := true
	select {
	case err = <-done:
	case <-timer.C:
		ok = false
		killProcessGroup(cmd)
		err = <-done
	}
	r := vxRun{code: cmd.ProcessState.ExitCode()}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		r.code = -1
	}
	return r, ok
}

// TestReliabilityNoLostByte proves that running many tasks at once loses,
// duplicates, splits or mixes no byte of their output: 200 tasks at
// concurrency 8, each writing 1 MiB to stdout and 1 MiB to stderr in lines
// of random lengths (some empty, a few of 20-120 KiB), in writes that do not
// follow line boundaries, some without a final newline. Every line must
// arrive exactly once, whole, in its task's order, with the task's prefix
// (the id padded to the longest id, then " | "); a last line without a
// newline gets one. Then one task alone (passthrough mode) must keep binary
// output byte-identical: all 256 byte values, no final newline.
func TestReliabilityNoLostByte(t *testing.T) {
	t.Parallel() // its own workspace; the signal tests, which are not parallel, have ended
	watchInterrupts(t)
	// 200 tasks, each writing 256 KiB to stdout and to stderr (100 MiB in
	// all): four times a pipe's buffer and the 64 KiB line cut per stream,
	// at 8 at once: what the checks need. 1 MiB a stream took 85 s of make
	// test under load, this 30 s.
	tasks, size, conc := 200, 256<<10, 8
	if runtime.GOOS == "windows" {
		// Under Wine every process start costs ~100 ms and pipes are slow:
		// the same checks on a smaller volume.
		tasks, size = 24, 64<<10
	}
	if testing.Short() {
		tasks, size = 40, 128<<10
	}
	root := testdir.New(t)
	installHelper(t, filepath.Join(root, "node_modules", ".bin"))
	files := map[string]string{
		"package.json": mustJSON(t, map[string]any{"name": "root", "private": true, "workspaces": []string{"packages/*"}}),
	}
	names := make([]string, tasks)
	flags := make([]string, tasks)
	for i := range tasks {
		names[i] = "p" + strconv.Itoa(i)
		if i%37 == 5 {
			names[i] = "a-longer-project-name-" + strconv.Itoa(i)
		}
		if i%3 == 0 {
			flags[i] += "o"
		}
		if i%5 == 0 {
			flags[i] += "e"
		}
		script := fmt.Sprintf("vxrel gen %d %d %d %s", i, size, size, flags[i])
		files["packages/"+names[i]+"/package.json"] = mustJSON(t, map[string]any{"name": names[i], "scripts": map[string]string{"gen": script}})
	}
	files["packages/zz-bin/package.json"] = mustJSON(t, map[string]any{"name": "zz-bin", "scripts": map[string]string{"bin": "vxrel bytes 42 300000"}})
	writeTree(t, root, files)

	ids := make([]string, tasks)
	for i, n := range names {
		ids[i] = n + "#gen"
	}
	chk := newPrefixChecker(ids)
	outGens := make([]*lineGen, tasks)
	errGens := make([]*lineGen, tasks)
	for i := range tasks {
		outGens[i] = newLineGen(uint64(i), "o", size, !strings.Contains(flags[i], "o"))
		errGens[i] = newLineGen(uint64(i), "e", size, !strings.Contains(flags[i], "e"))
	}

	cmd := exec.Command(vxBinary(t), "run", "gen", "--concurrency", strconv.Itoa(conc))
	cmd.Dir, cmd.Env = root, testEnv()
	newProcessGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var otherOut, otherErr []string
	var errOut, errErr error
	var wg sync.WaitGroup
	wg.Add(2)
	var read atomic.Int64 // bytes read from vx, so far
	go func() {
		defer wg.Done()
		errOut = chk.check("stdout", outGens, &countingReader{stdout, &read}, &otherOut)
	}()
	go func() {
		defer wg.Done()
		errErr = chk.check("stderr", errGens, &countingReader{stderr, &read}, &otherErr)
	}()
	readDone := make(chan struct{})
	go func() { wg.Wait(); close(readDone) }()
	// A hang is output that stops coming: the bound is on a pause, not on
	// the whole run, which takes minutes on a loaded machine.
	const stall = 60 * time.Second
	tick := time.NewTicker(stall)
	defer tick.Stop()
	for last := int64(-1); ; {
		select {
		case <-readDone:
		case <-tick.C:
			if n := read.Load(); n != last {
				last = n
				continue
			}
			killProcessGroup(cmd)
			<-readDone
			cmd.Wait()
			t.Fatalf("vx run gen wrote nothing for %v (%d bytes before)", stall, last)
		}
		break
	}
	res, ok := waitDeadline(cmd, 10*time.Second)
	elapsed := time.Since(start)
	if !ok {
		t.Fatalf("vx run gen closed its output but did not exit within 10s")
	}
	t.Logf("%d tasks × (%d + %d bytes) at concurrency %d: %v", tasks, size, size, conc, elapsed.Round(time.Millisecond))
	if res.code != 0 {
		t.Errorf("vx run gen exit code = %d, want 0; unprefixed stderr lines: %q", res.code, otherErr)
	}
	if errOut != nil {
		t.Errorf("stdout: %v", errOut)
	}
	if errErr != nil {
		t.Errorf("stderr: %v", errErr)
	}
	if len(otherOut) > 0 {
		t.Errorf("stdout has %d lines without a task prefix, first %.200q", len(otherOut), otherOut[0])
	}
	summary := regexp.MustCompile(fmt.Sprintf(`^vx: %d tasks: %d succeeded in \S+$`, tasks, tasks))
	// On a slow machine (Wine, a loaded CI) every slot can stay held past the
	// stall warning's delay; that warning is vx's own line, not lost bytes.
	stalled := regexp.MustCompile(`^vx: \d+ tasks have waited \S+ for a slot: `)
	otherErr = slices.DeleteFunc(otherErr, stalled.MatchString)
	if len(otherErr) != 1 || !summary.MatchString(otherErr[0]) {
		t.Errorf("stderr lines without a task prefix = %q, want the one summary line matching %s", otherErr, summary)
	}

	t.Run("binary passthrough", func(t *testing.T) {
		const n = 300000
		r := runVx(t, 30*time.Second, filepath.Join(root, "packages", "zz-bin"), testEnv(), "run", "bin")
		if r.code != 0 {
			t.Fatalf("vx run bin exit code = %d, want 0; stderr %.300q", r.code, r.stderr)
		}
		for _, s := range []struct {
			name      string
			want, got []byte
		}{{"stdout", binaryPattern(42, n), r.stdout}, {"stderr", binaryPattern(43, n), r.stderr}} {
			if !bytes.Equal(s.want, s.got) {
				i := 0
				for i < min(len(s.want), len(s.got)) && s.want[i] == s.got[i] {
					i++
				}
				t.Errorf("%s differs from what the task wrote: %d bytes want, %d got, first difference at byte %d", s.name, len(s.want), len(s.got), i)
			}
		}
	})
}

// prefixChecker checks vx's prefixed output of several tasks against what
// the tasks wrote.
//
// vx's output is a sequence of records, each a task's prefix, a line's
// content and its end ("\n", "\r\n" or a bare "\r", see docs/cli.md). The
// prefix is "<id padded> | ", or "<id padded> + " for the continuation of a
// line vx cut at 64 KiB (the piece before it then ends with a newline the
// task did not write). A task's bytes are rebuilt from its records and must
// be exactly what it wrote, plus a final newline when that did not end with
// one.
type prefixChecker struct {
	ids      []string
	width    int            // the longest id
	prefixes map[string]int // "<id padded> | " -> task index
	conts    map[string]int // "<id padded> + " -> task index
}

func newPrefixChecker(ids []string) *prefixChecker {
	c := &prefixChecker{ids: ids, prefixes: map[string]int{}, conts: map[string]int{}}
	for _, id := range ids {
		c.width = max(c.width, len(id))
	}
	for i, id := range ids {
		c.prefixes[id+strings.Repeat(" ", c.width-len(id))+" | "] = i
		c.conts[id+strings.Repeat(" ", c.width-len(id))+" + "] = i
	}
	return c
}

// check reads one output stream of vx to its end, rebuilds each task's
// bytes from the records with its prefix and compares them with what its
// generator gives. Records without a task prefix are appended to other.
// The error lists the first problems.
func (c *prefixChecker) check(stream string, gens []*lineGen, r io.Reader, other *[]string) error {
	br := bufio.NewReaderSize(r, 1<<20)
	n := c.width + len(" | ")
	got := make([][]byte, len(gens))
	var line []byte
	var errs []string
	seen := 0
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = br.ReadSlice('\n')
			line = append(line, chunk...)
		}
		if err == io.EOF {
			if len(line) > 0 {
				errs = append(errs, fmt.Sprintf("%s ends without a newline: %.80q", stream, line))
			}
			break
		}
		if err != nil {
			return err
		}
		seen++
		// The records of this line: each ends at a \r, the last at the \n
		// (a \r right before it makes "\r\n").
		for rest := line; len(rest) > 0; {
			end := bytes.IndexByte(rest, '\r') + 1
			if end == 0 || end == len(rest)-1 {
				end = len(rest)
			}
			rec := rest[:end]
			rest = rest[end:]
			i, ok, cont := -1, false, false
			if len(rec) >= n {
				if i, ok = c.prefixes[string(rec[:n])]; !ok {
					i, ok = c.conts[string(rec[:n])]
					cont = ok
				}
			}
			if !ok {
				*other = append(*other, string(bytes.TrimRight(rec, "\r\n")))
				continue
			}
			if cont {
				if !bytes.HasSuffix(got[i], []byte{'\n'}) {
					errs = append(errs, fmt.Sprintf("%s: %s: a continued piece follows no cut line, at line %d", stream, c.ids[i], bytes.Count(got[i], []byte{'\n'})+1))
				} else {
					got[i] = got[i][:len(got[i])-1]
				}
			}
			got[i] = append(got[i], rec[n:]...)
		}
	}
	io.Copy(io.Discard, br)
	for i, g := range gens {
		var want []byte
		for {
			l, nl, more := g.next()
			if !more {
				break
			}
			want = append(want, l...)
			if nl {
				want = append(want, '\n')
			}
		}
		if len(want) > 0 && want[len(want)-1] != '\n' {
			want = append(want, '\n')
		}
		if bytes.Equal(want, got[i]) || len(errs) > 10 {
			continue
		}
		k := 0
		for k < min(len(want), len(got[i])) && want[k] == got[i][k] {
			k++
		}
		from := bytes.LastIndexByte(want[:k], '\n') + 1
		errs = append(errs, fmt.Sprintf("%s: %s: differs from what it wrote at byte %d, in its line %d:\n  want %.100q (%d bytes in all)\n   got %.100q (%d bytes in all)",
			stream, c.ids[i], k, bytes.Count(want[:k], []byte{'\n'})+1, want[from:], len(want), got[i][from:], len(got[i])))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d lines read; %s", seen, strings.Join(errs, "\n"))
	}
	return nil
}

// TestReliabilityLostByteCheck shows that the lost-byte test's checker
// fails on every kind of damage it is meant to catch, so that its passing
// means something.
func TestReliabilityLostByteCheck(t *testing.T) {
	t.Parallel()
	ids := []string{"a#gen", "bb#gen", "a-longer-one#gen"}
	finalNL := []bool{true, false, true}
	c := newPrefixChecker(ids)
	gens := func() []*lineGen {
		g := make([]*lineGen, len(ids))
		for i := range ids {
			g[i] = newLineGen(uint64(i), "o", 20000, finalNL[i])
		}
		return g
	}
	// The lines as vx would print them, round-robin between the tasks.
	var lines [][]byte
	g := gens()
	for more := true; more; {
		more = false
		for i, id := range ids {
			if l, _, ok := g[i].next(); ok {
				more = true
				p := id + strings.Repeat(" ", c.width-len(id)) + " | "
				// as vx prints it: a bare \r ends a line, so the prefix follows it
				l = bytes.ReplaceAll(l, []byte("\r"), []byte("\r"+p))
				lines = append(lines, append([]byte(p), l...))
			}
		}
	}
	join := func(ls [][]byte) string {
		var b strings.Builder
		for _, l := range ls {
			b.Write(l)
			b.WriteByte('\n')
		}
		return b.String()
	}
	k := len(lines) / 2
	long := 0 // a line long enough to split
	for i, l := range lines {
		if len(l) > len(lines[long]) {
			long = i
		}
	}
	half := (c.width + 3 + len(lines[long])) / 2
	cut := half // where vx could cut: not next to a \r
	for lines[long][cut] == '\r' || lines[long][cut-1] == '\r' || bytes.LastIndexByte(lines[long][:cut], '\r') > cut-c.width-4 {
		cut++
	}
	tests := []struct {
		name      string
		out       string
		wantErr   string
		wantOther bool
	}{
		{"intact", join(lines), "", false},
		{"a line lost", join(slices.Delete(slices.Clone(lines), k, k+1)), "line", false},
		{"a line twice", join(slices.Insert(slices.Clone(lines), k, lines[k])), "line", false},
		// the first half of a line, then its second half with the prefix again
		{"a line split in two", join(lines[:long]) + string(lines[long][:half]) + "\n" +
			string(lines[long][:c.width+3]) + string(lines[long][half:]) + "\n" + join(lines[long+1:]), "line", false},
		{"two lines mixed", join(lines[:k]) + string(lines[k][:c.width+3+2]) + string(lines[k+1][c.width+3:]) + "\n" + join(lines[k+1:]), "line", false},
		{"an extra empty last line", join(lines) + ids[0] + strings.Repeat(" ", c.width-len(ids[0])) + " | \n", "differs", false},
		// a line vx cut: the first piece, then the rest under the continuation prefix
		{"a long line cut", join(lines[:long]) + string(lines[long][:cut]) + "\n" +
			string(lines[long][:c.width]) + " + " + string(lines[long][cut:]) + "\n" + join(lines[long+1:]), "", false},
		{"a continuation after no cut", join(lines[:long]) + string(lines[long][:cut]) + "\r" +
			string(lines[long][:c.width]) + " + " + string(lines[long][cut:]) + "\n" + join(lines[long+1:]), "follows no cut line", false},
		{"no final newline", strings.TrimSuffix(join(lines), "\n"), "without a newline", false},
		{"bad padding", join(lines) + "a#gen | x\n", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var other []string
			err := c.check("stdout", gens(), strings.NewReader(tc.out), &other)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("check() = %v, want no error", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("check() = %v, want an error about %q", err, tc.wantErr)
			}
			if (len(other) > 0) != tc.wantOther {
				t.Errorf("unprefixed lines = %q, want some: %v", other, tc.wantOther)
			}
		})
	}
}

// brokenCase is a workspace vx must refuse with one line and exit 2.
type brokenCase struct {
	name  string
	files map[string]string
	setup func(t *testing.T, root string) // extra setup (symlinks...); may skip
	dir   string                          // where vx runs, relative to root
	args  []string                        // default: run build
	want  string                          // a regexp the error line matches
	// ok0 allows exit 0 (the input is odd but valid, and vx must just end
	// without a panic).
	ok0 bool
	// runner runs vx instead of runVx (to run it as another user).
	runner func(t *testing.T, dir string, args []string) vxRun
}

func pkg(name string, scripts map[string]string, extra ...string) string {
	m := map[string]any{"name": name}
	if scripts != nil {
		m["scripts"] = scripts
	}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = json.RawMessage(extra[i+1])
	}
	b, _ := json.Marshal(m)
	return string(b)
}

const wsRoot = `{"name": "root", "private": true, "workspaces": ["packages/*"]}`

var build = map[string]string{"build": "echo built"}

// brokenCases are the portable bad inputs; reliability_unix_test.go adds
// those that need symlinks, permissions or odd file names.
func brokenCases() []brokenCase {
	return []brokenCase{
		{name: "cycle in dependsOn", files: map[string]string{
			"package.json":            wsRoot,
			"vx.json":                 `{"tasks": {"a#build": {"dependsOn": ["b#build"]}, "b#build": {"dependsOn": ["c#build"]}, "c#build": {"dependsOn": ["a#build"]}}}`,
			"packages/a/package.json": pkg("a", build), "packages/b/package.json": pkg("b", build), "packages/c/package.json": pkg("c", build),
		}, want: `cycle: a#build -> b#build -> c#build -> a#build`},
		{name: "cycle through ^build", files: map[string]string{
			"package.json":            wsRoot,
			"vx.json":                 `{"tasks": {"build": {"dependsOn": ["^build"]}}}`,
			"packages/a/package.json": pkg("a", build, "dependencies", `{"b": "workspace:*"}`),
			"packages/b/package.json": pkg("b", build, "devDependencies", `{"a": "*"}`),
		}, want: `cycle: (a#build -> b#build -> a#build|b#build -> a#build -> b#build)`},
		{name: "task depends on itself", files: map[string]string{
			"package.json": pkg("solo", build), "vx.json": `{"tasks": {"build": {"dependsOn": ["build"]}}}`,
		}, want: `cycle: solo#build -> solo#build`},
		{name: "a --filter naming a name two projects share", files: map[string]string{
			"package.json": wsRoot, "packages/a/package.json": pkg("dup", build), "packages/b/package.json": pkg("dup", build),
		}, args: []string{"run", "build", "--filter", "dup"}, want: `(packages.a.*packages.b|packages.b.*packages.a).*"dup"`},
		{name: "missing script", files: map[string]string{
			"package.json": wsRoot, "packages/a/package.json": pkg("a", build),
		}, args: []string{"run", "nosuch"}, want: `nosuch`},
		{name: "dependsOn names a missing project", files: map[string]string{
			"package.json": wsRoot, "vx.json": `{"tasks": {"build": {"dependsOn": ["ghost#build"]}}}`, "packages/a/package.json": pkg("a", build),
		}, want: `ghost`},
		{name: "malformed root package.json", files: map[string]string{
			"package.json": "{\n  \"name\": \"root\",\n  \"workspaces\": [\"packages/*\",,]\n}",
		}, want: `package\.json.*(line 3|3:)`},
		{name: "malformed project package.json", files: map[string]string{
			"package.json": wsRoot, "packages/a/package.json": `{"name": "a", "scripts": {"build": "x"`,
		}, want: `packages.a.package\.json`},
		{name: "empty package.json", files: map[string]string{"package.json": ""}, want: `package\.json`},
		{name: "package.json is an array", files: map[string]string{"package.json": `["build"]`}, want: `package\.json`},
		{name: "name is a number", files: map[string]string{"package.json": `{"name": 5, "scripts": {"build": "x"}}`}, want: `package\.json.*name`},
		{name: "scripts is a list", files: map[string]string{"package.json": `{"name": "a", "scripts": ["build"]}`}, want: `package\.json.*scripts`},
		{name: "script is a number", files: map[string]string{"package.json": `{"name": "a", "scripts": {"build": 1}}`}, want: `package\.json.*build`},
		{name: "workspaces is a string", files: map[string]string{"package.json": `{"name": "r", "workspaces": "packages/*"}`}, want: `package\.json.*workspaces`},
		{name: "package.json nested 100000 deep", files: map[string]string{
			"package.json": `{"name": "a", "scripts": {"build": "x"}, "x": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`,
		}, want: `package\.json`},
		{name: "malformed vx.json", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": "{\n  \"tasks\": {\n    \"build\": {\"dependsOn\": [\"x\"}\n  }\n}",
		}, want: `vx\.json"?:3:\d+`},
		{name: "vx.json nested 100000 deep", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": strings.Repeat("[", 100000) + strings.Repeat("]", 100000),
		}, want: `vx\.json`},
		{name: "vx.json unknown key", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"passthrough": ["X"]}}}}`,
		}, want: `vx\.json"?:1:\d+.*passThrough`},
		{name: "vx.json passThrough star", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"passThrough": ["*"]}}}}`,
		}, want: `vx\.json"?:1:\d+`},
		{name: "vx.json is a directory", files: map[string]string{
			"package.json": pkg("a", build), "vx.json/x": "",
		}, want: `vx\.json`},
		{name: "malformed pnpm-workspace.yaml", files: map[string]string{
			"package.json": pkg("root", nil), "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n - bad: [\n",
			"packages/a/package.json": pkg("a", build),
		}, dir: "packages/a", want: `pnpm-workspace\.yaml.*(line|:)\s*\d`},
		{name: "pnpm-workspace.yaml packages is a map", files: map[string]string{
			"package.json": pkg("root", nil), "pnpm-workspace.yaml": "packages:\n  a: b\n",
			"packages/a/package.json": pkg("a", build),
		}, dir: "packages/a", want: `pnpm-workspace\.yaml`},
		{name: "invalid UTF-8 in a project name", files: map[string]string{
			"package.json": wsRoot, "packages/a/package.json": "{\"name\": \"a\xff\xfe\", \"scripts\": {\"build\": \"echo x\"}}",
		}, want: `UTF-8`},
		{name: "invalid UTF-8 in a vx.json task name", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": "{\"tasks\": {\"bu\xc3ild\": {}}}",
		}, want: `vx\.json"?:1:\d+.*UTF-8`},
		{name: "NUL in a project name", files: map[string]string{
			"package.json": wsRoot, "packages/a/package.json": `{"name": "a\u0000b", "scripts": {"build": "echo x"}}`,
		}, want: `NUL|\\x00|\\u0000|control`},
		{name: "NUL in the script to run", files: map[string]string{
			"package.json": `{"name": "a", "scripts": {"build": "echo a\u0000b"}}`,
		}, want: `NUL|\\x00|\\u0000|control`},
		{name: "NUL in the version", files: map[string]string{
			"package.json": `{"name": "a", "version": "1.0.0\u0000", "scripts": {"build": "echo x"}}`,
		}, want: `version.*(NUL|\\x00|\\u0000|control)`},
		{name: "= in a passThrough name", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"passThrough": ["A=B"]}}}}`,
		}, want: `vx\.json"?:1:\d+.*=`},
		{name: "NUL in a passThrough name", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"passThrough": ["A\u0000B"]}}}}`,
		}, want: `vx\.json"?:1:\d+.*NUL`},
		{name: "= in a define name", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"define": {"A=B": "x"}}}}}`,
		}, want: `vx\.json"?:1:\d+.*=`},
		{name: "NUL in a define value", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"define": {"A": "x\u0000y"}}}}}`,
		}, want: `vx\.json"?:1:\d+.*NUL`},
		{name: "package.json larger than 16 MiB", files: map[string]string{"package.json": wsRoot, "packages/a/package.json": pkg("a", build)},
			setup: grow("packages/a/package.json"), want: `packages.a.package\.json: cannot read: larger than 16 MiB`},
		{name: "vx.json larger than 16 MiB", files: map[string]string{"package.json": pkg("a", build), "vx.json": "{}"},
			setup: grow("vx.json"), want: `vx\.json: cannot read: larger than 16 MiB`},
		{name: "pnpm-workspace.yaml larger than 16 MiB", files: map[string]string{"package.json": pkg("root", nil), "pnpm-workspace.yaml": "packages: [packages/*]\n", "packages/a/package.json": pkg("a", build)},
			setup: grow("pnpm-workspace.yaml"), dir: "packages/a", want: `pnpm-workspace\.yaml: cannot read: larger than 16 MiB`},
		{name: "empty define name", files: map[string]string{
			"package.json": pkg("a", build), "vx.json": `{"tasks": {"build": {"env": {"define": {"": "x"}}}}}`,
		}, want: `vx\.json"?:1:\d+.*empty`},
	}
}

// grow returns a setup that makes the file at rel one byte larger than the
// 16 MiB vx reads (sparse where the file system allows).
func grow(rel string) func(t *testing.T, root string) {
	return func(t *testing.T, root string) {
		if err := os.Truncate(filepath.Join(root, filepath.FromSlash(rel)), 16<<20+1); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReliabilityBadInput proves that broken workspaces never make vx panic
// or hang: each gives exactly one line on stderr, nothing on stdout, and
// exit code 2, before any script runs (each script would print "built").
func TestReliabilityBadInput(t *testing.T) {
	t.Parallel()
	watchInterrupts(t)
	cases := append(brokenCases(), platformBrokenCases()...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := testdir.New(t)
			writeTree(t, root, tc.files)
			if tc.setup != nil {
				tc.setup(t, root)
			}
			args := tc.args
			if args == nil {
				args = []string{"run", "build"}
			}
			dir := filepath.Join(root, filepath.FromSlash(tc.dir))
			var r vxRun
			if tc.runner != nil {
				r = tc.runner(t, dir, args)
			} else {
				r = runVx(t, 20*time.Second, dir, testEnv(), args...)
			}
			checkOneError(t, r, tc.ok0, tc.want)
		})
	}
}

// checkOneError asserts exit 2 with one stderr line matching want, nothing
// on stdout, and no trace of a panic.
func checkOneError(t *testing.T, r vxRun, ok0 bool, want string) {
	t.Helper()
	all := string(r.stdout) + string(r.stderr)
	for _, bad := range []string{"panic", "goroutine ", "runtime error", "fatal error"} {
		if strings.Contains(all, bad) {
			t.Fatalf("output contains %q (exit %d):\n%s", bad, r.code, all)
		}
	}
	if ok0 && r.code == 0 {
		return
	}
	if r.code != 2 {
		t.Errorf("exit code = %d, want 2; stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if len(r.stdout) > 0 {
		t.Errorf("stdout = %q, want nothing (no script may run)", r.stdout)
	}
	lines := strings.Split(strings.TrimSuffix(string(r.stderr), "\n"), "\n")
	if len(lines) != 1 || lines[0] == "" || !strings.HasSuffix(string(r.stderr), "\n") {
		t.Fatalf("stderr = %q, want exactly one line", r.stderr)
	}
	if !regexp.MustCompile(want).MatchString(lines[0]) {
		t.Errorf("error line %q does not match %q", lines[0], want)
	}
	t.Logf("%s", lines[0])
}

// countingReader adds the bytes read through it to n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}
