package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/remote"
)

func TestRemoteConfig(t *testing.T) {
	file := &config.Config{RemoteCache: config.RemoteCache{URL: "grpcs://file.example", Instance: "file-inst"}}
	for _, tc := range []struct {
		name   string
		args   []string
		env    []string
		cfg    *config.Config
		want   *remote.Config
		err    string
		stderr string
	}{
		{name: "nothing configured", want: nil},
		{name: "vx.json", cfg: file, want: &remote.Config{URL: "grpcs://file.example", Instance: "file-inst"}},
		{name: "variables beat vx.json", cfg: file, env: []string{"VX_REMOTE_CACHE=grpc://env:1", "VX_REMOTE_INSTANCE=env-inst"},
			want: &remote.Config{URL: "grpc://env:1", Instance: "env-inst"}},
		{name: "flags beat variables", cfg: file, args: []string{"--remote-cache", "grpc://flag:2", "--remote-instance=flag-inst"},
			env: []string{"VX_REMOTE_CACHE=grpc://env:1", "VX_REMOTE_INSTANCE=env-inst"}, want: &remote.Config{URL: "grpc://flag:2", Instance: "flag-inst"}},
		{name: "an empty --remote-instance clears vx.json's", cfg: file, args: []string{"--remote-instance="},
			want: &remote.Config{URL: "grpcs://file.example"}},
		{name: "write from the variable", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_WRITE=1"}, want: &remote.Config{URL: "grpc://h:1", Write: true}},
		{name: "write off", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_WRITE=0"}, want: &remote.Config{URL: "grpc://h:1"}},
		{name: "write from the flag", args: []string{"--remote-write"}, env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_WRITE=0"},
			want: &remote.Config{URL: "grpc://h:1", Write: true}},
		{name: "secrets only from the environment", env: []string{"VX_REMOTE_CACHE=grpcs://h", "VX_REMOTE_HEADER=Authorization=Bearer x", "VX_REMOTE_SIGNING_KEY=k", "VX_REMOTE_TIMEOUT=2s"},
			want: &remote.Config{URL: "grpcs://h", Header: "Authorization=Bearer x", SigningKey: "k", Timeout: 2e9}},
		{name: "bad write value", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_WRITE=yes please"}, err: "VX_REMOTE_WRITE takes 1 or 0"},
		{name: "write without a cache", args: []string{"--remote-write"}, err: "--remote-write needs a remote cache"},
		{name: "bad URL", args: []string{"--remote-cache", "ftp://h"}, err: "must start with grpc://"},
		// A turbo server (docs/cache.md, "A turbo server"): an http(s) URL,
		// turbo's variables under vx's own.
		{name: "turbo: the team is needed", args: []string{"--remote-cache", "https://h"}, err: "needs a team"},
		{name: "turbo: turbo's variables alone", env: []string{"TURBO_API=https://cache.example/api", "TURBO_TOKEN=tok-supersecret", "TURBO_TEAM=acme", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=sig"},
			want: &remote.Config{URL: "https://cache.example/api", Token: "tok-supersecret", TeamSlug: "acme", SigningKey: "sig"}},
		{name: "turbo: token and team alone mean Vercel, as in turbo", env: []string{"TURBO_TOKEN=t", "TURBO_TEAMID=team_123"},
			want: &remote.Config{URL: "https://vercel.com/api", Token: "t", TeamID: "team_123"}},
		{name: "turbo: a token without a team is no remote", env: []string{"TURBO_TOKEN=t"}, want: nil},
		{name: "turbo: both team variables are sent", env: []string{"TURBO_API=http://127.0.0.1:3000", "TURBO_TEAMID=team_1", "TURBO_TEAM=acme"},
			want: &remote.Config{URL: "http://127.0.0.1:3000", TeamID: "team_1", TeamSlug: "acme"}},
		{name: "turbo: vx's settings beat turbo's", cfg: &config.Config{RemoteCache: config.RemoteCache{URL: "https://file.example", Instance: "team_file"}},
			env:  []string{"TURBO_API=https://turbo.example", "TURBO_TEAM=acme", "TURBO_TOKEN=t", "VX_REMOTE_TOKEN=v", "VX_REMOTE_SIGNING_KEY=vk", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"},
			want: &remote.Config{URL: "https://file.example", TeamID: "team_file", Token: "v", SigningKey: "vk"}},
		{name: "turbo: VX_REMOTE_CACHE beats vx.json and TURBO_API; the instance is a slug", cfg: file,
			env:  []string{"TURBO_API=https://turbo.example", "VX_REMOTE_CACHE=https://env.example", "VX_REMOTE_INSTANCE=acme"},
			want: &remote.Config{URL: "https://env.example", TeamSlug: "acme"}},
		{name: "turbo: read-only beats VX_REMOTE_WRITE", env: []string{"TURBO_API=https://h", "TURBO_TEAM=a", "VX_REMOTE_WRITE=1", "TURBO_REMOTE_CACHE_READ_ONLY=true"},
			want: &remote.Config{URL: "https://h", TeamSlug: "a"}},
		{name: "turbo: --remote-write beats read-only", args: []string{"--remote-write"}, env: []string{"TURBO_API=https://h", "TURBO_TEAM=a", "TURBO_REMOTE_CACHE_READ_ONLY=1"},
			want: &remote.Config{URL: "https://h", TeamSlug: "a", Write: true}},
		{name: "turbo: read-only false leaves VX_REMOTE_WRITE", env: []string{"TURBO_API=https://h", "TURBO_TEAM=a", "VX_REMOTE_WRITE=1", "TURBO_REMOTE_CACHE_READ_ONLY=false"},
			want: &remote.Config{URL: "https://h", TeamSlug: "a", Write: true}},
		{name: "turbo: a token in the URL is refused and not shown", env: []string{"TURBO_API=https://user:supersecret@h", "TURBO_TEAM=a"}, err: "must not hold credentials"},
		// turbo.json's "remoteCache", under turbo's variables (as turbo
		// orders them) and so under vx's own (docs/from-turbo.md).
		{name: "turbo.json: apiUrl and team with a token", cfg: tj(config.TurboRemote{APIURL: "https://tj.example", TeamSlug: "tj-slug", TeamID: "team_tj", Timeout: 20}),
			env:  []string{"TURBO_TOKEN=t"},
			want: &remote.Config{URL: "https://tj.example", Token: "t", TeamID: "team_tj", TeamSlug: "tj-slug", Timeout: 20e9}},
		{name: "turbo.json: apiUrl without a token is no remote, as in turbo", cfg: tj(config.TurboRemote{APIURL: "https://tj.example", TeamSlug: "acme"}), want: nil},
		{name: "turbo.json: VX_REMOTE_TOKEN counts as a token", cfg: tj(config.TurboRemote{APIURL: "https://tj.example", TeamSlug: "acme"}),
			env: []string{"VX_REMOTE_TOKEN=v"}, want: &remote.Config{URL: "https://tj.example", Token: "v", TeamSlug: "acme"}},
		{name: "turbo.json: a token and its team alone mean Vercel", cfg: tj(config.TurboRemote{TeamSlug: "acme"}),
			env: []string{"TURBO_TOKEN=t"}, want: &remote.Config{URL: "https://vercel.com/api", Token: "t", TeamSlug: "acme"}},
		{name: "turbo.json: turbo's variables beat it, each on its own", cfg: tj(config.TurboRemote{APIURL: "https://tj.example", TeamSlug: "tj-slug", TeamID: "team_tj", Timeout: 20}),
			env:  []string{"TURBO_TOKEN=t", "TURBO_API=https://env.example", "TURBO_TEAM=env-slug", "TURBO_REMOTE_CACHE_TIMEOUT=7"},
			want: &remote.Config{URL: "https://env.example", Token: "t", TeamID: "team_tj", TeamSlug: "env-slug", Timeout: 7e9}},
		{name: "turbo.json: vx's settings beat it", cfg: tj(config.TurboRemote{APIURL: "https://tj.example", TeamSlug: "tj-slug", Timeout: 20}),
			args: []string{"--remote-instance", "flag-slug"}, env: []string{"TURBO_TOKEN=t", "VX_REMOTE_CACHE=https://vx.example", "VX_REMOTE_TIMEOUT=3s"},
			want: &remote.Config{URL: "https://vx.example", Token: "t", TeamSlug: "flag-slug", Timeout: 3e9}},
		{name: "turbo.json: enabled false turns turbo's remote off", cfg: tj(config.TurboRemote{Disabled: true, APIURL: "https://tj.example"}),
			env: []string{"TURBO_TOKEN=t", "TURBO_API=https://env.example", "TURBO_TEAM=acme"}, want: nil},
		{name: "turbo.json: enabled false leaves vx's own", cfg: tj(config.TurboRemote{Disabled: true, TeamSlug: "acme"}),
			env: []string{"VX_REMOTE_CACHE=https://vx.example"}, want: &remote.Config{URL: "https://vx.example", TeamSlug: "acme"}},
		{name: "turbo.json: signature with a key", cfg: tj(config.TurboRemote{Signature: true, TeamSlug: "acme"}),
			env:  []string{"TURBO_API=https://env.example", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=k"},
			want: &remote.Config{URL: "https://env.example", TeamSlug: "acme", SigningKey: "k"}},
		{name: "turbo.json: signature without a key is no remote, with a line", cfg: tj(config.TurboRemote{Signature: true, TeamSlug: "acme"}),
			env: []string{"TURBO_API=https://env.example"}, want: nil,
			stderr: `vx: turbo.json: "remoteCache.signature" is true but no signing key is set (TURBO_REMOTE_CACHE_SIGNATURE_KEY or VX_REMOTE_SIGNING_KEY): continuing without the remote cache` + "\n"},
		{name: "turbo.json: signature is for a turbo server", cfg: tj(config.TurboRemote{Signature: true}),
			env: []string{"VX_REMOTE_CACHE=grpc://h:1"}, want: &remote.Config{URL: "grpc://h:1"}},
		{name: "turbo: bad TURBO_REMOTE_CACHE_TIMEOUT", env: []string{"TURBO_API=https://h", "TURBO_TEAM=a", "TURBO_REMOTE_CACHE_TIMEOUT=1.5"}, err: "TURBO_REMOTE_CACHE_TIMEOUT takes whole seconds"},
		{name: "REAPI ignores turbo's token and signature key", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "TURBO_TOKEN=t", "TURBO_TEAM=a", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"},
			want: &remote.Config{URL: "grpc://h:1"}},
		{name: "REAPI refuses VX_REMOTE_TOKEN", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_TOKEN=supersecret"}, err: "is for a turbo server"},
		{name: "bad header never shown", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_HEADER=Bearer-supersecret"}, err: "Name=Value"},
		{name: "bad timeout", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_TIMEOUT=soon"}, err: "VX_REMOTE_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseFlags("run", runCmd.flags, append([]string{"build"}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			got, err := remoteConfig(&Process{Environ: tc.env, GOOS: "linux", Stderr: &stderr}, a, tc.cfg)
			if diff := cmp.Diff(tc.stderr, stderr.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "supersecret") {
					t.Fatalf("the header's value is in the error: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// tj is the configuration of a turbo.json with r as its "remoteCache".
func tj(r config.TurboRemote) *config.Config {
	r.Path = "/ws/turbo.json"
	return &config.Config{TurboRemote: &r}
}

func TestHelperEnvDropsSecrets(t *testing.T) {
	got := helperEnv([]string{"PATH=/bin", "VX_REMOTE_HEADER=a=b", "Vx_Remote_Signing_Key=k", "VX_REMOTE_CACHE=grpc://h:1", "SSL_CERT_FILE=/x",
		"TURBO_TOKEN=t", "VX_REMOTE_TOKEN=t", "turbo_remote_cache_signature_key=k"}, "windows")
	want := []string{"PATH=/bin", "VX_REMOTE_CACHE=grpc://h:1", "SSL_CERT_FILE=/x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestEnvKeyTurbo: the secret the variables' values are hashed with
// follows the same settings as the remote cache: turbo's signature key
// counts for a turbo server (and VX_REMOTE_SIGNING_KEY first), turbo's
// variables alone configure a remote (the public secret without a key).
func TestEnvKeyTurbo(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"nothing: the store's own", nil, ""},
		{"turbo server, no key: public", []string{"TURBO_API=https://h", "TURBO_TEAM=a"}, cache.PublicEnvKey().Name},
		{"Vercel by token and team: public", []string{"TURBO_TOKEN=t", "TURBO_TEAM=a"}, cache.PublicEnvKey().Name},
		{"turbo server with turbo's key", []string{"TURBO_API=https://h", "TURBO_TEAM=a", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"}, cache.SigningEnvKey("tk").Name},
		{"vx's key first", []string{"TURBO_API=https://h", "VX_REMOTE_SIGNING_KEY=vk", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"}, cache.SigningEnvKey("vk").Name},
		{"turbo's key is not for a REAPI server", []string{"VX_REMOTE_CACHE=grpc://h:1", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"}, cache.PublicEnvKey().Name},
		{"turbo's key alone, no server: the store's own", []string{"TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"}, ""},
		{"turbo.json's apiUrl with a token and a key", []string{"TURBO_TOKEN=t", "TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"}, cache.SigningEnvKey("tk").Name},
		{"turbo.json's apiUrl without a token: the store's own", []string{"TURBO_REMOTE_CACHE_SIGNATURE_KEY=tk"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseFlags("run", runCmd.flags, []string{"build"})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			var cfg *config.Config
			if strings.HasPrefix(tc.name, "turbo.json") {
				cfg = tj(config.TurboRemote{APIURL: "https://tj.example", TeamSlug: "acme"})
			}
			if k := envKey(&Process{Environ: tc.env, GOOS: "linux"}, a, cfg); k != nil {
				got = k.Name
			}
			if got != tc.want {
				t.Errorf("envKey = %q, want %q", got, tc.want)
			}
		})
	}
}
