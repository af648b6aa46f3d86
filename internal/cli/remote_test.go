package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vxrun/vx/internal/config"
	"github.com/vxrun/vx/internal/remote"
)

func TestRemoteConfig(t *testing.T) {
	file := &config.Config{RemoteCache: config.RemoteCache{URL: "grpcs://file.example", Instance: "file-inst"}}
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		cfg  *config.Config
		want *remote.Config
		err  string
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
		{name: "bad URL", args: []string{"--remote-cache", "https://h"}, err: "HTTP URL"},
		{name: "bad header never shown", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_HEADER=Bearer-supersecret"}, err: "Name=Value"},
		{name: "bad timeout", env: []string{"VX_REMOTE_CACHE=grpc://h:1", "VX_REMOTE_TIMEOUT=soon"}, err: "VX_REMOTE_TIMEOUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := parseFlags("run", runCmd.flags, append([]string{"build"}, tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			got, err := remoteConfig(&Process{Environ: tc.env, GOOS: "linux"}, a, tc.cfg)
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

func TestHelperEnvDropsSecrets(t *testing.T) {
	got := helperEnv([]string{"PATH=/bin", "VX_REMOTE_HEADER=a=b", "Vx_Remote_Signing_Key=k", "VX_REMOTE_CACHE=grpc://h:1", "SSL_CERT_FILE=/x"}, "windows")
	want := []string{"PATH=/bin", "VX_REMOTE_CACHE=grpc://h:1", "SSL_CERT_FILE=/x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
