package view

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// browser is a headless Chromium driven through the DevTools protocol
// over a pipe (--remote-debugging-pipe: commands on its fd 3, answers and
// events on fd 4, each a JSON message ended by a NUL byte), with one page
// open. It records what a test must see none of: console errors,
// uncaught exceptions, errors the browser logs (a Content-Security-Policy
// violation is one) and network requests.
type browser struct {
	t       *testing.T
	cmd     *osexec.Cmd
	in      io.WriteCloser
	session string

	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan cdpMessage
	events   []cdpMessage
	eventsCh chan struct{} // signalled when an event arrives
	readErr  error
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *cdpError       `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type cdpError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// findChromium returns Debian's chromium (or Chrome) from PATH, or skips
// the test.
func findChromium(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the page is tested in a browser on Linux and macOS (CI installs Debian's chromium)")
	}
	return testtool.Need(t, "apt-get install chromium; .ci/run does: the HTML page is tested in it",
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
}

// startBrowser starts chromium with a fresh profile and opens a page.
func startBrowser(t *testing.T, ctx context.Context) *browser {
	t.Helper()
	path := findChromium(t)
	cmdR, cmdW, err := os.Pipe() // commands: we write, chromium reads fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // answers: chromium writes fd 4
	if err != nil {
		t.Fatal(err)
	}
	cmd := osexec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--disable-default-apps", "--no-default-browser-check", "--mute-audio", "--window-size=1400,900",
		"--user-data-dir="+testdir.New(t), "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, waiting: map[int]chan cdpMessage{}, eventsCh: make(chan struct{}, 1)}
	done := make(chan struct{})
	go b.read(outR, done)
	t.Cleanup(func() {
		cmdW.Close()
		timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
		cmd.Wait()
		timer.Stop()
		<-done
		if t.Failed() {
			t.Logf("chromium's stderr (less its complaints about D-Bus):\n%s", lastLines(stderr.String(), 30))
		}
	})
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Runtime", "Log", "Network", "Page"} {
		b.call(ctx, b.session, domain+".enable", map[string]any{}, nil)
	}
	return b
}

func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if !strings.Contains(l, "dbus") {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func (b *browser) read(r io.ReadCloser, done chan struct{}) {
	defer close(done)
	defer r.Close()
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = err
			for id, ch := range b.waiting {
				close(ch)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m cdpMessage
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch, ok := b.waiting[m.ID]; ok {
				ch <- m
				delete(b.waiting, m.ID)
			}
		} else {
			b.events = append(b.events, m)
			select {
			case b.eventsCh <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// call sends a command and decodes its result into out (when not nil);
// an error answer or no answer before ctx ends fails the test.
func (b *browser) call(ctx context.Context, session, method string, params any, out any) {
	b.t.Helper()
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	p, err := json.Marshal(params)
	if err != nil {
		b.t.Fatal(err)
	}
	msg, _ := json.Marshal(cdpMessage{ID: id, Method: method, Params: p, SessionID: session})
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			b.t.Fatalf("%s: chromium closed the pipe: %v", method, b.readErr)
		}
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
	case <-ctx.Done():
		b.t.Fatalf("%s: no answer from chromium: %v", method, ctx.Err())
	}
}

// waitEvent waits for an event of the page named method.
func (b *browser) waitEvent(ctx context.Context, method string) {
	b.t.Helper()
	for {
		b.mu.Lock()
		for _, e := range b.events {
			if e.Method == method && e.SessionID == b.session {
				b.mu.Unlock()
				return
			}
		}
		b.mu.Unlock()
		select {
		case <-b.eventsCh:
		case <-ctx.Done():
			b.t.Fatalf("waiting for %s: %v", method, ctx.Err())
		}
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value (returned by value, so JSON-like) into out.
func (b *browser) eval(ctx context.Context, expr string, out any) {
	b.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.call(ctx, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if res.ExceptionDetails != nil {
		b.t.Fatalf("evaluating %s: %s %s", expr, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			b.t.Fatalf("evaluating %s: %v (value %s)", expr, err, res.Result.Value)
		}
	}
}

// open loads the file into the page and waits for its load event (an
// image the page loads delays it, so a request or a refusal to make one is
// seen by then); what the page before it did is forgotten.
func (b *browser) open(ctx context.Context, file string) string {
	b.t.Helper()
	url := "file://" + filepath.ToSlash(file)
	b.mu.Lock()
	b.events = nil
	b.mu.Unlock()
	b.call(ctx, b.session, "Page.navigate", map[string]any{"url": url}, nil)
	b.waitEvent(ctx, "Page.loadEventFired")
	return url
}

// click presses and releases the left mouse button at x, y (CSS pixels
// of the page's viewport), as a user would.
func (b *browser) click(ctx context.Context, x, y float64) {
	b.t.Helper()
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		b.call(ctx, b.session, "Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}, nil)
	}
}

// problems returns what the page did that it must not: console errors
// and warnings, uncaught exceptions, errors and warnings the browser
// logged, and a request for any URL but the page's own.
func (b *browser) problems(pageURL string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		if e.SessionID != b.session {
			continue
		}
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string `json:"type"`
				Args []struct {
					Value       any    `json:"value"`
					Description string `json:"description"`
				} `json:"args"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Type == "error" || p.Type == "warning" || p.Type == "assert" {
				out = append(out, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
			}
		case "Runtime.exceptionThrown":
			out = append(out, "exception: "+string(e.Params))
		case "Log.entryAdded":
			var p struct {
				Entry struct {
					Level, Source, Text, URL string
				} `json:"entry"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Entry.Level == "error" || p.Entry.Level == "warning" {
				out = append(out, fmt.Sprintf("log %s (%s): %s %s", p.Entry.Level, p.Entry.Source, p.Entry.Text, p.Entry.URL))
			}
		case "Network.requestWillBeSent":
			var p struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			json.Unmarshal(e.Params, &p)
			if p.Request.URL != pageURL {
				out = append(out, "request: "+p.Request.URL)
			}
		}
	}
	return out
}

// browserContext is the deadline of one browser test: generous, since
// chromium starts slowly on a loaded machine.
func browserContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
