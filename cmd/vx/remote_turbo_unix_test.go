//go:build unix

package main

import (
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
)

// hangingHTTP accepts connections, reads what comes and never answers: a
// turbo server that hangs. accepted receives a value per connection.
func hangingHTTP(t *testing.T) (url string, accepted <-chan struct{}) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{}, 64)
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			select {
			case ch <- struct{}{}:
			default:
			}
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + l.Addr().String(), ch
}

// TestTurboServerHangs: a turbo server that never answers costs one
// per-call deadline and one warning, and the tasks run; Ctrl-C during the
// lookup ends vx at once.
func TestTurboServerHangs(t *testing.T) {
	skipRemoteE2E(t)
	url, accepted := hangingHTTP(t)
	runs := filepath.Join(testdir.New(t), "runs.log")

	vxBinary(t) // built before the clock starts
	remoteHelper(t)

	t.Run("deadline", func(t *testing.T) {
		c := newFaultClone(t, runs, 4, 1000)
		start := time.Now()
		r := c.vx([]string{"TURBO_API=" + url, "TURBO_TOKEN=tok-0123456789", "TURBO_TEAM=acme", "VX_REMOTE_TIMEOUT=1s"}, "run", "build")
		took := time.Since(start)
		mustOK(t, r)
		if got := takeRuns(t, runs); len(got) != 4 {
			t.Fatalf("ran %q, want all 4", got)
		}
		if w := remoteWarnings(r.stderr); len(w) != 1 || !strings.Contains(w[0], "no data for 1s") {
			t.Errorf("warnings: %q", w)
		}
		if took > 8*time.Second {
			t.Errorf("a hanging server cost %s with a 1s timeout", took)
		}
	})

	t.Run("Ctrl-C", func(t *testing.T) {
		c := newFaultClone(t, runs, 4, 1000)
		cmd, out := c.start([]string{"TURBO_API=" + url, "TURBO_TOKEN=tok-0123456789", "TURBO_TEAM=acme", "VX_REMOTE_TIMEOUT=60s"}, "run", "build")
		select {
		case <-accepted:
		case <-time.After(20 * time.Second):
			t.Fatalf("vx never asked the server:\n%s", out)
		}
		time.Sleep(300 * time.Millisecond)
		took, code := interrupt(t, cmd)
		t.Logf("vx stopped %v after SIGINT", took)
		if code != 130 {
			t.Errorf("exit code %d, want 130\n%s", code, out)
		}
		if took > 1500*time.Millisecond {
			t.Errorf("vx took %v to stop after SIGINT during a lookup\n%s", took, out)
		}
	})
}
