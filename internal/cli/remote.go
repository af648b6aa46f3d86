package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/exec"
	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/remote/wire"
)

// The variables that configure the remote cache. They are vx's own
// settings: read from vx's environment, never passed to a task (see
// run.TaskEnv), and the secret ones are never printed.
const (
	RemoteCacheEnv    = "VX_REMOTE_CACHE"
	RemoteInstanceEnv = "VX_REMOTE_INSTANCE"
	RemoteWriteEnv    = "VX_REMOTE_WRITE"
	RemoteHeaderEnv   = "VX_REMOTE_HEADER"
	RemoteSigningEnv  = "VX_REMOTE_SIGNING_KEY"
	RemoteTLSCertEnv  = "VX_REMOTE_TLS_CERT"
	RemoteTLSKeyEnv   = "VX_REMOTE_TLS_KEY"
	RemoteTLSCAEnv    = "VX_REMOTE_TLS_CA"
	RemoteTimeoutEnv  = "VX_REMOTE_TIMEOUT"
	RemoteHelperEnv   = "VX_REMOTE_HELPER"
	RemoteTokenEnv    = "VX_REMOTE_TOKEN"
)

// turbo's variables for its remote cache, read so that a team's CI
// secrets work unchanged (docs/cache.md, "A turbo server"). vx's own
// settings win over them.
const (
	TurboAPIEnv          = "TURBO_API"
	TurboTokenEnv        = "TURBO_TOKEN"
	TurboTeamEnv         = "TURBO_TEAM"
	TurboTeamIDEnv       = "TURBO_TEAMID"
	TurboSignatureKeyEnv = "TURBO_REMOTE_CACHE_SIGNATURE_KEY"
	TurboReadOnlyEnv     = "TURBO_REMOTE_CACHE_READ_ONLY"
	TurboTimeoutEnv      = "TURBO_REMOTE_CACHE_TIMEOUT"
)

// vercelAPI is turbo's default server: with TURBO_TOKEN and a team set
// and no URL anywhere, turbo (and so vx) uses Vercel's remote cache.
const vercelAPI = "https://vercel.com/api"

var remoteFlags = []flagSpec{
	{name: "remote-cache", kind: stringFlag, arg: "URL", usage: "share the cache through a REAPI v2 server (grpc://host:port, grpcs://host[:port]) or a turbo remote cache server (https://host[/path]) (default: $VX_REMOTE_CACHE, else remoteCache.url in vx.config.ts or vx.json, else $TURBO_API)"},
	{name: "remote-instance", kind: stringFlag, arg: "NAME", usage: "the remote cache's instance name; for a turbo server the team, team_... or a slug (default: $VX_REMOTE_INSTANCE, else remoteCache.instance in vx.config.ts or vx.json, else $TURBO_TEAMID and $TURBO_TEAM)"},
}

var remoteWriteFlag = flagSpec{name: "remote-write", kind: boolFlag, usage: "upload results to the remote cache (default: read only, unless VX_REMOTE_WRITE=1)"}

// remoteConfig returns the remote cache's settings, or nil when none is
// configured. A flag beats the variable, which beats vx.json, which beats
// turbo's variables, which beat turbo.json's "remoteCache" (read when vx
// runs a turbo.json, so never together with a vx config); the header, the
// token, the TLS files and the signing key come only from the environment
// (docs/cache.md, "Sharing the cache"; docs/from-turbo.md).
func remoteConfig(p *Process, a *parsed, cfg *config.Config) (*remote.Config, error) {
	env := func(name string) string {
		v, _ := exec.LookupEnv(p.Environ, name, p.GOOS)
		return v
	}
	var file config.RemoteCache
	var tj *config.TurboRemote
	if cfg != nil {
		file, tj = cfg.RemoteCache, cfg.TurboRemote
	}
	rc := &remote.Config{
		URL:      remoteURL(p, a, cfg),
		Instance: remoteSetting(p, a, "remote-instance", RemoteInstanceEnv, file.Instance),
		Header:   env(RemoteHeaderEnv),
		TLSCert:  env(RemoteTLSCertEnv),
		TLSKey:   env(RemoteTLSKeyEnv),
		TLSCA:    env(RemoteTLSCAEnv),
		Token:    env(RemoteTokenEnv),
	}
	rc.SigningKey = signingKey(p, rc.URL)
	if rc.URL == "" {
		if a.set["remote-write"] {
			return nil, usagef("--remote-write needs a remote cache: --remote-cache URL, VX_REMOTE_CACHE or TURBO_API")
		}
		return nil, nil
	}
	if rc.Protocol() == remote.ProtocolTurbo {
		if rc.Token == "" {
			rc.Token = env(TurboTokenEnv)
		}
		// The team: vx's instance setting, else turbo's variables, else
		// turbo.json's, each of the two on its own (as turbo merges them).
		switch {
		case strings.HasPrefix(rc.Instance, "team_"):
			rc.TeamID = rc.Instance
		case rc.Instance != "":
			rc.TeamSlug = rc.Instance
		default:
			rc.TeamID, rc.TeamSlug = turboTeam(p, tj)
		}
		rc.Instance = ""
		if tj != nil && tj.Signature && rc.SigningKey == "" {
			// The team wants signed entries only: reading without a key
			// would take unsigned ones.
			fmt.Fprintf(p.Stderr, "vx: %s: \"remoteCache.signature\" is true but no signing key is set (%s or %s): continuing without the remote cache\n",
				filepath.Base(tj.Path), TurboSignatureKeyEnv, RemoteSigningEnv)
			return nil, nil
		}
		if v := env(TurboTimeoutEnv); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, usagef("%s takes whole seconds, not %q", TurboTimeoutEnv, v)
			}
			rc.Timeout = time.Duration(n) * time.Second
		} else if tj != nil {
			rc.Timeout = time.Duration(tj.Timeout) * time.Second
		}
	}
	switch {
	case a.set["remote-write"]:
		rc.Write = true
	case env(TurboReadOnlyEnv) != "":
		v := env(TurboReadOnlyEnv)
		ro, err := strconv.ParseBool(v)
		if err != nil {
			return nil, usagef("%s takes true or false (1 or 0), not %q", TurboReadOnlyEnv, v)
		}
		if !ro {
			if rc.Write, err = writeEnv(env(RemoteWriteEnv)); err != nil {
				return nil, err
			}
		}
	default:
		var err error
		if rc.Write, err = writeEnv(env(RemoteWriteEnv)); err != nil {
			return nil, err
		}
	}
	if v := env(RemoteTimeoutEnv); v != "" { // beats turbo's timeout
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, usagef("%s takes a duration such as 5s or 500ms, not %q", RemoteTimeoutEnv, v)
		}
		rc.Timeout = d
	}
	if err := rc.Check(); err != nil {
		return nil, usagef("%v", rc.Redact(err.Error()))
	}
	return rc, nil
}

// writeEnv reads VX_REMOTE_WRITE.
func writeEnv(v string) (bool, error) {
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, usagef("%s takes 1 or 0 (true or false), not %q", RemoteWriteEnv, v)
	}
	return b, nil
}

// remoteURL is the remote cache's URL: --remote-cache, else
// VX_REMOTE_CACHE, else vx.json's remoteCache.url; else, unless
// turbo.json's remoteCache says "enabled": false, TURBO_API, else
// turbo.json's apiUrl when a token is set (turbo uses no remote without
// one), else, when a token and a team (TURBO_TEAM, TURBO_TEAMID or
// turbo.json's) are set, Vercel's, as turbo does; "" for none.
func remoteURL(p *Process, a *parsed, cfg *config.Config) string {
	var file string
	var tj *config.TurboRemote
	if cfg != nil {
		file, tj = cfg.RemoteCache.URL, cfg.TurboRemote
	}
	if u := remoteSetting(p, a, "remote-cache", RemoteCacheEnv, file); u != "" || a.set["remote-cache"] {
		return u
	}
	if tj != nil && tj.Disabled {
		return ""
	}
	env := func(name string) string {
		v, _ := exec.LookupEnv(p.Environ, name, p.GOOS)
		return v
	}
	if u := env(TurboAPIEnv); u != "" {
		return u
	}
	token := env(TurboTokenEnv) != "" || env(RemoteTokenEnv) != ""
	if token && tj != nil && tj.APIURL != "" {
		return tj.APIURL
	}
	if id, slug := turboTeam(p, tj); env(TurboTokenEnv) != "" && (id != "" || slug != "") {
		return vercelAPI
	}
	return ""
}

// turboTeam is the team of a turbo server from turbo's settings: its
// variables, else turbo.json's (tj may be nil), the id and the slug each
// on its own.
func turboTeam(p *Process, tj *config.TurboRemote) (id, slug string) {
	id, _ = exec.LookupEnv(p.Environ, TurboTeamIDEnv, p.GOOS)
	slug, _ = exec.LookupEnv(p.Environ, TurboTeamEnv, p.GOOS)
	if tj != nil {
		if id == "" {
			id = tj.TeamID
		}
		if slug == "" {
			slug = tj.TeamSlug
		}
	}
	return id, slug
}

// signingKey is VX_REMOTE_SIGNING_KEY, else, for a turbo server (an
// http:// or https:// url), TURBO_REMOTE_CACHE_SIGNATURE_KEY.
func signingKey(p *Process, url string) string {
	if k, _ := exec.LookupEnv(p.Environ, RemoteSigningEnv, p.GOOS); k != "" {
		return k
	}
	if (&remote.Config{URL: url}).Protocol() == remote.ProtocolTurbo {
		k, _ := exec.LookupEnv(p.Environ, TurboSignatureKeyEnv, p.GOOS)
		return k
	}
	return ""
}

// remoteSetting is a remote-cache setting: the flag, else the variable,
// else vx.json's value (file).
func remoteSetting(p *Process, a *parsed, flag, envName, file string) string {
	if v := a.str(flag); a.set[flag] {
		return v
	}
	if v, _ := exec.LookupEnv(p.Environ, envName, p.GOOS); v != "" {
		return v
	}
	return file
}

// envKey chooses the secret the values of the keys' variables are hashed
// with (docs/cache.md, "Declared values"), from the settings alone, so that
// every command of one setup (vx run, vx why, vx watch, vx graph) makes the
// same keys: derived from the signing key when there is one
// (VX_REMOTE_SIGNING_KEY, or TURBO_REMOTE_CACHE_SIGNATURE_KEY with a turbo
// server), which the team's machines share; else, with a remote cache configured, the public
// one, so that machines still share entries; else nil, the store's own
// random one.
func envKey(p *Process, a *parsed, cfg *config.Config) *cache.EnvKey {
	url := remoteURL(p, a, cfg)
	if k := signingKey(p, url); k != "" {
		return cache.SigningEnvKey(k)
	}
	if url != "" {
		return cache.PublicEnvKey()
	}
	return nil
}

// findHelper finds the vx-remote helper (the remote caches and the trace
// exporter): $VX_REMOTE_HELPER, else beside vx's executable, else on PATH
// (remote.FindHelper).
func findHelper(p *Process) (string, error) {
	exe := p.Executable
	if exe == "" {
		exe, _ = os.Executable()
	}
	path, _ := exec.LookupEnv(p.Environ, "PATH", p.GOOS)
	override, _ := exec.LookupEnv(p.Environ, RemoteHelperEnv, p.GOOS)
	return remote.FindHelper(override, exe, path, p.GOOS, nil)
}

// startRemote starts the vx-remote helper for rc. A helper that cannot be
// found or started is one warning (and an error for the caller): the run
// goes on with the local cache.
func startRemote(p *Process, rc *remote.Config) (*remote.Client, error) {
	warn := remoteWarner(p)
	helper, err := findHelper(p)
	if err != nil {
		warn(fmt.Sprintf("%v; continuing without the remote cache", strings.TrimPrefix(err.Error(), "remote: ")))
		return nil, err
	}
	c, err := remote.Start(p.Context, *rc, helper, helperEnv(p.Environ, p.GOOS), warn)
	if err != nil {
		if p.Context.Err() != nil {
			return nil, err // stopped (Ctrl-C): not the remote's fault
		}
		warn(fmt.Sprintf("%s; continuing without the remote cache", strings.TrimPrefix(rc.Redact(err.Error()), "remote: ")))
		return nil, err
	}
	return c, nil
}

// remoteWarner prints the remote cache's warnings, "vx: remote cache ...".
func remoteWarner(p *Process) func(string) {
	var mu sync.Mutex
	return func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if !strings.HasPrefix(msg, "remote cache") {
			msg = "remote cache: " + msg
		}
		fmt.Fprintf(p.Stderr, "vx: %s\n", msg)
	}
}

// helperEnv is vx's environment without the secrets the helper receives
// over its pipe instead.
func helperEnv(environ []string, goos string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		switch exec.EnvNameKey(k, goos) {
		case exec.EnvNameKey(RemoteHeaderEnv, goos), exec.EnvNameKey(RemoteSigningEnv, goos),
			exec.EnvNameKey(RemoteTokenEnv, goos), exec.EnvNameKey(TurboTokenEnv, goos),
			exec.EnvNameKey(TurboSignatureKeyEnv, goos):
			continue
		}
		out = append(out, kv)
	}
	return out
}

// remoteStatus is the remote part of `vx cache status`.
type remoteStatus struct {
	URL          string             `json:"url"`
	Protocol     string             `json:"protocol"` // reapi or turbo
	Instance     string             `json:"instance"`
	Team         string             `json:"team,omitempty"` // turbo: the team id, else the slug
	Write        bool               `json:"write"`
	Signing      bool               `json:"signing"`
	Reachable    bool               `json:"reachable"`
	Error        string             `json:"error,omitempty"`
	Capabilities *wire.Capabilities `json:"capabilities,omitempty"`
}

func probeRemote(p *Process, rc *remote.Config) *remoteStatus {
	rs := &remoteStatus{URL: rc.URL, Protocol: rc.Protocol(), Instance: rc.Instance, Write: rc.Write, Signing: rc.SigningKey != ""}
	if rs.Team = rc.TeamID; rs.Team == "" {
		rs.Team = rc.TeamSlug
	}
	var first string
	helper, err := findHelper(p)
	if err != nil {
		rs.Error = strings.TrimPrefix(err.Error(), "remote: ")
		return rs
	}
	c, err := remote.Start(p.Context, *rc, helper, helperEnv(p.Environ, p.GOOS), func(s string) {
		if first == "" {
			first = s
		}
	})
	if err != nil {
		rs.Error = strings.TrimPrefix(rc.Redact(err.Error()), "remote: ")
		return rs
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(p.Context, remote.DefaultTimeout+time.Second)
	defer cancel()
	caps, err := c.Capabilities(ctx)
	if err != nil {
		rs.Error = strings.TrimPrefix(rc.Redact(err.Error()), "remote: ")
		return rs
	}
	rs.Reachable, rs.Capabilities = true, caps
	return rs
}

func printRemoteStatus(p *Process, rs *remoteStatus) {
	inst := ""
	if rs.Instance != "" {
		inst = fmt.Sprintf(" (instance %q)", rs.Instance)
	}
	if rs.Team != "" {
		inst = fmt.Sprintf(" (turbo remote cache API, team %q)", rs.Team)
	}
	mode := "read only"
	if rs.Write {
		mode = "read and write"
	}
	if rs.Signing {
		mode += ", signed results only"
	}
	fmt.Fprintf(p.Stdout, "remote:  %s%s, %s\n", rs.URL, inst, mode)
	if !rs.Reachable {
		fmt.Fprintf(p.Stdout, "         unreachable: %s\n", rs.Error)
		return
	}
	c := rs.Capabilities
	if rs.Protocol == remote.ProtocolTurbo {
		upd := "accepts results"
		if !c.UpdateEnabled {
			upd = "does not accept results"
		}
		fmt.Fprintf(p.Stdout, "         reachable in %dms: %s, %s\n", c.LatencyMS, c.APIVersion, upd)
		return
	}
	batch := "no limit"
	if c.MaxBatchBytes > 0 {
		batch = humanBytes(c.MaxBatchBytes)
	}
	sha := "SHA-256 supported"
	if !c.SHA256 {
		sha = "SHA-256 NOT supported (vx cannot use this cache)"
	}
	upd := "accepts results"
	if !c.UpdateEnabled {
		upd = "does not accept results from clients"
	}
	api := ""
	if c.APIVersion != "" {
		api = ", REAPI " + c.APIVersion
	}
	fmt.Fprintf(p.Stdout, "         reachable in %dms%s: %s (digest functions %s), batch limit %s, %s\n",
		c.LatencyMS, api, sha, strings.Join(c.DigestFunctions, ", "), batch, upd)
}
