package run

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/nodeprog"
	"github.com/vxrun/vx/workspace"

	"github.com/vxrun/vx/internal/inputfile"
)

// pmInfo is what tasks are told about the workspace's package manager:
// npm_config_user_agent and npm_execpath, as that package manager sets
// them for the scripts it runs.
type pmInfo struct {
	agent, execPath string
}

// pmInfos memoizes pmVars per workspace and PATH: the lookup reads a few
// files, and every task of a run asks.
var pmInfos sync.Map // pmKey -> pmInfo

type pmKey struct {
	ws         *workspace.Workspace
	path, goos string
}

// pmVars returns the npm_config_user_agent and npm_execpath of ws's
// package manager for a run started with environ on goos.
//
// The user agent is the package manager's own format: "npm/<v> node/<n>
// <os> <arch> workspaces/false" for npm, "<pm>/<v> npm/? node/<n> <os>
// <arch>" for pnpm, yarn and bun, where <os> and <arch> are Node's names
// (linux, darwin, win32; x64, arm64, ia32). The version is the
// "packageManager" field's, else the installed package manager's (its
// package.json, found through PATH), else "?". Node's version here comes
// from the user agent vx itself was given (vx started by npm or pnpm),
// else it is "?"; [taskEnviron] puts in the version of the node the task
// really runs ([nodeprog]) when its PATH has one.
//
// npm_execpath is the package manager's JavaScript entry point, as the
// package manager itself sets it (npm-cli.js for npm, pnpm.cjs for pnpm,
// yarn.js for yarn 1, the .yarnrc.yml yarnPath release for yarn 2+, the
// bun binary for bun): tools such as npm-run-all2 run "node $npm_execpath
// run x" to reach the same package manager. It is found through environ's
// PATH and left out (unset) when the package manager is not installed.
func pmVars(ws *workspace.Workspace, environ []string, goos string) (agent, execPath string) {
	path, _ := exec.LookupEnv(environ, "PATH", goos)
	key := pmKey{ws, path, goos}
	if v, ok := pmInfos.Load(key); ok {
		info := v.(pmInfo)
		return info.agent, info.execPath
	}
	pm := ws.PackageManager
	version, execPath := pm.Version, ""
	if pm.Name == "yarn" && pm.Major != 1 {
		if rel := yarnPath(ws.Root); rel != "" {
			p := filepath.Join(ws.Root, filepath.FromSlash(rel))
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				execPath = p
				if version == "" {
					if m := releaseVersion().FindStringSubmatch(filepath.Base(p)); m != nil {
						version = m[1]
					}
				}
			}
		}
	}
	if execPath == "" {
		if entry, v := findPM(pm.Name, environ, goos); entry != "" {
			execPath = entry
			if version == "" {
				version = v
			}
		}
	}
	if version == "" {
		version = "?"
	}
	node := nodeVersion(environ, goos)
	osName, arch := nodePlatform(goos, runtime.GOARCH)
	if pm.Name == "npm" {
		agent = "npm/" + version + " node/" + node + " " + osName + " " + arch + " workspaces/false"
	} else {
		agent = pm.Name + "/" + version + " npm/? node/" + node + " " + osName + " " + arch
	}
	pmInfos.Store(key, pmInfo{agent, execPath})
	return agent, execPath
}

var releaseVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yarn-(\d+\.\d+\.\d+[^/]*?)\.c?js$`) })

// yarnPath returns .yarnrc.yml's yarnPath at root, "" when none.
func yarnPath(root string) string {
	data, err := inputfile.ReadLimit(filepath.Join(root, ".yarnrc.yml"), 1<<20)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "yarnPath:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// findPM finds the package manager name in environ's PATH and returns its
// entry point and version: the file the command links to when that is a
// script of the package (npm's bin/npm-cli.js, pnpm's bin/pnpm.cjs), else
// the package's "bin" entry for name (Windows .cmd shims, shell wrappers),
// else the command itself (bun, a standalone binary).
func findPM(name string, environ []string, goos string) (entry, version string) {
	cmd, err := exec.LookPath(name, environ)
	if err != nil {
		return "", ""
	}
	real, err := filepath.EvalSymlinks(cmd)
	if err != nil {
		real = cmd
	}
	// The package holding the file: up to three levels up (bin/, dist/bin/).
	dir := filepath.Dir(real)
	for range 3 {
		if e, v, ok := pmPackage(dir, name); ok {
			if isJS(real) {
				return real, v
			}
			if e != "" {
				return e, v
			}
			return real, v
		}
		dir = filepath.Dir(dir)
	}
	// A shim beside the package (npm's Windows .cmd files, Unix prefixes
	// without links): <dir>/node_modules/<name>.
	if e, v, ok := pmPackage(filepath.Join(filepath.Dir(cmd), "node_modules", name), name); ok && e != "" {
		return e, v
	}
	if goos != "windows" || !strings.EqualFold(filepath.Ext(cmd), ".cmd") {
		return real, "" // a standalone binary (bun)
	}
	return "", ""
}

var jsExt = []string{".js", ".cjs", ".mjs"}

func isJS(p string) bool {
	for _, e := range jsExt {
		if strings.HasSuffix(p, e) {
			return true
		}
	}
	return false
}

// pmPackage reads dir/package.json and reports whether it is the package
// name, with its version and the absolute path of its bin entry for name.
func pmPackage(dir, name string) (entry, version string, ok bool) {
	data, err := inputfile.ReadLimit(filepath.Join(dir, "package.json"), 1<<20)
	if err != nil {
		return "", "", false
	}
	pkg, version, bin, ok := workspace.PackageBin(data, name)
	if !ok {
		if pkg, version, bin, ok = packageBinJSON(data, name); !ok {
			return "", "", false
		}
	}
	if pkg != name {
		return "", "", false
	}
	if bin != "" {
		entry = filepath.Join(dir, filepath.FromSlash(bin))
	}
	if entry != "" && !isJS(entry) {
		// A launcher script (pnpm ships bin/pnpm.cjs beside a shell
		// wrapper in some layouts): prefer a JS file of the same name.
		for _, e := range jsExt {
			if _, err := os.Stat(entry + e); err == nil {
				entry += e
				break
			}
		}
	}
	return entry, version, true
}

// packageBinJSON is [workspace.PackageBin] with encoding/json, for what
// that leaves to it.
func packageBinJSON(data []byte, binName string) (name, version, bin string, ok bool) {
	var m struct {
		Name    string          `json:"name"`
		Version string          `json:"version"`
		Bin     json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(data, &m) != nil {
		return "", "", "", false
	}
	var bins map[string]string
	if json.Unmarshal(m.Bin, &bins) == nil {
		bin = bins[binName]
	} else if json.Unmarshal(m.Bin, &bin) != nil {
		bin = ""
	}
	return m.Name, m.Version, bin, true
}

// agentNode finds Node's version in a user agent: "... node/v20.1.0 ...".
var agentNode = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^| )node/(v\d+\.\d+\.\d+)(?: |$)`) })

// nodeVersion returns Node's version as "v20.1.0" from environ's own
// npm_config_user_agent when vx was started by a package manager, else "?".
func nodeVersion(environ []string, goos string) string {
	if ua, ok := exec.LookupEnv(environ, "npm_config_user_agent", goos); ok {
		if m := agentNode().FindStringSubmatch(ua); m != nil {
			return m[1]
		}
	}
	return "?"
}

// withNode returns the user agent agent (pmVars's) with node's version v.
func withNode(agent, v string) string {
	pre, rest, ok := strings.Cut(agent, " node/")
	if !ok {
		return agent
	}
	_, post, _ := strings.Cut(rest, " ")
	return pre + " node/" + v + " " + post
}

// nodeFinders holds one [nodeprog.Finder] per workspace and OS rules: the
// node of every task's environment, found once per PATH directory, pin
// files and identity.
var nodeFinders sync.Map // nodeFinderKey -> *nodeprog.Finder

type nodeFinderKey struct {
	ws   *workspace.Workspace
	goos string
}

// RememberNodeVersions gives the runs in ws with goos's rules the memo m
// for the versions of node their tasks' user agent holds, unless they have
// one: the task cache's ([TaskCache.Start]) replaces it. Without a memo,
// every run starts node --version.
func RememberNodeVersions(ws *workspace.Workspace, goos string, m nodeprog.Memo) {
	nodeFinder(ws, goos).SetMemo(m)
}

func nodeFinder(ws *workspace.Workspace, goos string) *nodeprog.Finder {
	k := nodeFinderKey{ws, goos}
	if f, ok := nodeFinders.Load(k); ok {
		return f.(*nodeprog.Finder)
	}
	f, _ := nodeFinders.LoadOrStore(k, &nodeprog.Finder{GOOS: goos})
	return f.(*nodeprog.Finder)
}

// nodePlatform maps Go's GOOS and GOARCH to Node's process.platform and
// process.arch.
func nodePlatform(goos, goarch string) (string, string) {
	switch goos {
	case "windows":
		goos = "win32"
	case "":
		goos = runtime.GOOS
	}
	switch goarch {
	case "amd64":
		goarch = "x64"
	case "386":
		goarch = "ia32"
	case "ppc64le":
		goarch = "ppc64"
	}
	return goos, goarch
}
