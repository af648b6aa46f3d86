package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/nodeprog"
	"github.com/vxrun/vx/internal/quote"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/internal/suggest"
	"github.com/vxrun/vx/workspace"
)

// Version is vx's version, set at build time with
// -ldflags "-X github.com/vxrun/vx/internal/cli.Version=v1.2.3".
var Version = "v0.1.0-dev"

// Exit codes; docs/cli.md documents them.
const (
	ExitOK    = 0
	ExitUsage = 2 // bad command line, config, workspace, or a nested run; task outcomes map through run.Outcome.Code
)

// Process is what vx takes from the operating system.
type Process struct {
	Args    []string // without the program name
	Environ []string // the environment vx was started with
	Dir     string   // the working directory, absolute
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	// StdinTerminal and StdoutTerminal/StderrTerminal say which streams
	// are terminals: a single task takes the terminal's foreground, and
	// prefixes are coloured only on a terminal.
	StdinTerminal, StdoutTerminal, StderrTerminal bool
	NoColor                                       bool // NO_COLOR is set and not empty
	// Context stops vx when it is cancelled (nil: never); see Main.
	Context context.Context
	// Kill is closed when vx is told to stop a second time: running task
	// trees are killed at once instead of after the grace.
	Kill <-chan struct{}
	// Signals, when set, gives Context and Kill (replacing those above):
	// Main calls it for every command but those that only print (--version,
	// --help), so that cmd/vx starts watching signals only for commands
	// that can take a while.
	Signals func() (ctx context.Context, kill <-chan struct{})
	GOOS    string // "" = runtime.GOOS
	// StartTasks, when set, is called once just before a command starts
	// its first task, and never by a command that starts none (--version,
	// ls, env, cache, a dry run): cmd/vx sets up what only task trees
	// need there (the subreaper, the watchdog), so that other commands
	// start and end without it.
	StartTasks func()
	// Executable is vx's own file, beside which vx-remote is looked for;
	// "" = os.Executable().
	Executable string
	NumCPU     int

	gate *gate
}

// Main runs vx and returns its exit code and the error, if any, that the
// caller prints once (with [diag.Message], after "vx: "). Error texts carry
// no "vx" prefix of their own.
//
// Cancelling p.Context stops vx; the cause names the signal (exec.Interrupt)
// and the exit code is 128+N (SIGTERM's 143 when it names none). Before any
// task has started Main returns at once, even in the middle of walking a
// large tree or reading a slow file, since nothing needs ending; once tasks
// run, [run.Execute] ends their trees and Main returns after that.
func Main(p Process) (int, error) {
	if p.GOOS == "" {
		p.GOOS = runtime.GOOS
	}
	if p.NumCPU < 1 {
		p.NumCPU = runtime.NumCPU()
	}
	g := &gate{}
	p.gate = g
	if onlyPrints(p.Args) {
		return mainCode(&p)
	}
	if p.Signals != nil {
		p.Context, p.Kill = p.Signals()
	}
	if p.Context == nil {
		p.Context = context.Background()
	}
	ctx := p.Context
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		growStack()
		code, err := mainCode(&p)
		done <- result{code, err}
	}()
	select {
	case r := <-done:
		return r.code, r.err
	case <-ctx.Done():
	}
	if g.abandon() {
		return run.StopCode(ctx), nil
	}
	r := <-done
	return r.code, r.err
}

// growStack grows the calling goroutine's stack to 16 KB at once, while
// it holds two frames: the goroutine Main runs vx's work in calls it
// first. A goroutine's stack starts at 2 KB and doubles when a call needs
// more, each time copying the whole stack, which means reading the stack
// maps of every function on it: cold, in a process that lives for
// milliseconds, a run of one task paid three such copies at depth
// (perf: about as much CPU as its workspace discovery).
//
//go:noinline
func growStack() {
	var pad [12 << 10]byte
	stackSink.Store(uint32(pad[stackSink.Load()&1])) // atomic: tests call Main from parallel goroutines
}

var stackSink atomic.Uint32

// onlyPrints reports whether args ask for help or the version: vx prints
// them and ends, with nothing to stop.
func onlyPrints(args []string) bool {
	if len(args) == 0 {
		return true
	}
	switch args[0] {
	case "-h", "--help", "help", "-v", "--version", "version":
		return true
	}
	return false
}

func mainCode(p *Process) (int, error) {
	code, err := dispatch(p)
	if err != nil && run.IsBrokenPipe(err) {
		// vx's own output is gone (`vx ls | head -1`): end quietly, as a
		// program killed by SIGPIPE does.
		return 128 + int(syscall.SIGPIPE), nil
	}
	if err != nil && code == ExitOK {
		code = ExitUsage
	}
	return code, err
}

// gate decides, once, between a Main that gave up waiting (a signal came
// before any task started) and a run that starts tasks: after abandon no
// task may start, and once tasks may start Main waits for them.
type gate struct {
	mu               sync.Mutex
	running, stopped bool
}

// enter reports whether tasks may start.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.running = true
	}
	return g.running
}

// abandon reports whether Main may return without waiting.
func (g *gate) abandon() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.running {
		g.stopped = true
	}
	return g.stopped
}

type command struct {
	name    string
	summary string
	usage   string
	flags   []flagSpec
	run     func(p *Process, a *parsed) (int, error)
}

var commands []*command

func init() {
	commands = []*command{runCmd, watchCmd, whyCmd, envCmd, lsCmd, graphCmd, configCmd, initCmd, cacheCmd, pruneCmd, completionCmd}
	runCmd.flags = append(append([]flagSpec{}, selectFlags...), runCmd.flags...)
	runCmd.flags = append(runCmd.flags, cacheRunFlags...)
	runCmd.flags = append(runCmd.flags, remoteFlags...)
	runCmd.flags = append(runCmd.flags, remoteWriteFlag)
	cacheCmd.flags = append(cacheCmd.flags, remoteFlags...)
}

func dispatch(p *Process) (int, error) {
	args := p.Args
	if len(args) == 0 {
		fmt.Fprint(p.Stderr, mainHelp())
		return ExitUsage, nil
	}
	switch args[0] {
	case "-h", "--help", "help":
		if args[0] == "help" && len(args) > 1 {
			c := findCommand(args[1])
			if c == nil {
				return ExitUsage, usagef("unknown command %q; %scommands: %s", args[1], didYouMeanCommand(args[1]), commandNames())
			}
			fmt.Fprint(p.Stdout, commandHelp(c))
			return ExitOK, nil
		}
		fmt.Fprint(p.Stdout, mainHelp())
		return ExitOK, nil
	case "-v", "--version", "version":
		fmt.Fprintf(p.Stdout, "vx %s\n", Version)
		return ExitOK, nil
	}
	if args[0] == completeCommand {
		return runComplete(p, args[1:]), nil
	}
	c := findCommand(args[0])
	if c == nil {
		if strings.HasPrefix(args[0], "-") {
			return ExitUsage, usagef("unknown flag %q before the command; try vx run <task> %s", args[0], quote.Name(args[0]))
		}
		return ExitUsage, usagef("unknown command %q; %scommands: %s (vx --help for more)", args[0], didYouMeanCommand(args[0]), commandNames())
	}
	a, err := parseFlags(c.name, c.flags, args[1:])
	if err != nil {
		return ExitUsage, err
	}
	if a.help {
		fmt.Fprint(p.Stdout, commandHelp(c))
		return ExitOK, nil
	}
	return c.run(p, a)
}

// didYouMeanCommand returns "did you mean <command>? " for a word close to
// a command's name, else "".
func didYouMeanCommand(word string) string {
	names := []string{"help", "version"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	if best, ok := suggest.Closest(word, names); ok {
		return "did you mean " + best + "? "
	}
	return ""
}

// commandNames lists the commands for error messages.
func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func mainHelp() string {
	var b strings.Builder
	b.WriteString("vx runs the package.json scripts of a JavaScript workspace, each in an isolated environment.\n\n")
	b.WriteString("Usage:\n  vx <command> [arguments] [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-11s %s\n", c.name, c.summary)
	}
	b.WriteString("  help        show help for a command: vx help run\n\n")
	b.WriteString("Flags:\n  --help       show help\n  --version    print vx's version\n\n")
	b.WriteString("Exit codes: 0 success, 1 a task failed, 2 usage or config error or a nested run,\n")
	b.WriteString("the task's own code when one task ran, 128+N after signal N (130 Ctrl-C, 143 SIGTERM,\n")
	b.WriteString("129 SIGHUP, 131 SIGQUIT, 141 when the output is closed); vx why: 1 when a task would miss.\n")
	b.WriteString("See docs/cli.md.\n")
	return b.String()
}

func commandHelp(c *command) string {
	return fmt.Sprintf("%s\n\nUsage:\n  %s\n\nFlags:\n%s  --help                   show this help\n", c.summary, c.usage, flagHelp(c.flags))
}

// load finds the workspace around dir and reads its configuration (see
// loadConfig); with a turbo.json, turbo's framework inference adds to it
// (inferFrameworks).
func load(p *Process, a *parsed) (*workspace.Workspace, *config.Config, error) {
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return nil, nil, err
	}
	store, err := cacheDir(p, a, ws.Root)
	if err != nil {
		return nil, nil, err
	}
	res, err := loadConfigIn(p, ws, store, false)
	if err != nil {
		return nil, nil, err
	}
	run.RememberNodeVersions(ws, p.GOOS, nodeVersionMemo(store))
	warnUnusedEntries(p, ws, res.Config)
	if err := inferFrameworks(p, a, ws, res.Config); err != nil {
		return nil, nil, err
	}
	return ws, res.Config, nil
}

// nodeVersionMemo is where a run whose tasks open no task cache keeps the
// versions of node its tasks' user agent holds: a small file in the store,
// which is made when a version is first written.
func nodeVersionMemo(store string) *nodeprog.FileMemo {
	return &nodeprog.FileMemo{
		Path: filepath.Join(store, nodeprog.FileMemoName),
		TempDir: func() (string, error) {
			st, err := cache.OpenStore(store)
			if err != nil {
				return "", err
			}
			return filepath.Join(st.Dir, "tmp"), nil
		},
	}
}

// warnUnusedEntries says, once per load, which task entries of the
// configuration apply to no task (a typo: the task meant runs without its
// settings), with the closest name.
func warnUnusedEntries(p *Process, ws *workspace.Workspace, cfg *config.Config) {
	for _, e := range run.UnusedEntries(ws, cfg) {
		fmt.Fprintf(p.Stderr, "vx: warning: %s\n", diag.Message(e, p.Dir))
	}
}

var runCmd = &command{
	name:    "run",
	summary: "run tasks (package.json scripts) with their dependencies",
	usage:   "vx run <task>... [--filter <selector>]... [--affected [--base <ref>]] [--concurrency N] [--continue] [--dry-run[=json]] [-- <args>]",
	flags: []flagSpec{
		{name: "concurrency", kind: stringFlag, arg: "N", usage: "tasks run at once (default: the number of CPUs)"},
		{name: "continue", kind: boolFlag, usage: "after a failure, run everything that does not depend on it"},
		{name: "dry-run", kind: optionalFlag, arg: "json", usage: "print the plan (tasks in order, directories, commands, env names) without running"},
		{name: "grace", kind: stringFlag, arg: "<duration>", usage: "after a signal (Ctrl-C, SIGTERM, SIGHUP…), time tasks get before they are killed (default 5s)"},
		logOrderFlag,
		{name: "summary", kind: stringFlag, arg: "<file>|json", usage: "write what each task did (times, exit codes, commands, why it missed the cache) as JSON to the file, or to stdout after the run"},
		{name: "explain-misses", kind: boolFlag, usage: "say on stderr, one line per task that missed the cache, what changed since its last entry (vx why explains further)"},
		{name: "profile", kind: stringFlag, arg: "<file>", usage: "write a Chrome trace of the run (tasks per lane, critical path) to the file, for Perfetto or chrome://tracing"},
		outputLogsFlag,
		onlyFlag,
		frameworkFlag,
		{name: "trace", kind: optionalFlag, arg: "strict", usage: "watch every file each cached task reads and writes, and say what its key or outputs miss (Linux); =strict fails such a task"},
		{name: "otel", kind: optionalFlag, arg: "URL", usage: "export the run as an OpenTelemetry trace over OTLP/HTTP to the collector at URL (default: OTEL_EXPORTER_OTLP_ENDPOINT, else http://localhost:4318)"},
	},
	run: runRun,
}

// runFlags are vx run's flags, read and checked against each other.
type runFlags struct {
	tasks       []string // the positional arguments: the tasks to run
	selection   run.Selection
	concurrency int
	grace       time.Duration
	logOrder    run.LogOrder
	github      bool // fold grouped output into GitHub Actions groups
	dry         bool // --dry-run: print the plan, run nothing
	dryJSON     bool // --dry-run=json
	outputLogs  string
	trace       run.TraceMode
	timeout     time.Duration // --timeout: of the tasks without "timeout"
	retries     int           // --retries: of the tasks without "retries"
}

func runRun(p *Process, a *parsed) (int, error) {
	f, err := readRunFlags(p, a)
	if err != nil {
		return ExitUsage, err
	}
	if len(f.tasks) == 0 {
		ws, err := workspace.Discover(p.Dir)
		if err != nil {
			return ExitUsage, err
		}
		return listTasks(p, ws, f.selection)
	}
	ws, cfg, g, err := planRun(p, a, f)
	if err != nil {
		return ExitUsage, err
	}
	notePlan(p, g, f.tasks, "nothing to run")
	if len(g.Nodes) == 0 {
		if f.dryJSON {
			return ExitOK, printPlan(p.Stdout, nil, g.Notes, nil, g.Base, true, nil)
		}
		return ExitOK, nil
	}
	rc, err := remoteConfig(p, a, cfg)
	if err != nil {
		return ExitUsage, err
	}
	tc, err := openCache(p, a, ws, cfg, g, !f.dry, rc)
	if err != nil {
		return ExitUsage, err
	}
	if f.dry {
		return dryRun(p, a, f, ws, g, tc)
	}
	return executeRun(p, a, f, ws, g, tc)
}

// parseConcurrency reads --concurrency's value: a whole number of at
// least 1, or a percentage of the CPUs (turbo's form, "50%"), rounded
// down and at least 1.
func parseConcurrency(v string, cpus int) (int, error) {
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		n, err := strconv.Atoi(pct)
		if err != nil || n < 1 {
			return 0, usagef("--concurrency takes a whole number of at least 1, or a percentage of the CPUs such as 50%%, not %q", v)
		}
		return max(1, cpus*n/100), nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, usagef("--concurrency takes a whole number of at least 1, or a percentage of the CPUs such as 50%%, not %q", v)
	}
	return n, nil
}

// readProcessFlags reads --concurrency (default: the CPUs) and --grace
// (default 5s), which vx run and vx watch share.
func readProcessFlags(p *Process, a *parsed) (concurrency int, grace time.Duration, err error) {
	concurrency, grace = p.NumCPU, 5*time.Second
	if v := a.str("concurrency"); v != "" {
		n, err := parseConcurrency(v, p.NumCPU)
		if err != nil {
			return 0, 0, err
		}
		concurrency = n
	}
	if v := a.str("grace"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return 0, 0, usagef("--grace takes a duration such as 2s or 500ms, not %q", v)
		}
		grace = d
	}
	return concurrency, grace, nil
}

// readRunFlags reads vx run's flags; its errors are usage errors.
func readRunFlags(p *Process, a *parsed) (runFlags, error) {
	f := runFlags{tasks: a.pos}
	var err error
	if f.concurrency, f.grace, err = readProcessFlags(p, a); err != nil {
		return f, err
	}
	if f.logOrder, f.github, err = logLayout(p, a.str("log-order")); err != nil {
		return f, err
	}
	f.dry = a.set["dry-run"]
	if format := a.str("dry-run"); f.dry && format != "" && format != "json" {
		return f, usagef("--dry-run takes no value or =json, not %q", format)
	}
	f.dryJSON = f.dry && a.str("dry-run") == "json"
	if f.outputLogs, err = readOutputLogs(a); err != nil {
		return f, err
	}
	if f.trace, err = traceMode(a); err != nil {
		return f, err
	}
	if f.timeout, f.retries, err = readAttemptFlags(a); err != nil {
		return f, err
	}
	base, err := affectedBase(p, a)
	if err != nil {
		return f, err
	}
	f.selection = selection(p, a, base)
	return f, nil
}

// planRun finds the workspace, reads its vx.json and plans the graph of
// the tasks f names; its errors are usage errors.
func planRun(p *Process, a *parsed, f runFlags) (*workspace.Workspace, *config.Config, *run.Graph, error) {
	ws, cfg, err := load(p, a)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := run.CheckPnP(ws); err != nil {
		return nil, nil, nil, err
	}
	if !f.dry {
		if err := run.Nested(ws, cfg, p.Environ, p.GOOS); err != nil {
			return nil, nil, nil, err
		}
	}
	g, err := run.Plan(ws, cfg, f.selection)
	if err != nil {
		return nil, nil, nil, err
	}
	applyOnly(a, g)
	if err := run.CheckBinPaths(ws, g.Nodes, p.GOOS); err != nil {
		return nil, nil, nil, err
	}
	if f.dry && a.set["summary"] {
		return nil, nil, nil, usagef("--summary reports a run; --dry-run runs nothing (--dry-run=json prints the plan as JSON)")
	}
	if f.dry && a.set["profile"] {
		return nil, nil, nil, usagef("--profile records a run; --dry-run runs nothing (vx graph shows the plan)")
	}
	if f.dry && a.set["otel"] {
		return nil, nil, nil, usagef("--otel exports a run; --dry-run runs nothing (vx graph shows the plan)")
	}
	return ws, cfg, g, nil
}

// dryRun prints the plan: each task's command, environment and cache key.
func dryRun(p *Process, a *parsed, f runFlags, ws *workspace.Workspace, g *run.Graph, tc *run.TaskCache) (int, error) {
	w := bufio.NewWriter(p.Stdout)
	attempts := func(n *run.Node) (time.Duration, int) { return run.AttemptsOf(n, f.timeout, f.retries) }
	err := printPlan(w, run.Steps(ws, g, p.Environ, p.GOOS, a.after, tc), g.Notes, tc, g.Base, f.dryJSON, attempts)
	if tc != nil {
		tc.C.CloseReadOnly()
	}
	if err != nil {
		return ExitOK, err
	}
	return ExitOK, w.Flush()
}

// executeRun runs the graph and writes --summary and --profile; the exit
// code is the run's ([run.Outcome.Code]).
func executeRun(p *Process, a *parsed, f runFlags, ws *workspace.Workspace, g *run.Graph, tc *run.TaskCache) (int, error) {
	if p.StderrTerminal {
		for _, note := range g.Notes {
			fmt.Fprintf(p.Stderr, "vx: note: %s\n", note)
		}
	}
	var sum *summaryOut
	stdout := p.Stdout
	var err error
	if a.set["summary"] {
		if sum, err = openSummary(p, a.str("summary")); err != nil {
			return ExitUsage, err
		}
		if sum.toStdout {
			stdout = p.Stderr // stdout holds the summary only
		}
	}
	if tc != nil {
		tc.TraceStrict = f.trace == run.TraceStrict
		tc.Explain = sum != nil || a.set["explain-misses"]
		tc.LogMisses = a.set["explain-misses"]
	}
	var prof *profileOut
	if a.set["profile"] {
		if prof, err = openProfile(p, a.str("profile")); err != nil {
			return ExitUsage, err
		}
	}
	if !p.gate.enter() {
		return run.StopCode(p.Context), nil // Main has returned: start nothing
	}
	if p.StartTasks != nil {
		p.StartTasks()
	}
	ot := startOtel(p, a, tc)
	out := run.Execute(p.Context, g, run.Options{
		Cache:          tc,
		Concurrency:    f.concurrency,
		Continue:       a.set["continue"],
		Grace:          f.grace,
		Timeout:        f.timeout,
		Retries:        f.retries,
		Args:           a.after,
		Env:            func(n *run.Node) []string { return run.TaskEnv(ws, n, p.Environ, p.GOOS) },
		Stdin:          p.Stdin,
		Stdout:         stdout,
		Stderr:         p.Stderr,
		Terminal:       p.StdinTerminal,
		OutputTerminal: p.StdoutTerminal && p.StderrTerminal,
		Color:          p.StdoutTerminal && p.StderrTerminal && !p.NoColor,
		Kill:           p.Kill,

		LogOrder:      f.logOrder,
		OutputLogs:    f.outputLogs,
		GitHubActions: f.github,
		Observer:      joinObservers(prof.observer(), ot.observer()),
		Trace:         tracing(p, f.trace, ws, g, tcStore(tc)),
	})
	ot.finish(p, out)
	if tc != nil {
		tc.Close()
	}
	if sum != nil {
		if err := sum.write(p, ws.Root, out, a.after, tc); err != nil {
			return out.Code(), err
		}
	}
	if prof != nil {
		if err := prof.write(p, out); err != nil {
			return out.Code(), err
		}
	}
	return out.Code(), nil
}

type planTask struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Task    string `json:"task"`
	Dir     string `json:"dir"`
	Command string `json:"command"`
	// Pre and Post are the pre<task> and post<task> scripts that run in the
	// task, before and after Command, as the package manager would; absent
	// when none.
	Pre       string   `json:"pre,omitempty"`
	Post      string   `json:"post,omitempty"`
	Args      []string `json:"args"`
	Argv      []string `json:"argv"` // what is started: the shell found in the task's PATH and its arguments
	DependsOn []string `json:"dependsOn"`
	Env       []string `json:"env"`
	Error     string   `json:"error,omitempty"` // why the task could not start (its shell is not in its PATH)
	// Persistent: the task runs until stopped; it holds no --concurrency slot.
	Persistent bool `json:"persistent"`
	// Cache is the task's cache key and whether the store has it; absent
	// when the task is not cached.
	Cache *planCache `json:"cache,omitempty"`
	// Why a target task's project was selected, when a filter or
	// --affected chose it: "changed: src/a.ts", "depends on ui".
	Why string `json:"why,omitempty"`
	// Timeout and Retries: the task's, from its entry or the flags;
	// absent when none.
	Timeout string `json:"timeout,omitempty"`
	Retries int    `json:"retries,omitempty"`
	// ReadyWhen: for a persistent task others wait for, when they may
	// start ("port 3000 within 60s"); absent without readyWhen.
	ReadyWhen string `json:"readyWhen,omitempty"`
}

// printPlan prints the steps; attempts, when set, says each task's
// timeout and retries.
func printPlan(w io.Writer, steps []run.Step, notes []string, tc *run.TaskCache, base string, asJSON bool, attempts func(*run.Node) (time.Duration, int)) error {
	tasks := make([]planTask, 0, len(steps))
	for _, s := range steps {
		n := s.Node
		t := planTask{ID: n.ID, Project: n.Project.Name, Task: n.Task, Dir: n.Project.Dir, Command: n.Script,
			Pre: n.Pre, Post: n.Post, Args: s.Args, Argv: s.Argv, DependsOn: []string{}, Env: []string{}, Persistent: n.Config.Persistent, Why: n.Why}
		for _, d := range n.Deps {
			t.DependsOn = append(t.DependsOn, d.ID)
		}
		if r := n.Config.ReadyWhen; r != nil && n.Config.Persistent {
			t.ReadyWhen = r.String() + " within " + config.FormatDuration(r.Wait())
		}
		for _, kv := range s.Env {
			k, _, _ := strings.Cut(kv, "=")
			t.Env = append(t.Env, k)
		}
		if s.Err != nil {
			t.Argv = []string{}
			t.Error = s.Err.Error()
		}
		t.Cache = planCacheOf(tc, n)
		if attempts != nil {
			if d, r := attempts(n); d > 0 || r > 0 {
				t.Retries = r
				if d > 0 {
					t.Timeout = config.FormatDuration(d)
				}
			}
		}
		tasks = append(tasks, t)
	}
	if asJSON {
		return writeJSON(w, struct {
			Base  string     `json:"base,omitempty"` // with --affected: the commit compared with
			Tasks []planTask `json:"tasks"`
			Notes []string   `json:"notes"`
		}{base, tasks, append([]string{}, notes...)})
	}
	for _, note := range notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	names := func(list []string) []string {
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = quote.Name(s)
		}
		return out
	}
	planned := map[string]bool{}
	for _, t := range tasks {
		planned[t.ID] = true
	}
	for i, t := range tasks {
		fmt.Fprintf(w, "%d. %s\n   dir:     %s\n", i+1, quote.Name(t.ID), quote.Name(t.Dir))
		if t.Pre != "" {
			fmt.Fprintf(w, "   pre:     %s\n", quote.Name(t.Pre))
		}
		fmt.Fprintf(w, "   command: %s\n", quote.Name(t.Command))
		if t.Post != "" {
			fmt.Fprintf(w, "   post:    %s\n", quote.Name(t.Post))
		}
		if t.Why != "" {
			fmt.Fprintf(w, "   why:     %s\n", t.Why)
		}
		if t.Persistent {
			fmt.Fprintf(w, "   persistent: runs until stopped, beside the --concurrency limit\n")
		}
		if t.ReadyWhen != "" {
			fmt.Fprintf(w, "   ready:   when %s\n", t.ReadyWhen)
		}
		if t.Timeout != "" {
			fmt.Fprintf(w, "   timeout: %s\n", t.Timeout)
		}
		if t.Retries > 0 {
			fmt.Fprintf(w, "   retries: %d\n", t.Retries)
		}
		if len(t.DependsOn) > 0 {
			after := names(t.DependsOn)
			for j, d := range t.DependsOn {
				if !planned[d] {
					after[j] += " (not run: --only)"
				}
			}
			fmt.Fprintf(w, "   after:   %s\n", strings.Join(after, ", "))
		}
		fmt.Fprintf(w, "   env:     %s\n", strings.Join(names(t.Env), " "))
		if t.Error != "" {
			fmt.Fprintf(w, "   error:   %s\n", t.Error)
		} else {
			fmt.Fprintf(w, "   runs:    %q\n", t.Argv)
		}
		switch c := t.Cache; {
		case c == nil:
		case c.Error != "":
			fmt.Fprintf(w, "   cache:   no key: %s\n", c.Error)
		case c.Hit:
			fmt.Fprintf(w, "   cache:   hit, key %s (%d input files)\n", c.Key[:16], len(c.Inputs))
		case c.RemoteHit != nil && *c.RemoteHit:
			fmt.Fprintf(w, "   cache:   remote hit, key %s (%d input files)\n", c.Key[:16], len(c.Inputs))
		default:
			fmt.Fprintf(w, "   cache:   miss, key %s (%d input files)\n", c.Key[:16], len(c.Inputs))
		}
	}
	return nil
}

var envCmd = &command{
	name:    "env",
	summary: "print the exact environment a task's child process gets",
	usage:   "vx env <task> | vx env <project>#<task> [--json]",
	flags: []flagSpec{
		{name: "json", kind: boolFlag, usage: "print a JSON object {task, env} instead of KEY=VALUE lines"},
		frameworkFlag,
	},
	run: runEnv,
}

func runEnv(p *Process, a *parsed) (int, error) {
	// Nothing after "--" goes to a script here: it names the task, so that
	// a project named like a flag can be given (vx env -- --filter#build).
	a.pos = append(a.pos, a.after...)
	if len(a.pos) != 1 {
		return ExitUsage, usagef("name one task: vx env build (in a project) or vx env web#build (vx env -- <task> for a name that starts with -)")
	}
	ws, cfg, err := load(p, a)
	if err != nil {
		return ExitUsage, err
	}
	proj, task := ws.Current, a.pos[0]
	if pr, t, ok, err := run.ExactTask(ws, a.pos[0]); err != nil {
		return ExitUsage, err
	} else if ok {
		proj, task = pr, t
	} else if proj == nil {
		return ExitUsage, usagef("the workspace root has no package.json; name the project too: vx env <project>#%s (vx ls lists the projects)", task)
	} else if proj.IsRoot && len(ws.Projects) > 1 {
		if _, ok := proj.Scripts[task]; !ok {
			return ExitUsage, usagef("at the workspace root, name the project too: vx env <project>#%s (vx ls lists the projects)", task)
		}
	}
	n, err := run.Task(cfg, proj, task)
	if err != nil {
		return ExitUsage, err
	}
	if err := run.CheckBinPaths(ws, []*run.Node{n}, p.GOOS); err != nil {
		return ExitUsage, err
	}
	env := run.TaskEnv(ws, n, p.Environ, p.GOOS)
	if a.set["json"] {
		m := make(map[string]string, len(env))
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if !utf8.ValidString(k) {
				return ExitUsage, usagef("--json: the variable name %s is not valid UTF-8, which JSON cannot carry; vx env without --json prints it byte for byte", quote.Q(k))
			}
			if !utf8.ValidString(v) {
				return ExitUsage, usagef("--json: the value of %s is not valid UTF-8, which JSON cannot carry; vx env without --json prints it byte for byte", quote.Name(k))
			}
			m[k] = v
		}
		return ExitOK, writeJSON(p.Stdout, struct {
			Task string            `json:"task"`
			Env  map[string]string `json:"env"`
		}{n.ID, m})
	}
	w := bufio.NewWriter(p.Stdout)
	for _, kv := range env {
		fmt.Fprintln(w, kv)
	}
	return ExitOK, w.Flush()
}

var lsCmd = &command{
	name:    "ls",
	summary: "list the workspace's projects",
	usage:   "vx ls [--json]",
	flags: []flagSpec{
		{name: "json", kind: boolFlag, usage: "print a JSON object {root, projects} instead of a table"},
	},
	run: runLs,
}

type lsProject struct {
	Name      string   `json:"name"`
	Dir       string   `json:"dir"`
	Path      string   `json:"path"`
	Version   string   `json:"version,omitempty"`
	Root      bool     `json:"root"`
	Scripts   []string `json:"scripts"`
	DependsOn []string `json:"dependsOn"`
}

func runLs(p *Process, a *parsed) (int, error) {
	if len(a.pos) > 0 {
		return ExitUsage, usagef("takes no arguments, got %q", a.pos[0])
	}
	ws, err := workspace.Discover(p.Dir)
	if err != nil {
		return ExitUsage, err
	}
	if dups := ws.Duplicates(); len(dups) > 0 {
		names := make([]string, 0, len(dups))
		for name := range dups {
			names = append(names, strconv.Quote(name))
		}
		sort.Strings(names)
		fmt.Fprintf(p.Stderr, "vx: warning: %d names are shared by several projects (%s); where a name must pick one project vx stops and names their directories\n", len(names), strings.Join(names, ", "))
	}
	var list []lsProject
	for _, pr := range ws.Projects {
		deps := make([]string, 0, len(pr.Deps))
		for _, d := range pr.Deps {
			deps = append(deps, d.Name)
		}
		scripts := make([]string, 0, len(pr.Scripts))
		for s := range pr.Scripts {
			scripts = append(scripts, s)
		}
		sort.Strings(scripts)
		list = append(list, lsProject{Name: pr.Name, Dir: pr.Dir, Path: pr.RelDir, Version: pr.Version, Root: pr.IsRoot,
			Scripts: scripts, DependsOn: deps})
	}
	if a.set["json"] {
		return ExitOK, writeJSON(p.Stdout, struct {
			Root     string      `json:"root"`
			Projects []lsProject `json:"projects"`
		}{ws.Root, list})
	}
	width := 0
	for _, l := range list {
		width = max(width, quote.Width(quote.Name(l.Name)))
	}
	w := bufio.NewWriter(p.Stdout)
	for _, l := range list {
		name := quote.Name(l.Name)
		fmt.Fprintf(w, "%s%s  %s\n", name, strings.Repeat(" ", width-quote.Width(name)), quote.Name(l.Path))
	}
	return ExitOK, w.Flush()
}

// writeJSON writes v indented, as every --json output of vx is.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
