package remotetest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// TurboPackage is the directory of the turborepo-remote-cache npm package
// (ducktors' server of turbo's remote cache API): the one VX_TEST_TURBO_REMOTE_CACHE
// names, else bin/turborepo-remote-cache/node_modules/turborepo-remote-cache of
// the repository, where `make turbo-remote-cache` installs it.
func TurboPackage() (string, bool) {
	if p := os.Getenv("VX_TEST_TURBO_REMOTE_CACHE"); p != "" {
		_, err := os.Stat(filepath.Join(p, "dist", "cli.js"))
		return p, err == nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", false
	}
	p := filepath.Join(root, "bin", "turborepo-remote-cache", "node_modules", "turborepo-remote-cache")
	_, err = os.Stat(filepath.Join(p, "dist", "cli.js"))
	return p, err == nil
}

// TurboServer is a running turborepo-remote-cache with local disk storage.
type TurboServer struct {
	URL   string // http://127.0.0.1:port
	Token string // the bearer token it accepts
	Dir   string // its STORAGE_PATH: <team>/<hash> and <team>/<hash>.tag
	opts  TurboOptions
	pkg   string

	mu   sync.Mutex
	cmd  *exec.Cmd
	log  *bytes.Buffer
	done chan struct{}
}

// TurboOptions are settings of the server.
type TurboOptions struct {
	// Tags makes the server keep each artifact's x-artifact-tag (it
	// does so only with TURBO_REMOTE_CACHE_SIGNATURE_KEY set, which it
	// does not check) and answer 404 for an artifact stored without one.
	Tags bool
	// Addr is the address to listen on; "" picks a free loopback port.
	Addr string
	// Dir is the storage directory; "" makes a temporary one.
	Dir string
}

// SkipOrFail skips the test with msg, or fails it when CI=true: a tool
// the CI installs must be there.
func SkipOrFail(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: this skip is a failure)", msg)
	}
	t.Skip(msg)
}

// StartTurbo starts turborepo-remote-cache with node on a free loopback
// port and stops it when the test ends. It skips the test (fails it under
// CI=true) when the package or node is missing.
func StartTurbo(t testing.TB, o TurboOptions) *TurboServer {
	t.Helper()
	pkg, ok := TurboPackage()
	if !ok {
		SkipOrFail(t, "turborepo-remote-cache is not installed: run `make turbo-remote-cache` (npm ci into bin/turborepo-remote-cache) to run the turbo remote cache's end-to-end tests")
	}
	if _, err := exec.LookPath("node"); err != nil {
		SkipOrFail(t, "no node on PATH: the turbo remote cache's end-to-end tests run turborepo-remote-cache with it")
	}
	if o.Dir == "" {
		o.Dir = testdir.New(t)
	}
	s := &TurboServer{Token: "turbo-test-token-0123456789", Dir: o.Dir, opts: o, pkg: pkg}
	var err error
	for try := 0; try < 3; try++ {
		if err = s.start(); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func (s *TurboServer) start() error {
	addr := s.opts.Addr
	if addr == "" {
		var err error
		if addr, err = freePort(); err != nil {
			return err
		}
	}
	host, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("node", filepath.Join(s.pkg, "dist", "cli.js"))
	// Only what the server is told: it reads many variables (S3_*,
	// AUTH_MODE ...), none of the caller's may change it.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Dir, "NODE_ENV=production", "HOST=" + host, "PORT=" + port,
		"STORAGE_PROVIDER=local", "STORAGE_PATH=" + s.Dir, "STORAGE_PATH_USE_TMP_FOLDER=false", "TURBO_TOKEN=" + s.Token,
		"LOG_LEVEL=info"}
	if s.opts.Tags {
		cmd.Env = append(cmd.Env, "TURBO_REMOTE_CACHE_SIGNATURE_KEY=the-server-does-not-check-it")
	}
	log := &bytes.Buffer{}
	w := &turboLog{s: s}
	cmd.Stdout, cmd.Stderr = w, w
	done := make(chan struct{})
	s.mu.Lock()
	s.cmd, s.log, s.done = cmd, log, done
	s.mu.Unlock()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("remotetest: cannot start turborepo-remote-cache: %w", err)
	}
	go func() { cmd.Wait(); close(done) }()
	s.URL = "http://" + addr
	s.opts.Addr = addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("remotetest: turborepo-remote-cache exited at start:\n%s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			return fmt.Errorf("remotetest: turborepo-remote-cache did not listen on %s within 60s:\n%s", addr, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type turboLog struct{ s *TurboServer }

func (w *turboLog) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.log.Write(p)
}

// Log is what the server printed so far.
func (s *TurboServer) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// Stop kills the server and waits for it.
func (s *TurboServer) Stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	cmd.Process.Kill()
	<-done
}

// Restart starts the server again on the same address and storage.
func (s *TurboServer) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	var err error
	for try := 0; try < 3; try++ {
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal(err)
}

// Artifacts lists the stored artifacts of team, by hash, with their
// sizes (tags are not listed).
func (s *TurboServer) Artifacts(team string) map[string]int64 {
	out := map[string]int64{}
	es, _ := os.ReadDir(filepath.Join(s.Dir, team))
	for _, e := range es {
		if strings.HasSuffix(e.Name(), ".tag") || e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			out[e.Name()] = fi.Size()
		}
	}
	return out
}

// String is for messages.
func (s *TurboServer) String() string { return s.URL + " (" + strconv.Quote(s.Dir) + ")" }
