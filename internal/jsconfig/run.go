package jsconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/helper"
	"github.com/vxrun/vx/internal/jsconfig/wire"
	"github.com/vxrun/vx/internal/quote"
)

// evaluated returns the default exports of files: from the memo when it
// holds, else from vx-config. save remembers a new evaluation once the
// caller found it valid (unless the config did something vx cannot see
// the inputs of) and returns how it was had (Result.Memo).
func evaluated(o Options, files []string) (results []wire.Result, deps []wire.Dep, save func() string, err error) {
	node, nodeErr := findNode(o.Environ, o.Root, o.GOOS)
	if o.MemoFile != "" && !o.Fresh && nodeErr == nil {
		if m := readMemo(o.MemoFile); m != nil && len(m.Results) == len(files) {
			if ok, _ := m.holds(o, files, node); ok {
				return m.Results, m.Deps, func() string { return MemoRemembered }, nil
			}
		}
	}
	if nodeErr != nil {
		return nil, nil, nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("evaluating it needs Node.js %d or later, and there is no node on PATH", MinNode), Suggest: "install Node.js (https://nodejs.org), or write the configuration as vx.json"}
	}
	resp, err := runHelper(o, files, node.Path)
	if err != nil {
		return nil, nil, nil, err
	}
	if resp.Error != nil {
		return nil, nil, nil, wireError(resp.Error, files[0])
	}
	if len(resp.Results) != len(files) {
		return nil, nil, nil, fmt.Errorf("jsconfig: vx-config answered with %d results for %d files", len(resp.Results), len(files))
	}
	save = func() string {
		if resp.Volatile != "" {
			return "evaluated, not remembered: " + resp.Volatile
		}
		if o.MemoFile == "" || o.MemoTemp == nil {
			return MemoEvaluated
		}
		node.Version = resp.NodeVersion
		m := &memoFile{VX: o.Version, Files: files, Packages: packages(o), Node: node, Deps: resp.Deps, Results: resp.Results}
		tmp, err := o.MemoTemp()
		if err == nil {
			err = writeMemo(o.MemoFile, tmp, m)
		}
		if err != nil {
			fmt.Fprintf(o.Stderr, "vx: cannot remember the evaluated config (%v): node will start on every run\n", err)
			return "evaluated, not remembered: " + err.Error()
		}
		return MemoEvaluated
	}
	return resp.Results, resp.Deps, save, nil
}

// runHelper starts vx-config on files and reads its answer. The helper,
// node and whatever the config starts are one process tree, ended when
// the time is up or o.Context is done. For a helper run from vx's source
// the time limit starts once the helper runs (its first byte on stdout,
// see [wire.Started]), not when vx starts it: `go run ./cmd/vx-config`
// compiles it first, which on a fresh machine takes minutes that are no
// fault of the config's. An installed helper's limit starts with it.
func runHelper(o Options, files []string, node string) (*wire.Response, error) {
	limit, err := timeout(o.Environ, o.GOOS)
	if err != nil {
		return nil, err
	}
	prog, args, dir, src, err := findHelperFunc(o)
	if err != nil {
		return nil, &diag.Error{Path: files[0], Msg: "cannot evaluate it: " + err.Error()}
	}
	req, _ := json.Marshal(wire.Request{Version: wire.Version, Root: o.Root, Files: files, Packages: packages(o), Node: node, GOOS: o.GOOS})
	ctx, cancel := context.WithCancelCause(o.Context)
	defer cancel(nil)
	out := &startedWriter{started: make(chan struct{})}
	if src == "" {
		// An installed helper runs at once: the limit starts now, so that
		// one older than wire.Started still has one.
		out.once.Do(func() { close(out.started) })
	}
	p, err := exec.Start(ctx, exec.Spec{Program: prog, Args: args, Dir: dir, Env: o.Environ, Stdin: bytes.NewReader(req), Stdout: out, Stderr: o.Stderr, Grace: helperGrace})
	if err != nil {
		return nil, &diag.Error{Path: files[0], Msg: "cannot evaluate it", Err: err}
	}
	ended := make(chan struct{})
	limited := make(chan struct{})
	go func() {
		defer close(limited)
		begun := time.Now()
		var note <-chan time.Time
		if src != "" {
			t := time.NewTimer(compileNoteAfter)
			defer t.Stop()
			note = t.C
		}
		noted := false
	wait:
		for {
			select {
			case <-out.started:
				break wait
			case <-ended:
				return
			case <-note:
				noted = true
				fmt.Fprintf(o.Stderr, "vx: compiling vx-config, vx's config helper, from vx's source (go run ./cmd/vx-config in %s): the first time takes a minute or more, later runs reuse Go's build; the config's %v limit starts once it runs\n", quote.Name(src), limit)
			}
		}
		if noted {
			fmt.Fprintf(o.Stderr, "vx: vx-config compiled in %v; evaluating %s\n", time.Since(begun).Round(time.Second), filepath.Base(files[0]))
		}
		t := time.NewTimer(limit)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(errTimeLimit)
		case <-ended:
		}
	}()
	res, werr := p.Wait()
	close(ended)
	<-limited
	if errors.Is(context.Cause(ctx), errTimeLimit) && o.Context.Err() == nil {
		return nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("not evaluated within %v: node was stopped", limit), Suggest: "does the config wait for something that never comes? " + TimeoutEnv + " sets the limit"}
	}
	if o.Context.Err() != nil {
		return nil, context.Cause(o.Context)
	}
	var resp wire.Response
	if jerr := json.Unmarshal(out.buf.Bytes(), &resp); jerr != nil {
		why := fmt.Sprintf("exit code %d", res.ExitCode)
		if werr != nil {
			why = werr.Error()
		}
		return nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("cannot evaluate it: %s ended without an answer (%s)", prog, why)}
	}
	if resp.Version != wire.Version {
		return nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("cannot evaluate it: %s speaks version %d of the protocol, vx %d", prog, resp.Version, wire.Version), Suggest: "install vx and vx-config from one release: go install github.com/vxrun/vx/cmd/...@latest"}
	}
	return &resp, nil
}

// findHelperFunc is findHelper; a test makes it a helper that compiles.
var findHelperFunc = findHelper

// helperGrace is how long vx-config has, once stopped, to stop node and
// end what the config started detached, before its tree is killed.
const helperGrace = 3 * time.Second

// errTimeLimit is the cause an evaluation is stopped with at its limit.
var errTimeLimit = errors.New("jsconfig: the evaluation's time limit")

// compileNoteAfter is how long a helper run from source may take to start
// before vx says that it is compiling it.
var compileNoteAfter = 2 * time.Second

// startedWriter collects the helper's answer and says when its first byte
// came: the helper runs.
type startedWriter struct {
	buf     bytes.Buffer
	started chan struct{}
	once    sync.Once
}

func (w *startedWriter) Write(b []byte) (int, error) {
	if len(b) > 0 {
		w.once.Do(func() { close(w.started) })
	}
	return w.buf.Write(b)
}

// findHelper returns how to start vx-config: the program beside vx or on
// PATH (or VX_CONFIG_HELPER), else, for a vx built from a source checkout
// (go run, go build), `go run ./cmd/vx-config` in that checkout, src
// being that checkout.
func findHelper(o Options) (prog string, args []string, dir, src string, err error) {
	override, _ := exec.LookupEnv(o.Environ, HelperEnv, o.GOOS)
	pathEnv, _ := exec.LookupEnv(o.Environ, "PATH", o.GOOS)
	p, err := helper.Find("vx-config", override, HelperEnv, o.Exe, pathEnv, o.GOOS, nil)
	if err == nil {
		return p, nil, o.Root, "", nil
	}
	var nf *helper.NotFoundError
	if !errors.As(err, &nf) {
		return "", nil, "", "", err
	}
	if src, goProg, ok := sourceCheckout(o.Environ); ok {
		return goProg, []string{"run", "./cmd/vx-config"}, src, src, nil
	}
	return "", nil, "", "", fmt.Errorf("%v; install it with vx: go install github.com/vxrun/vx/cmd/...@latest (or set %s to its path)", strings.TrimSuffix(nf.Error(), "."), HelperEnv)
}
