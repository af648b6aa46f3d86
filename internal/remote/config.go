package remote

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// DefaultTimeout is the deadline of one metadata call (an ActionResult
// lookup or update, a FindMissingBlobs, Capabilities). A blob transfer gets
// this plus one second per MiB.
const DefaultTimeout = 5 * time.Second

// Config says which remote cache to use and how.
//
// Precedence, applied by the command line (cli): a flag beats the variable,
// which beats vx.json's "remoteCache"; the header, the TLS key pair and the
// signing key come only from vx's environment.
type Config struct {
	// URL is grpc://host:port or grpcs://host[:port] (TLS, port 443 by
	// default) for a REAPI v2 server, or http://host[:port][/path] or
	// https://... for a server of turbo's remote cache API (/v8/artifacts
	// under the URL's path).
	URL      string
	Instance string // REAPI instance name; "" for the server's default
	// Token is the bearer token of a turbo server (VX_REMOTE_TOKEN, else
	// TURBO_TOKEN). It is never printed and never part of an error.
	Token string
	// TeamID and TeamSlug name the team on a turbo server: the query's
	// teamId (team_...) and slug; both are sent when both are set.
	TeamID, TeamSlug string
	// Header is "Name=Value", sent with every call (VX_REMOTE_HEADER). It
	// is never printed and never part of an error.
	Header     string
	TLSCert    string // client certificate file (PEM), for mutual TLS
	TLSKey     string // its key file (PEM)
	TLSCA      string // extra roots to trust (PEM), besides the system's
	SigningKey string // VX_REMOTE_SIGNING_KEY: HMAC-SHA256 key signing results
	Write      bool   // upload results (--remote-write); read-only otherwise
	Timeout    time.Duration
}

// Protocols a Config's URL selects.
const (
	ProtocolREAPI = "reapi" // grpc:// and grpcs://
	ProtocolTurbo = "turbo" // http:// and https://: turbo's remote cache API
)

// Protocol is the protocol the URL's scheme selects: turbo's HTTP API for
// http:// and https://, REAPI otherwise.
func (c *Config) Protocol() string {
	if s, _, ok := strings.Cut(c.URL, "://"); ok && (strings.EqualFold(s, "http") || strings.EqualFold(s, "https")) {
		return ProtocolTurbo
	}
	return ProtocolREAPI
}

// checkTurbo checks the URL and the team of a turbo server.
func (c *Config) checkTurbo() error {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("remote: cannot read the cache URL %q: write https://host[:port][/path]", c.URL)
	}
	if u.User != nil {
		return errors.New("remote: the cache URL must not hold credentials; put the token in VX_REMOTE_TOKEN or TURBO_TOKEN")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("remote: the cache URL %q has a query; name the team with --remote-instance, TURBO_TEAM or TURBO_TEAMID instead", c.URL)
	}
	if c.TeamID == "" && c.TeamSlug == "" {
		return fmt.Errorf("remote: the turbo cache %q needs a team: --remote-instance (team_... or a slug), TURBO_TEAMID or TURBO_TEAM", c.URL)
	}
	if c.TLSCert != "" || c.TLSKey != "" {
		return errors.New("remote: VX_REMOTE_TLS_CERT and VX_REMOTE_TLS_KEY are for REAPI servers (grpcs://); a turbo server takes a bearer token")
	}
	if c.TLSCA != "" && !strings.EqualFold(u.Scheme, "https") {
		return fmt.Errorf("remote: VX_REMOTE_TLS_CA is set but the cache URL %q is not https://", c.URL)
	}
	return nil
}

// Target is the URL's host:port as gRPC dials it, and whether it uses TLS.
func (c *Config) Target() (hostport string, tls bool, err error) {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", false, fmt.Errorf("remote: cannot read the cache URL %q: write grpc://host:port or grpcs://host[:port]", c.URL)
	}
	switch u.Scheme {
	case "grpc":
	case "grpcs":
		tls = true
	case "http", "https":
		return "", false, fmt.Errorf("remote: %q is an HTTP URL, which speaks turbo's remote cache API, not REAPI over gRPC (grpc://%s or grpcs://%s)", c.URL, u.Host, u.Host)
	default:
		return "", false, fmt.Errorf("remote: the cache URL %q must start with grpc:// or grpcs:// (REAPI), or http:// or https:// (turbo's remote cache API)", c.URL)
	}
	if u.User != nil {
		return "", false, errors.New("remote: the cache URL must not hold credentials; put them in VX_REMOTE_HEADER")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false, fmt.Errorf("remote: the cache URL %q has a path or query; name the instance with --remote-instance instead", c.URL)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" {
		if !tls {
			return "", false, fmt.Errorf("remote: the cache URL %q needs a port: grpc://%s:PORT", c.URL, host)
		}
		port = "443"
	}
	// As net.JoinHostPort, without linking package net (and its cgo
	// resolver) into every start of vx.
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + port, tls, nil
}

// Check reports a configuration that cannot work, before any process or
// connection is started. Its errors never contain the header's value or
// the signing key.
func (c *Config) Check() error {
	if c.Protocol() == ProtocolTurbo {
		if err := c.checkTurbo(); err != nil {
			return err
		}
		if err := c.checkHeader(); err != nil {
			return err
		}
		if c.TLSCA != "" {
			if _, err := os.Stat(c.TLSCA); err != nil {
				return fmt.Errorf("remote: VX_REMOTE_TLS_CA names %q, which cannot be read: %w", c.TLSCA, errors.Unwrap(err))
			}
		}
		if c.Timeout < 0 {
			return errors.New("remote: the timeout must be positive")
		}
		return nil
	}
	_, tls, err := c.Target()
	if err != nil {
		return err
	}
	if c.Token != "" {
		return errors.New("remote: a token (VX_REMOTE_TOKEN or TURBO_TOKEN) is for a turbo server (http:// or https://); a REAPI server takes VX_REMOTE_HEADER")
	}
	if err := c.checkHeader(); err != nil {
		return err
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("remote: mutual TLS needs both VX_REMOTE_TLS_CERT and VX_REMOTE_TLS_KEY")
	}
	if !tls && (c.TLSCert != "" || c.TLSCA != "") {
		return fmt.Errorf("remote: TLS files are set but the cache URL %q is not grpcs://", c.URL)
	}
	for _, f := range []struct{ name, path string }{{"VX_REMOTE_TLS_CERT", c.TLSCert}, {"VX_REMOTE_TLS_KEY", c.TLSKey}, {"VX_REMOTE_TLS_CA", c.TLSCA}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return fmt.Errorf("remote: %s names %q, which cannot be read: %w", f.name, f.path, errors.Unwrap(err))
		}
	}
	if c.Timeout < 0 {
		return errors.New("remote: the timeout must be positive")
	}
	return nil
}

// checkHeader checks VX_REMOTE_HEADER's shape without showing its value.
func (c *Config) checkHeader() error {
	if c.Header == "" {
		return nil
	}
	name, _, ok := strings.Cut(c.Header, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || !validHeaderName(name) {
		return errors.New("remote: VX_REMOTE_HEADER must be Name=Value, e.g. Authorization=Bearer <token> (its value is not shown)")
	}
	return nil
}

// validHeaderName accepts the characters of an HTTP/2 header name (gRPC
// metadata keys), in either case.
func validHeaderName(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}

// Redact replaces the header's value, the token and the signing key in s, for any
// message that might echo them.
func (c *Config) Redact(s string) string {
	s = redact(s, c.Header, c.SigningKey)
	if c.Token != "" {
		s = strings.ReplaceAll(s, c.Token, "[redacted]")
	}
	return s
}

// redact hides the header's value, and each word of it long enough to be
// a credential (the token of "Bearer <token>"), and the signing key.
func redact(s, header, key string) string {
	if _, v, ok := strings.Cut(header, "="); ok {
		if v = strings.TrimSpace(v); v != "" {
			s = strings.ReplaceAll(s, v, "[redacted]")
			for _, w := range strings.Fields(v) {
				if len(w) >= 8 {
					s = strings.ReplaceAll(s, w, "[redacted]")
				}
			}
		}
	}
	if key != "" {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	return s
}
