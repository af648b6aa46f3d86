package turbo

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// TestTagTurboVectors: tags turbo 2.11.13 sent (captured by a server of
// this package's tests, TestTagMatchesTurbo's) for one artifact, with a
// slug alone (the team is "" in the tag) and with a team id.
func TestTagTurboVectors(t *testing.T) {
	body, err := hex.DecodeString("28b52ffd005855060012881a1b6025d6010014bcfdc64be4895d92846cf7b6ecb2e7300a025047022cdb628137b3d4b05a1bcefed494e3391dd0a8eb4c6f59ee9485b141b04d39ae22ecc21101d877f69ddd0536ad3757caa9dffcbffb6f1873bfba39668262c29510d22496da28c1448d03220554022420c082a191d17a99a915280270828a80b274553c863a8ce080f0d821406f17068800b0aa1ac08309b86f194c089c47c2446ca60ea0119ba1824b36a83a71ee5d7313de27440ba096214bc0679d04cab354ff6216011ece69f1d28a30")
	if err != nil {
		t.Fatal(err)
	}
	key := []byte("0123456789abcdef0123456789abcdef-long")
	for _, tc := range []struct{ name, team, tag string }{
		{"TURBO_TEAM=acme", "", "42QM5SSYNfdlk0QFnsx+PvbU07M13Yvkj7MJ6p7d18k="},
		{"TURBO_TEAMID=team_x", "team_x", "UpKF4GDH3P4lcXVdbr04u42WYcAhLV6CnqUYnPa0ylw="},
		{"TURBO_TEAMID=notteam", "notteam", "nWVITqlXQRD7vjE1X5ztXpS2hajb/enF0oauEPqiWDU="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Tag(key, "894a416a813d240e", tc.team, body); got != tc.tag {
				t.Errorf("Tag = %q, turbo sent %q", got, tc.tag)
			}
			if !Verify(key, "894a416a813d240e", tc.team, body, tc.tag) {
				t.Errorf("Verify refuses turbo's tag %q", tc.tag)
			}
			if Verify(key, "894a416a813d240e", tc.team+"x", body, tc.tag) {
				t.Errorf("Verify accepts turbo's tag for another team")
			}
		})
	}
}

// capture is a turbo remote cache server that keeps what turbo uploads
// and serves it back with the tag tagFor makes.
type capture struct {
	mu     sync.Mutex
	puts   map[string][]byte // hash -> body
	tags   map[string]string // hash -> the tag turbo sent
	tagFor func(hash string, body []byte) string
	gets   int
}

func (c *capture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hash, ok := strings.CutPrefix(r.URL.Path, "/v8/artifacts/")
	switch {
	case r.URL.Path == "/v8/artifacts/status":
		io.WriteString(w, `{"status":"enabled"}`)
	case !ok || r.Method == http.MethodPost:
		io.WriteString(w, `{}`)
	case r.Method == http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		c.puts[hash], c.tags[hash] = b, r.Header.Get("x-artifact-tag")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"urls":[]}`)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		b, ok := c.puts[hash]
		if !ok {
			http.NotFound(w, r)
			return
		}
		c.gets++
		w.Header().Set("x-artifact-tag", c.tagFor(hash, b))
		w.Write(b)
	default:
		http.Error(w, "no", http.StatusMethodNotAllowed)
	}
}

// TestTagMatchesTurbo runs real turbo against a capturing server, with
// TURBO_REMOTE_CACHE_SIGNATURE_KEY and remoteCache.signature set: the tag
// turbo sends verifies with vx's Verify and equals vx's Tag, and turbo
// takes the artifact back with vx's tag (a remote hit), not with a wrong
// one.
func TestTagMatchesTurbo(t *testing.T) {
	turbo := testtool.Need(t, "npm i -g turbo: the x-artifact-tag test runs turbo", "turbo")
	testtool.Need(t, "Node.js's npm: turbo runs the test workspace's scripts with it", "npm")
	git := testtool.Need(t, "git: turbo hashes the test workspace's files with it", "git")
	key := "vx-test-signing-key-0123456789abcdef"
	for _, tc := range []struct {
		name, env, team string
		readBack        bool
	}{
		{"slug", "TURBO_TEAM=acme", "", true},
		{"team id", "TURBO_TEAMID=team_vxtest", "team_vxtest", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &capture{puts: map[string][]byte{}, tags: map[string]string{}}
			hs := httptest.NewServer(c)
			t.Cleanup(hs.Close)
			run := turboWorkspace(t, turbo, git, []string{"TURBO_API=" + hs.URL, "TURBO_TOKEN=tok", tc.env, "TURBO_REMOTE_CACHE_SIGNATURE_KEY=" + key})
			run("remote:w")
			c.mu.Lock()
			if len(c.puts) != 1 {
				c.mu.Unlock()
				t.Fatalf("turbo uploaded %d artifacts, want 1", len(c.puts))
			}
			var hash string
			for h := range c.puts {
				hash = h
			}
			body, tag := c.puts[hash], c.tags[hash]
			c.mu.Unlock()
			if tag == "" {
				t.Fatal("turbo sent no x-artifact-tag")
			}
			if !Verify([]byte(key), hash, tc.team, body, tag) {
				t.Errorf("turbo's tag %q for %s (%d bytes) does not verify with team %q", tag, hash, len(body), tc.team)
			}
			if got := Tag([]byte(key), hash, tc.team, body); got != tag {
				t.Errorf("Tag = %q, turbo sent %q", got, tag)
			}
			if !tc.readBack {
				return
			}
			// turbo reads it back, tagged by vx: a hit; tagged wrong: a miss.
			c.mu.Lock()
			c.tagFor = func(h string, b []byte) string { return Tag([]byte(key), h, tc.team, b) }
			c.mu.Unlock()
			if out := run("remote:r"); !strings.Contains(out, "cache hit") {
				t.Errorf("turbo did not take its artifact back with vx's tag:\n%s", out)
			}
			c.mu.Lock()
			c.tagFor = func(h string, b []byte) string { return Tag([]byte(key), h, "team_other", b) }
			c.mu.Unlock()
			if out := run("remote:r"); strings.Contains(out, "cache hit") {
				t.Errorf("turbo took its artifact back with a tag for another team:\n%s", out)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.gets < 2 {
				t.Errorf("turbo fetched the artifact %d times, want 2", c.gets)
			}
		})
	}
}

// turboWorkspace makes a workspace of one package whose build turbo
// caches, with remoteCache.signature on, and returns a function that runs
// turbo run build there with env and --cache=<its argument>.
func turboWorkspace(t *testing.T, turbo, git string, env []string) func(cache string) string {
	dir := testdir.New(t)
	write := func(name, s string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name":"root","private":true,"workspaces":["packages/*"],"packageManager":"npm@10.0.0"}`)
	write("packages/a/package.json", `{"name":"a","scripts":{"build":"node -e \"require('fs').mkdirSync('dist',{recursive:true});require('fs').writeFileSync('dist/out.txt','built')\""}}`)
	write("turbo.json", `{"tasks":{"build":{"outputs":["dist/**"]}},"remoteCache":{"signature":true}}`)
	write(".gitignore", "dist/\n.turbo/\n.home/\n")
	if out, err := exec.Command(git, "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return func(cache string) string {
		t.Helper()
		cmd := exec.Command(turbo, "run", "build", "--cache="+cache, "--output-logs=hash-only")
		cmd.Dir = dir
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(dir, ".home"),
			"TURBO_TELEMETRY_DISABLED=1", "DO_NOT_TRACK=1", "TURBO_NO_UPDATE_NOTIFIER=1",
			"npm_config_update_notifier=false", "CI=", "NO_COLOR=1"}, env...)
		if v := os.Getenv("SYSTEMROOT"); v != "" {
			cmd.Env = append(cmd.Env, "SYSTEMROOT="+v)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("turbo run build --cache=%s: %v\n%s", cache, err, out)
		}
		return string(out)
	}
}

// TestTagTurboServer: turbo uploads a signed artifact to the real
// turborepo-remote-cache (ducktors', from npm, keeping tags); the
// artifact and tag the server stored verify with vx's Verify.
func TestTagTurboServer(t *testing.T) {
	turbo := testtool.Need(t, "npm i -g turbo: the x-artifact-tag test runs turbo", "turbo")
	testtool.Need(t, "Node.js's npm: turbo runs the test workspace's scripts with it", "npm")
	git := testtool.Need(t, "git: turbo hashes the test workspace's files with it", "git")
	srv := remotetest.StartTurbo(t, remotetest.TurboOptions{Tags: true})
	key := "vx-test-signing-key-0123456789abcdef"
	run := turboWorkspace(t, turbo, git, []string{"TURBO_API=" + srv.URL, "TURBO_TOKEN=" + srv.Token, "TURBO_TEAM=acme",
		"TURBO_REMOTE_CACHE_SIGNATURE_KEY=" + key})
	run("remote:w")
	arts := srv.Artifacts("acme")
	if len(arts) != 1 {
		t.Fatalf("the server holds %d artifacts of acme, want 1", len(arts))
	}
	for hash := range arts {
		body, err := os.ReadFile(filepath.Join(srv.Dir, "acme", hash))
		if err != nil {
			t.Fatal(err)
		}
		tag, err := os.ReadFile(filepath.Join(srv.Dir, "acme", hash+".tag"))
		if err != nil {
			t.Fatalf("the server kept no tag: %v", err)
		}
		if !Verify([]byte(key), hash, "", body, strings.TrimSpace(string(tag))) {
			t.Errorf("the tag the server holds for %s, %q, does not verify with a slug's team (\"\")", hash, tag)
		}
	}
	// turbo takes it back (a remote hit), the tag checked on the way.
	if out := run("remote:r"); !strings.Contains(out, "cache hit") {
		t.Errorf("turbo did not take its artifact back:\n%s", out)
	}
}
