// Package remotetest starts a real bazel-remote (built by `make
// bazel-remote` into bin/, from the tools module) and a real
// turborepo-remote-cache (installed by `make turbo-remote-cache` into bin/,
// from npm; [StartTurbo]) for end-to-end tests of the remote cache, and
// builds the vx-remote helper. Tests that need the
// server skip with a message saying how to build it when it is absent.
// [Fake] is an in-process server for the faults a real one cannot be made
// to show: latency, hangs, slow and stalled downloads.
package remotetest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// RepoRoot finds the vx module's root above the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module github.com/vxrun/vx\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("remotetest: no vx module above the working directory")
		}
		dir = parent
	}
}

// ServerBinary is bin/bazel-remote of the repository, or the file named by
// VX_TEST_BAZEL_REMOTE; ok is false when there is none.
func ServerBinary() (string, bool) {
	return RepoBinary("VX_TEST_BAZEL_REMOTE", "bazel-remote")
}

// RepoBinary is bin/<name> of the repository (name.exe on Windows), or the
// file the variable env names; ok is false when there is none.
func RepoBinary(env, name string) (string, bool) {
	if p := os.Getenv(env); p != "" {
		_, err := os.Stat(p)
		return p, err == nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", false
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(root, "bin", name)
	_, err = os.Stat(p)
	return p, err == nil
}

// Server is a running bazel-remote.
type Server struct {
	Addr string // 127.0.0.1:port of its gRPC listener
	URL  string // grpc://Addr, or grpcs:// with TLS
	Dir  string // its --dir
	cmd  *exec.Cmd
	log  *bytes.Buffer
	mu   sync.Mutex
	done chan struct{}
}

// Options are extra settings of the server.
type Options struct {
	Args []string // extra flags (--htpasswd_file, --tls_cert_file ...)
	TLS  bool     // the URL is grpcs://
}

// Start starts bazel-remote on free loopback ports with its store in a
// temporary directory, and stops it when the test ends. It skips the test
// when the server binary is not built.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	bin, ok := ServerBinary()
	if !ok {
		testtool.Missing(t, "bazel-remote", "make bazel-remote builds bin/bazel-remote from tools/go.mod; .ci/run does: the remote cache's end-to-end tests run against it")
	}
	dir := testdir.New(t)
	var s *Server
	var err error
	for try := 0; try < 3; try++ {
		s, err = start(bin, dir, o)
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func start(bin, dir string, o Options) (*Server, error) {
	grpcAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	httpAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{"--dir", dir, "--max_size", "1", "--grpc_address", grpcAddr, "--http_address", httpAddr,
		"--log_timezone", "none"}, o.Args...)
	cmd := exec.Command(bin, args...)
	// bazel-remote reads BAZEL_REMOTE_* variables; none of the caller's may
	// change the server under test.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BAZEL_REMOTE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	s := &Server{Addr: grpcAddr, URL: "grpc://" + grpcAddr, Dir: dir, cmd: cmd, log: &bytes.Buffer{}, done: make(chan struct{})}
	if o.TLS {
		s.URL = "grpcs://" + grpcAddr
	}
	w := &lockedWriter{s: s}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("remotetest: cannot start %s: %w", bin, err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", grpcAddr, time.Second)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case <-s.done:
			return nil, fmt.Errorf("remotetest: bazel-remote exited at start:\n%s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("remotetest: bazel-remote did not listen on %s within 30s:\n%s", grpcAddr, s.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type lockedWriter struct{ s *Server }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.log.Write(p)
}

// Log is what the server printed so far.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Stop kills the server and waits for it.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	<-s.done
}

// CASFiles lists the server's stored CAS blob files whose name starts with
// hash.
func (s *Server) CASFiles(hash string) []string {
	m, _ := filepath.Glob(filepath.Join(s.Dir, "cas.v2", hash[:2], hash+"*"))
	return m
}

// LogLines returns the server's access log lines containing substr.
func (s *Server) LogLines(substr string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s.Log()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), substr) {
			out = append(out, sc.Text())
		}
	}
	return out
}

// WaitLogLines waits up to 5s for at least n access log lines containing
// substr (the server logs a call after answering it) and returns them.
func (s *Server) WaitLogLines(substr string, n int) []string {
	deadline := time.Now().Add(5 * time.Second)
	for {
		l := s.LogLines(substr)
		if len(l) >= n || time.Now().After(deadline) {
			return l
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BuildHelper builds cmd/vx-remote into dir and returns its path.
func BuildHelper(dir string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	name := "vx-remote"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	out := filepath.Join(dir, name)
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		goBin = "go"
	}
	cmd := exec.Command(goBin, "build", "-o", out, "./cmd/vx-remote")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("remotetest: go build ./cmd/vx-remote: %v\n%s", err, b)
	}
	return out, nil
}
