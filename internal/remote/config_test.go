package remote

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		url      string
		hostport string
		tls      bool
		err      string
	}{
		{"grpc://127.0.0.1:9092", "127.0.0.1:9092", false, ""},
		{"grpcs://remote.buildbuddy.io", "remote.buildbuddy.io:443", true, ""},
		{"grpcs://cache.example.com:8980/", "cache.example.com:8980", true, ""},
		{"grpc://[::1]:9092", "[::1]:9092", false, ""},
		{"grpc://cache.example.com", "", false, "needs a port"},
		{"https://cache.example.com", "", false, "HTTP URL"},
		{"cache.example.com:9092", "", false, "grpc://"},
		{"grpc://user:pw@host:1", "", false, "must not hold credentials"},
		{"grpc://host:1/instance", "", false, "--remote-instance"},
		{"", "", false, "cannot read"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			c := Config{URL: tc.url}
			hp, tls, err := c.Target()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "pw@") {
					t.Errorf("the error repeats the URL's credentials: %v", err)
				}
				return
			}
			if err != nil || hp != tc.hostport || tls != tc.tls {
				t.Fatalf("= %q, %v, %v; want %q, %v", hp, tls, err, tc.hostport, tc.tls)
			}
		})
	}
}

func TestCheckNeverShowsSecrets(t *testing.T) {
	dir := testdir.New(t)
	cert := filepath.Join(dir, "c.pem")
	os.WriteFile(cert, []byte("x"), 0o600)
	for _, tc := range []struct {
		name string
		cfg  Config
		err  string
	}{
		{"ok", Config{URL: "grpc://h:1", Header: "Authorization=Bearer abc.def"}, ""},
		{"no equals", Config{URL: "grpc://h:1", Header: "Bearer-topsecret-token"}, "Name=Value"},
		{"bad name", Config{URL: "grpc://h:1", Header: "Auth orization=topsecret-token"}, "Name=Value"},
		{"cert without key", Config{URL: "grpcs://h", TLSCert: cert}, "both"},
		{"tls files on grpc", Config{URL: "grpc://h:1", TLSCA: cert}, "not grpcs"},
		{"missing file", Config{URL: "grpcs://h", TLSCA: filepath.Join(dir, "nope.pem")}, "cannot be read"},
		{"negative timeout", Config{URL: "grpc://h:1", Timeout: -time.Second}, "positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Check()
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want one containing %q", err, tc.err)
			}
			if strings.Contains(err.Error(), "topsecret") {
				t.Fatalf("the header's value is in the error: %v", err)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	c := Config{Header: "Authorization=Bearer eyJhbGciOiJIUzI1NiJ9.payload", SigningKey: "k3y-material"}
	in := "rejected Bearer eyJhbGciOiJIUzI1NiJ9.payload; token eyJhbGciOiJIUzI1NiJ9.payload; key k3y-material"
	got := c.Redact(in)
	for _, secret := range []string{"eyJhbGciOiJIUzI1NiJ9", "k3y-material"} {
		if strings.Contains(got, secret) {
			t.Errorf("Redact(%q) = %q still holds %q", in, got, secret)
		}
	}
}

type fakeFS map[string]fs.FileMode

type fakeInfo struct {
	fs.FileInfo
	mode fs.FileMode
}

func (f fakeInfo) Mode() fs.FileMode { return f.mode }
func (f fakeInfo) IsDir() bool       { return f.mode.IsDir() }

func (m fakeFS) stat(p string) (fs.FileInfo, error) {
	if mode, ok := m[filepath.ToSlash(p)]; ok {
		return fakeInfo{mode: mode}, nil
	}
	return nil, fs.ErrNotExist
}

func TestFindHelper(t *testing.T) {
	for _, tc := range []struct {
		name     string
		files    fakeFS
		override string
		exe      string
		path     string
		goos     string
		want     string
		err      string
	}{
		{"beside vx", fakeFS{"/opt/vx/bin/vx-remote": 0o755, "/usr/bin/vx-remote": 0o755}, "", "/opt/vx/bin/vx", "/usr/bin", "linux", "/opt/vx/bin/vx-remote", ""},
		{"on PATH", fakeFS{"/usr/local/bin/vx-remote": 0o755}, "", "/opt/vx/bin/vx", "/usr/bin:/usr/local/bin", "linux", "/usr/local/bin/vx-remote", ""},
		{"not executable beside, found on PATH", fakeFS{"/opt/vx/bin/vx-remote": 0o644, "/usr/bin/vx-remote": 0o755}, "", "/opt/vx/bin/vx", "/usr/bin", "linux", "/usr/bin/vx-remote", ""},
		{"relative PATH entry skipped", fakeFS{"bin/vx-remote": 0o755}, "", "", "bin:.", "linux", "", "not on PATH"},
		{"override", fakeFS{"/x/helper": 0o755}, "/x/helper", "/opt/vx/bin/vx", "", "linux", "/x/helper", ""},
		{"override missing", fakeFS{}, "/x/helper", "/opt/vx/bin/vx", "/usr/bin", "linux", "", "VX_REMOTE_HELPER"},
		{"windows name", fakeFS{"/opt/vx/vx-remote.exe": 0o644}, "", "/opt/vx/vx.exe", "", "windows", "/opt/vx/vx-remote.exe", ""},
		{"windows PATH", fakeFS{"C:/tools/vx-remote.exe": 0o644}, "", "", `.;"C:/tools"`, "windows", "C:/tools/vx-remote.exe", ""},
		{"nowhere", fakeFS{}, "", "/opt/vx/bin/vx", "/usr/bin", "linux", "", "go install github.com/vxrun/vx/cmd/..."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FindHelper(tc.override, tc.exe, tc.path, tc.goos, tc.files.stat)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || filepath.ToSlash(got) != tc.want {
				t.Fatalf("= %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestRedactToken(t *testing.T) {
	c := Config{URL: "https://h", Token: "tok-0123456789", Header: "X-Key=hdr-0123456789", SigningKey: "sig-0123456789"}
	got := c.Redact("a tok-0123456789 b hdr-0123456789 c sig-0123456789")
	if want := "a [redacted] b [redacted] c [redacted]"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
