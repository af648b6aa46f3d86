package run

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The probes of "readyWhen": whether a server accepts a TCP connection on
// a port of localhost, and whether it answers an HTTP GET with 2xx or 3xx.
// Each attempt is bounded (probeAttempt); the caller polls every
// probeInterval until its context is done. net/http is not used: vx does
// not link it (TestStartupDeps); a GET of plain http is a few lines.
// package net is linked for them: its init (with net/netip and
// dnsmessage) took 0.13 ms at least, 0.28 ms median, 47 allocations, in
// 40 runs of GODEBUG=inittrace=1 vx --version at load 9 on 2 cores; the
// binary grew by 0.7 MB (8.54 to 9.24 MB).

const (
	probeInterval = 150 * time.Millisecond
	probeAttempt  = 1 * time.Second
)

// probePort reports whether a TCP connection to port on localhost
// succeeds, on 127.0.0.1 or on ::1 (a server may listen on either alone).
func probePort(ctx context.Context, port int) error {
	var errs []error
	for _, host := range []string{"127.0.0.1", "::1"} {
		c, err := dialAttempt(ctx, net.JoinHostPort(host, strconv.Itoa(port)))
		if err == nil {
			c.Close()
			return nil
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func dialAttempt(ctx context.Context, addr string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, probeAttempt)
	defer cancel()
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// probeURL sends one GET of rawURL (plain http, checked when the
// configuration was read) and reports whether the answer's status is 2xx
// or 3xx; an error says what came instead ("status 503", "connection
// refused"). Only the status line is read.
func probeURL(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	hosts := []string{u.Hostname()}
	if strings.EqualFold(u.Hostname(), "localhost") {
		// As for a port: whichever loopback address the server took.
		hosts = []string{"127.0.0.1", "::1"}
	}
	var errs []error
	for _, h := range hosts {
		err := getOnce(ctx, net.JoinHostPort(h, port), u)
		if err == nil {
			return nil
		}
		var st statusError
		if errors.As(err, &st) {
			return err // the server answered: no other address to try
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// statusError is an answer whose status is not 2xx or 3xx.
type statusError struct{ line string }

func (e statusError) Error() string { return "answered " + strconv.Quote(e.line) }

func getOnce(ctx context.Context, addr string, u *url.URL) error {
	ctx, cancel := context.WithTimeout(ctx, probeAttempt)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Now()) }) // Ctrl-C
	defer stop()
	path := u.RequestURI()
	if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: vx\r\nAccept: */*\r\nConnection: close\r\n\r\n", path, u.Host); err != nil {
		return err
	}
	// At most 512 bytes: a server that never ends its first line neither
	// grows vx's memory nor is an answer.
	b, err := bufio.NewReaderSize(c, 512).ReadSlice('\n')
	if err != nil && len(b) == 0 {
		return fmt.Errorf("no answer: %w", err)
	}
	line := string(b)
	code, ok := statusCode(line)
	switch {
	case !ok:
		return fmt.Errorf("not an HTTP answer: %q", strings.TrimSpace(line))
	case code < 200 || code > 399:
		return statusError{strings.TrimSpace(line)}
	}
	return nil
}

// statusCode reads the code of an HTTP/1.x status line ("HTTP/1.1 200 OK").
func statusCode(line string) (int, bool) {
	rest, ok := strings.CutPrefix(line, "HTTP/1.")
	if !ok || len(rest) < 5 || rest[1] != ' ' {
		return 0, false
	}
	code, err := strconv.Atoi(rest[2:5])
	if err != nil || code < 100 || code > 999 || (len(rest) > 5 && rest[5] != ' ' && rest[5] != '\r' && rest[5] != '\n') {
		return 0, false
	}
	return code, true
}
