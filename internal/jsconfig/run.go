package jsconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/diag"
	"github.com/vxrun/vx/internal/helper"
	"github.com/vxrun/vx/internal/jsconfig/wire"
)

// evaluated returns the default exports of files: from the memo when it
// holds, else from vx-config. save remembers a new evaluation once the
// caller found it valid (unless the config did something vx cannot see
// the inputs of) and returns how it was had (Result.Memo).
func evaluated(o Options, files []string) (results []wire.Result, save func() string, err error) {
	node, nodeErr := findNode(o.Environ, o.Root, o.GOOS)
	if o.MemoFile != "" && !o.Fresh && nodeErr == nil {
		if m := readMemo(o.MemoFile); m != nil && len(m.Results) == len(files) {
			if ok, _ := m.holds(o, files, node); ok {
				return m.Results, func() string { return MemoRemembered }, nil
			}
		}
	}
	if nodeErr != nil {
		return nil, nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("evaluating it needs Node.js %d or later, and there is no node on PATH", MinNode), Suggest: "install Node.js (https://nodejs.org), or write the configuration as vx.json"}
	}
	resp, err := runHelper(o, files, node.Path)
	if err != nil {
		return nil, nil, err
	}
	if resp.Error != nil {
		return nil, nil, wireError(resp.Error, files[0])
	}
	if len(resp.Results) != len(files) {
		return nil, nil, fmt.Errorf("jsconfig: vx-config answered with %d results for %d files", len(resp.Results), len(files))
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
	return resp.Results, save, nil
}

// runHelper starts vx-config on files and reads its answer. The helper,
// node and whatever the config starts are one process tree, ended when
// the time is up or o.Context is done.
func runHelper(o Options, files []string, node string) (*wire.Response, error) {
	limit, err := timeout(o.Environ, o.GOOS)
	if err != nil {
		return nil, err
	}
	prog, args, dir, err := findHelper(o)
	if err != nil {
		return nil, &diag.Error{Path: files[0], Msg: "cannot evaluate it: " + err.Error()}
	}
	req, _ := json.Marshal(wire.Request{Version: wire.Version, Root: o.Root, Files: files, Packages: packages(o), Node: node, GOOS: o.GOOS})
	ctx, cancel := context.WithTimeout(o.Context, limit)
	defer cancel()
	var out bytes.Buffer
	p, err := exec.Start(ctx, exec.Spec{Program: prog, Args: args, Dir: dir, Env: o.Environ, Stdin: bytes.NewReader(req), Stdout: &out, Stderr: o.Stderr})
	if err != nil {
		return nil, &diag.Error{Path: files[0], Msg: "cannot evaluate it", Err: err}
	}
	res, werr := p.Wait()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && o.Context.Err() == nil {
		return nil, &diag.Error{Path: files[0], Msg: fmt.Sprintf("not evaluated within %v: node was stopped", limit), Suggest: "does the config wait for something that never comes? " + TimeoutEnv + " sets the limit"}
	}
	if o.Context.Err() != nil {
		return nil, context.Cause(o.Context)
	}
	var resp wire.Response
	if jerr := json.Unmarshal(out.Bytes(), &resp); jerr != nil {
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

// findHelper returns how to start vx-config: the program beside vx or on
// PATH (or VX_CONFIG_HELPER), else, for a vx built from a source checkout
// (go run, go build), `go run ./cmd/vx-config` in that checkout.
func findHelper(o Options) (prog string, args []string, dir string, err error) {
	override, _ := exec.LookupEnv(o.Environ, HelperEnv, o.GOOS)
	pathEnv, _ := exec.LookupEnv(o.Environ, "PATH", o.GOOS)
	p, err := helper.Find("vx-config", override, HelperEnv, o.Exe, pathEnv, o.GOOS, nil)
	if err == nil {
		return p, nil, o.Root, nil
	}
	var nf *helper.NotFoundError
	if !errors.As(err, &nf) {
		return "", nil, "", err
	}
	if src, goProg, ok := sourceCheckout(o.Environ); ok {
		fmt.Fprintf(o.Stderr, "vx: %s; running it from vx's source at %s (go run ./cmd/vx-config; the first time compiles it)\n", nf.Error(), src)
		return goProg, []string{"run", "./cmd/vx-config"}, src, nil
	}
	return "", nil, "", fmt.Errorf("%v; install it with vx: go install github.com/vxrun/vx/cmd/...@latest (or set %s to its path)", strings.TrimSuffix(nf.Error(), "."), HelperEnv)
}
