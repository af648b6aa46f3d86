package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/run"
	"github.com/vxrun/vx/workspace"
)

// CacheDirEnv names the variable that chooses the cache's store, as
// --cache-dir does (the flag wins).
const CacheDirEnv = "VX_CACHE_DIR"

var cacheRunFlags = []flagSpec{
	{name: "force", kind: boolFlag, usage: "run every task, even those the cache holds, and store the results"},
	{name: "no-cache", kind: boolFlag, usage: "neither read nor write the task cache"},
	{name: "no-lock", kind: boolFlag, usage: "take no task lock and wait for none (another vx holds one, e.g. stopped with Ctrl-Z); hits are restored, no result is stored"},
	{name: "cache-dir", kind: stringFlag, arg: "DIR", usage: "the cache's store (default: $VX_CACHE_DIR, else node_modules/.cache/vx at the workspace root, the main worktree's in a linked git worktree)"},
}

// CacheWorktreesEnv names the variable that says whether the git
// worktrees of one repository share one store: "shared" (the default) or
// "separate".
const CacheWorktreesEnv = "VX_CACHE_WORKTREES"

// cacheDir returns the store's directory: --cache-dir, else VX_CACHE_DIR,
// else the default store of the workspace at root ([defaultStore]). A
// relative directory is taken from vx's working directory.
func cacheDir(p *Process, a *parsed, root string) (string, error) {
	dir := a.str("cache-dir")
	if dir == "" {
		dir, _ = exec.LookupEnv(p.Environ, CacheDirEnv, p.GOOS)
	}
	if dir == "" {
		return defaultStore(p, root)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(p.Dir, dir)
	}
	return filepath.Clean(dir), nil
}

// defaultStore returns node_modules/.cache/vx at root; in a linked git
// worktree, the same directory of the same workspace in the main worktree,
// which all the repository's worktrees share (unless VX_CACHE_WORKTREES is
// "separate", or the main worktree has no such workspace directory, or
// the repository is bare). It is found by reading git's files, without
// running git ([cache.FindCheckout]).
func defaultStore(p *Process, root string) (string, error) {
	local := filepath.Join(root, "node_modules", ".cache", "vx")
	switch v, _ := exec.LookupEnv(p.Environ, CacheWorktreesEnv, p.GOOS); v {
	case "", "shared":
	case "separate":
		return local, nil
	default:
		return "", usagef("%s takes shared or separate, not %q", CacheWorktreesEnv, v)
	}
	if dir, _ := cache.FindCheckout(root).SharedStoreDir(); dir != "" {
		return dir, nil
	}
	return local, nil
}

// sharing says whether the default store of the workspace at root is
// shared by git worktrees, for vx cache status: with the main worktree's,
// the linked worktrees it has, or why a linked one keeps its own; "" for
// a checkout without worktrees.
func sharing(p *Process, root string) string {
	if v, _ := exec.LookupEnv(p.Environ, CacheWorktreesEnv, p.GOOS); v == "separate" {
		return "no: " + CacheWorktreesEnv + "=separate"
	}
	co := cache.FindCheckout(root)
	if co.Bare != "" {
		return "with the git worktrees of the bare repository " + co.Bare
	}
	if co.Main != "" {
		if dir, why := co.SharedStoreDir(); dir == "" {
			return "no: " + why
		}
		return "with the git worktrees of " + co.Main
	}
	if co.Why != "" {
		return "no: " + co.Why
	}
	if co.Top == "" {
		return ""
	}
	ents, _ := os.ReadDir(filepath.Join(co.Top, ".git", "worktrees"))
	n := 0
	for _, e := range ents {
		if e.IsDir() {
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return "with the repository's linked git worktree"
	}
	return fmt.Sprintf("with the repository's %d linked git worktrees", n)
}

// openCache returns the task cache of a run, or nil when the run has no
// cacheable task or --no-cache is given. A store that cannot be opened is a
// warning: the run goes on without the cache. A directory that is not a
// store vx made (*cache.NotStoreError) is an error: the user named the
// wrong directory, and vx must not fill it or prune it.
//
// With a remote cache configured (rc), the vx-remote helper is started: the
// remote is asked after a local miss, and receives what the run stores when
// rc.Write is set. cfg's remote settings, with vx's environment, choose the
// secret the variables' values are hashed with ([envKey]).
func openCache(p *Process, a *parsed, ws *workspace.Workspace, cfg *config.Config, g *run.Graph, write bool, rc *remote.Config) (*run.TaskCache, error) {
	if a.set["no-cache"] {
		return nil, nil
	}
	any := false
	for _, n := range g.Nodes {
		any = any || n.Cacheable
	}
	if !any {
		return nil, nil
	}
	dir, err := cacheDir(p, a, ws.Root)
	if err != nil {
		return nil, err
	}
	o := cache.Options{
		Dir:     dir,
		Root:    ws.Root,
		Environ: p.Environ,
		Read:    !a.set["force"],
		Write:   write && !a.set["no-lock"], // without the lock, outputs another vx writes could be stored
		NoLock:  a.set["no-lock"],
		DryRun:  !write, // a run writes; only --dry-run does not
		Context: p.Context,
		Warn:    p.Stderr,
		GOOS:    p.GOOS,
		Version: Version,
		EnvKey:  envKey(p, a, cfg),
	}
	for _, pr := range ws.Projects {
		o.Projects = append(o.Projects, pr.RelDir)
	}
	if rc != nil && (o.Read || (write && rc.Write)) {
		if write && rc.Write && rc.SigningKey == "" && declares(g) {
			// Once per run, where the keys leave the machine: the
			// Commands this run uploads name each variable with its hash.
			fmt.Fprintf(p.Stderr, "vx: without %s, the declared variables' values in the keys this run uploads are hashed "+
				"with a public salt: whoever reads the remote cache can check a guess of a value; set %s on every machine "+
				"that shares the cache (docs/cache.md, \"Declared values\")\n", RemoteSigningEnv, RemoteSigningEnv)
		}
		// The helper starts on the first remote call: a run whose tasks
		// all hit the local store never starts it.
		o.Remote = remote.NewLazy(func() (*remote.Client, error) { return startRemote(p, rc) })
		o.RemoteWrite = o.Write && rc.Write
	}
	c, err := cache.New(o)
	if err != nil {
		if o.Remote != nil {
			o.Remote.Close()
		}
		var nse *cache.NotStoreError
		if errors.As(err, &nse) {
			return nil, err
		}
		fmt.Fprintf(p.Stderr, "vx: the task cache is off for this run: %v\n", err)
		return nil, nil
	}
	tc := &run.TaskCache{C: c, WS: ws, Parent: p.Environ, Args: a.after, GOOS: p.GOOS}
	tc.Start(g.KeyedNodes())
	return tc, nil
}

// declares reports whether a cached task of g declares variables
// (passThrough or define): values that may be secret enter its key.
func declares(g *run.Graph) bool {
	for _, n := range g.Nodes {
		if n.Cacheable && (len(n.Config.PassThrough) > 0 || len(n.Config.Define) > 0) {
			return true
		}
	}
	return false
}

// planCache is a task's cache key in --dry-run=json: the key and what it
// is made of.
type planCache struct {
	Key string `json:"key"` // the SHA-256 of the REAPI Action
	Hit bool   `json:"hit"` // the local store holds a usable entry
	// RemoteHit: the remote cache holds a usable entry (asked only when a
	// remote is configured and the local store has none).
	RemoteHit *bool             `json:"remoteHit,omitempty"`
	Command   string            `json:"command"`
	InputRoot string            `json:"inputRoot"`
	Env       map[string]string `json:"env"` // the key's variables, values hashed with a secret (cache.EnvKey)
	Platform  map[string]string `json:"platform"`
	Deps      map[string]string `json:"deps"` // dependency ID → its key
	Inputs    []cache.InputFile `json:"inputs"`
	Outputs   []string          `json:"outputs"`
	Error     string            `json:"error,omitempty"`
}

func planCacheOf(tc *run.TaskCache, n *run.Node) *planCache {
	if tc == nil || !n.Cacheable {
		return nil
	}
	k, err := tc.Key(n)
	if err != nil {
		return &planCache{Error: err.Error()}
	}
	pc := &planCache{Key: k.Action.Hash, Hit: tc.C.Has(k), Command: k.Command.Hash, InputRoot: k.InputRoot.Hash,
		Env: map[string]string{}, Platform: map[string]string{}, Deps: map[string]string{}, Inputs: k.Inputs,
		Outputs: append([]string{}, n.Config.Outputs...)}
	if !pc.Hit && tc.C.HasRemote() {
		rh := tc.C.RemoteHas(k)
		pc.RemoteHit = &rh
	}
	for _, e := range k.Env {
		pc.Env[e.Name] = e.Value
	}
	for _, e := range k.Platform {
		pc.Platform[e.Name] = e.Value
	}
	for _, d := range k.Deps {
		pc.Deps[d.ID] = d.Action.Hash
	}
	if pc.Inputs == nil {
		pc.Inputs = []cache.InputFile{}
	}
	return pc
}

var cacheCmd = &command{
	name:    "cache",
	summary: "show or prune the task cache's store",
	usage:   "vx cache status [--json] | vx cache prune [--max-size 5GB] [--max-age 7d]  [--cache-dir DIR]",
	flags: []flagSpec{
		{name: "max-size", kind: stringFlag, arg: "SIZE", usage: "prune: keep the most recently used entries within SIZE (500MB, 5GB, 5GiB)"},
		{name: "max-age", kind: stringFlag, arg: "AGE", usage: "prune: remove entries not used for AGE (7d, 12h, 30m)"},
		{name: "cache-dir", kind: stringFlag, arg: "DIR", usage: "the store (default: $VX_CACHE_DIR, else node_modules/.cache/vx at the workspace root, the main worktree's in a linked git worktree)"},
		{name: "json", kind: boolFlag, usage: "status: print a JSON object"},
	},
	run: runCache,
}

func runCache(p *Process, a *parsed) (int, error) {
	if len(a.pos) != 1 || (a.pos[0] != "status" && a.pos[0] != "prune") {
		return ExitUsage, usagef("vx cache takes status or prune: vx cache status, vx cache prune --max-size 5GB")
	}
	if a.pos[0] == "prune" && (a.set["remote-cache"] || a.set["remote-instance"]) {
		return ExitUsage, usagef("cache prune prunes the local store only; a remote cache prunes itself")
	}
	dir := a.str("cache-dir")
	shared := "" // what status says of the worktrees sharing the default store
	// vx.json may name a remote cache; status reports it. Outside a
	// workspace there is no vx.json, and that is fine.
	var cfg *config.Config
	if ws, err := workspace.Discover(p.Dir); err == nil {
		if res, err := loadConfig(p, a, ws, false); err == nil {
			cfg = res.Config
		}
	}
	if dir == "" {
		if v, _ := exec.LookupEnv(p.Environ, CacheDirEnv, p.GOOS); v == "" {
			ws, err := workspace.Discover(p.Dir)
			if err != nil {
				return ExitUsage, err
			}
			if dir, err = cacheDir(p, a, ws.Root); err != nil {
				return ExitUsage, err
			}
			shared = sharing(p, ws.Root)
		}
	}
	if dir == "" {
		dir, _ = cacheDir(p, a, "") // VX_CACHE_DIR is set
	} else if !filepath.IsAbs(dir) {
		dir = filepath.Join(p.Dir, dir)
	}
	st := &cache.Store{Dir: dir}
	if a.pos[0] == "status" {
		s, err := st.Status()
		if err != nil {
			return 1, err
		}
		rc, err := remoteConfig(p, a, cfg)
		if err != nil {
			return ExitUsage, err
		}
		var rs *remoteStatus
		if rc != nil {
			rs = probeRemote(p, rc)
		}
		if a.set["json"] {
			return ExitOK, writeJSON(p.Stdout, struct {
				cache.Status
				Shared string        `json:"shared,omitempty"`
				Remote *remoteStatus `json:"remote,omitempty"`
			}{s, shared, rs})
		}
		fmt.Fprintf(p.Stdout, "store:   %s\n", s.Dir)
		if shared != "" {
			fmt.Fprintf(p.Stdout, "shared:  %s\n", shared)
		}
		fmt.Fprintf(p.Stdout, "size:    %s\nentries: %d (%d blobs)\n", humanBytes(s.Bytes), s.Entries, s.Blobs)
		if lr := s.LastRun; lr != nil {
			remoteHits := ""
			if lr.RemoteHits > 0 {
				remoteHits = fmt.Sprintf(" (%d remote)", lr.RemoteHits)
			}
			fmt.Fprintf(p.Stdout, "last run: %s: %d hits%s, %d misses, %d stored\n", lr.Time.Format(time.RFC3339), lr.Hits, remoteHits, lr.Misses, lr.Stored)
		} else {
			fmt.Fprintf(p.Stdout, "last run: none recorded\n")
		}
		if rs != nil {
			printRemoteStatus(p, rs)
		}
		return ExitOK, nil
	}
	var o cache.PruneOptions
	if v := a.str("max-size"); v != "" {
		n, err := parseSize(v)
		if err != nil {
			return ExitUsage, usagef("--max-size takes a size such as 500MB, 5GB or 5GiB, not %q", v)
		}
		o.MaxSize = n
	}
	if v := a.str("max-age"); v != "" {
		d, err := parseAge(v)
		if err != nil {
			return ExitUsage, usagef("--max-age takes an age such as 7d, 12h or 30m, not %q", v)
		}
		o.MaxAge = d
	}
	if !a.set["max-size"] && !a.set["max-age"] {
		o.MaxSize = cache.DefaultMaxSize
	}
	res, err := st.Prune(o)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(p.Stdout, "removed %d entries and %d blobs (%s); %d entries left, %s\n",
		res.RemovedEntries, res.RemovedBlobs, humanBytes(res.RemovedBytes), res.Entries, humanBytes(res.Bytes))
	return ExitOK, nil
}

// parseSize reads 1234, 500KB, 500MB, 5GB (powers of 1000) or 5KiB, 5MiB,
// 5GiB (powers of 1024); case does not matter.
func parseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, suf := range []struct {
		s string
		m int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1}} {
		if strings.HasSuffix(u, suf.s) {
			u, mult = strings.TrimSpace(strings.TrimSuffix(u, suf.s)), suf.m
			break
		}
	}
	f, err := strconv.ParseFloat(u, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(f * float64(mult)), nil
}

// parseAge reads a Go duration or a number of days ("7d").
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(d, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad age %q", s)
		}
		return time.Duration(n * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad age %q", s)
	}
	return d, nil
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
