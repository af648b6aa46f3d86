package turbo

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/remote/wire"
)

// MaxArtifact bounds an artifact, compressed as it travels and unpacked.
// A variable for tests.
var MaxArtifact int64 = 4 << 30

// Client talks to one turbo remote cache server. It implements
// [wire.Backend].
type Client struct {
	base   string // the URL without a trailing slash; /v8/artifacts follows
	query  string // teamId=...&slug=...
	team   string // in the signature: the team id, "" for a slug alone (as turbo)
	token  string
	header [2]string // VX_REMOTE_HEADER's name and value, if set
	key    []byte
	cfg    remote.Config
	hc     *http.Client

	mu      sync.Mutex
	paths   map[string]string // blob hash -> file in vx's store (UploadBlobs)
	spool   string            // the directory of downloaded blobs
	spooled map[string]bool   // blob hashes in spool
}

// Dial prepares a client for the hello's configuration. It does not
// connect. Its errors never contain the token, the header or the signing
// key.
func Dial(h *wire.Hello) (*Client, error) {
	cfg := remote.Config{URL: h.URL, Header: h.Header, TLSCA: h.TLSCA, SigningKey: h.SigningKey,
		Token: h.Token, TeamID: h.TeamID, TeamSlug: h.TeamSlug}
	if err := cfg.Check(); err != nil {
		return nil, &wire.Error{Code: wire.CodeConfig, Message: cfg.Redact(err.Error())}
	}
	if cfg.Protocol() != remote.ProtocolTurbo {
		return nil, &wire.Error{Code: wire.CodeConfig, Message: fmt.Sprintf("%q is not an http:// or https:// URL", h.URL)}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 16
	if cfg.TLSCA != "" {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		pem, err := os.ReadFile(cfg.TLSCA)
		if err != nil {
			return nil, &wire.Error{Code: wire.CodeConfig, Message: fmt.Sprintf("cannot read VX_REMOTE_TLS_CA: %v", err)}
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &wire.Error{Code: wire.CodeConfig, Message: fmt.Sprintf("VX_REMOTE_TLS_CA %q holds no PEM certificate", cfg.TLSCA)}
		}
		tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: pool}
	}
	q := url.Values{}
	if cfg.TeamID != "" {
		q.Set("teamId", cfg.TeamID)
	}
	if cfg.TeamSlug != "" {
		q.Set("slug", cfg.TeamSlug)
	}
	c := &Client{base: strings.TrimRight(cfg.URL, "/"), query: q.Encode(), team: cfg.TeamID, token: cfg.Token, cfg: cfg,
		hc: &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
			// A server may send a download to a CDN (ducktors'
			// TURBO_CACHE_READ_URL): the token stays with the server.
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			if req.URL.Host != via[0].URL.Host {
				req.Header.Del("Authorization")
			}
			return nil
		}},
		paths: map[string]string{}, spooled: map[string]bool{}}
	spool, err := os.MkdirTemp("", "vx-remote-turbo-")
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeConfig, Message: fmt.Sprintf("cannot make a spool directory: %v", err)}
	}
	c.spool = spool
	if name, value, ok := strings.Cut(cfg.Header, "="); ok {
		c.header = [2]string{strings.TrimSpace(name), strings.TrimSpace(value)}
	}
	if cfg.SigningKey != "" {
		c.key = []byte(cfg.SigningKey)
	}
	return c, nil
}

// ArtifactHash is the name of action's entry on the server: 32 hex digits
// of a SHA-256 over a prefix naming vx's format and the action digest, so
// that vx's entries never meet turbo's (16 hex digits) and a later format
// gets other names.
func ArtifactHash(action wire.Digest) string {
	sum := sha256.Sum256([]byte(artifactMagic + "\x00" + action.String()))
	return hex.EncodeToString(sum[:16])
}

// tagDomain opens the message turbo signs (since 2.11), naming the form
// of what follows.
const tagDomain = "artifact-signature:v2"

// Tag is the x-artifact-tag of an artifact as turbo makes it: base64 of
// HMAC-SHA256 keyed with the signing key over four fields, each preceded
// by its length as 8 bytes little-endian: "artifact-signature:v2", the
// artifact's hash (its name), the team id ("" when the team is a slug
// alone: turbo never signs the slug) and the artifact's body, the bytes
// sent.
func Tag(key []byte, hash, teamID string, body []byte) string {
	m := newMAC(key, hash, teamID, int64(len(body)))
	m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// newMAC is the HMAC of an artifact of size bytes, fed all but its body.
func newMAC(key []byte, hash, teamID string, size int64) interface {
	io.Writer
	Sum([]byte) []byte
} {
	m := hmac.New(sha256.New, key)
	field := func(b []byte, n int64) {
		var l [8]byte
		binary.LittleEndian.PutUint64(l[:], uint64(n))
		m.Write(l[:])
		m.Write(b)
	}
	field([]byte(tagDomain), int64(len(tagDomain)))
	field([]byte(hash), int64(len(hash)))
	field([]byte(teamID), int64(len(teamID)))
	field(nil, size)
	return m
}

func (c *Client) url(path string) string {
	u := c.base + path
	if c.query != "" {
		u += "?" + c.query
	}
	return u
}

func (c *Client) request(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), body)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeConfig, Message: c.cfg.Redact(err.Error())}
	}
	req.Header.Set("User-Agent", "vx-remote")
	if c.header[0] != "" {
		req.Header.Set(c.header[0], c.header[1])
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// do sends req and maps a transport error to a wire error.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, wire.AsError(ctxErr)
		}
		return nil, &wire.Error{Code: wire.CodeUnavailable, Message: c.cfg.Redact(err.Error())}
	}
	return resp, nil
}

// statusError maps an HTTP status that is not a success to a wire error,
// with the start of the server's message.
func (c *Client) statusError(resp *http.Response) *wire.Error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	msg := strings.TrimSpace(string(b))
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = msg[:i]
	}
	if msg != "" {
		msg = ": " + msg
	}
	msg = c.cfg.Redact(fmt.Sprintf("HTTP %s%s", resp.Status, msg))
	code := wire.CodeUnknown
	switch {
	case resp.StatusCode == http.StatusNotFound:
		code = wire.CodeNotFound
	case resp.StatusCode == http.StatusUnauthorized:
		code = wire.CodeUnauthenticated
		msg += " (check VX_REMOTE_TOKEN or TURBO_TOKEN)"
	case resp.StatusCode == http.StatusForbidden:
		code = wire.CodePermissionDenied
	case resp.StatusCode == http.StatusRequestEntityTooLarge:
		code = wire.CodeResourceExhaust
	case resp.StatusCode == http.StatusBadRequest:
		code = wire.CodeInvalidArgument
	case resp.StatusCode >= 500:
		code = wire.CodeUnavailable
	}
	return &wire.Error{Code: code, Message: msg}
}

// Capabilities asks /v8/artifacts/status.
func (c *Client) Capabilities(ctx context.Context) (*wire.Capabilities, error) {
	start := time.Now()
	req, err := c.request(ctx, http.MethodGet, "/v8/artifacts/status", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp)
	}
	var st struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&st); err != nil {
		return nil, &wire.Error{Code: wire.CodeUnknown, Message: fmt.Sprintf("the server's status is not turbo's JSON: %v", err)}
	}
	return &wire.Capabilities{DigestFunctions: []string{"SHA256"}, SHA256: true, UpdateEnabled: st.Status == "enabled",
		APIVersion: "turbo v8, status " + strconv.Quote(st.Status), LatencyMS: time.Since(start).Milliseconds()}, nil
}

// GetActionResult downloads the action's artifact, checks it (signature,
// action, framing, every blob's digest) and keeps its blobs for ReadBlob.
func (c *Client) GetActionResult(ctx context.Context, action wire.Digest) ([]byte, error) {
	hash := ArtifactHash(action)
	req, err := c.request(ctx, http.MethodGet, "/v8/artifacts/"+hash, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(resp)
	}
	if resp.ContentLength > MaxArtifact {
		return nil, &wire.Error{Code: wire.CodeNotFound, Message: fmt.Sprintf("the entry's artifact is %d bytes, more than vx reads (%d)", resp.ContentLength, MaxArtifact)}
	}
	var mac interface {
		io.Writer
		Sum([]byte) []byte
	}
	var tag []byte
	if c.key != nil {
		t := resp.Header.Get("x-artifact-tag")
		if t == "" {
			return nil, &wire.Error{Code: wire.CodeBadSignature, Message: "the entry is not signed (a signing key is set, so unsigned entries are misses)"}
		}
		if tag, err = base64.StdEncoding.DecodeString(t); err != nil {
			return nil, &wire.Error{Code: wire.CodeBadSignature, Message: "the entry's x-artifact-tag is not base64"}
		}
	}
	var src io.Reader = &bodyReader{r: resp.Body, ctx: ctx, left: MaxArtifact}
	if c.key != nil {
		// The tag covers the body's length before its bytes: a body of
		// unknown length is read whole into the spool first.
		size := resp.ContentLength
		if size < 0 {
			f, n, err := c.spoolBody(src)
			if err != nil {
				return nil, err
			}
			defer os.Remove(f.Name())
			defer f.Close()
			src, size = f, n
		}
		mac = newMAC(c.key, hash, c.team, size)
		src = io.TeeReader(src, mac)
	}
	br := bufio.NewReader(src) // read by the gzip reader byte by byte at its end, so nothing after it is lost
	staged, result, err := c.unpack(br, action)
	defer func() {
		for _, p := range staged {
			os.Remove(p)
		}
	}()
	if err == nil {
		// The whole body counts: bytes after the compressed stream are
		// damage, and the signature covers them too.
		var extra int64
		extra, err = io.Copy(io.Discard, br)
		if err == nil && extra > 0 {
			err = errors.New("bytes after the end of the entry")
		}
	}
	if err != nil {
		var be *bodyError
		if errors.As(err, &be) {
			return nil, be.err
		}
		if mac != nil {
			// A damaged artifact and a forged one look alike here.
			return nil, &wire.Error{Code: wire.CodeBadSignature, Message: "the entry's artifact is damaged or not vx's (" + err.Error() + ")"}
		}
		return nil, &wire.Error{Code: wire.CodeNotFound, Message: "the entry's artifact is damaged or not vx's: " + err.Error()}
	}
	if mac != nil && !hmac.Equal(mac.Sum(nil), tag) {
		return nil, &wire.Error{Code: wire.CodeBadSignature, Message: "the entry's signature does not match its content or was made with another key"}
	}
	// Verified: the blobs become readable.
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, p := range staged {
		if c.spooled[h] {
			continue // the same bytes, from another entry (and maybe open: Windows renames over no open file)
		}
		if err := os.Rename(p, filepath.Join(c.spool, h)); err != nil {
			return nil, &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
		}
		delete(staged, h)
		c.spooled[h] = true
	}
	return result, nil
}

// spoolBody copies a body of unknown length into a file of the spool,
// and returns it, rewound, with its length.
func (c *Client) spoolBody(r io.Reader) (*os.File, int64, error) {
	f, err := os.CreateTemp(c.spool, "get-*")
	if err != nil {
		return nil, 0, &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
	}
	n, err := io.Copy(f, r)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		var be *bodyError
		if errors.As(err, &be) {
			return nil, 0, be.err
		}
		return nil, 0, &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
	}
	return f, n, nil
}

// bodyReader reads a response body: it reports progress, bounds the
// bytes, and marks its errors as the transfer's (a fault), unlike the
// content's (a miss).
type bodyReader struct {
	r    io.Reader
	ctx  context.Context
	left int64
}

type bodyError struct{ err *wire.Error }

func (e *bodyError) Error() string { return e.err.Error() }

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, &bodyError{&wire.Error{Code: wire.CodeNotFound, Message: fmt.Sprintf("the entry's artifact is more than %d bytes, which vx does not read", MaxArtifact)}}
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if n > 0 {
		wire.Progress(b.ctx)
	}
	if err != nil && err != io.EOF {
		if ctxErr := b.ctx.Err(); ctxErr != nil {
			return n, &bodyError{wire.AsError(ctxErr)}
		}
		return n, &bodyError{&wire.Error{Code: wire.CodeUnavailable, Message: "the download broke: " + err.Error()}}
	}
	return n, err
}

type progressWriter struct {
	w   io.Writer
	ctx context.Context
}

func (p progressWriter) Write(b []byte) (int, error) {
	wire.Progress(p.ctx)
	return p.w.Write(b)
}

type progressReader struct {
	r   io.Reader
	ctx context.Context
}

func (p progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		wire.Progress(p.ctx)
	}
	return n, err
}

// ReadBlob serves a blob of an artifact downloaded by GetActionResult.
func (c *Client) ReadBlob(ctx context.Context, d wire.Digest, w io.Writer) error {
	if !validHash(d.Hash) {
		return &wire.Error{Code: wire.CodeInvalidArgument, Message: fmt.Sprintf("%q is not a SHA-256 digest", d.Hash)}
	}
	c.mu.Lock()
	ok := c.spooled[d.Hash]
	spool := c.spool
	c.mu.Unlock()
	if !ok {
		return &wire.Error{Code: wire.CodeNotFound, Message: "blob " + d.String() + " is in no entry downloaded by this run"}
	}
	f, err := os.Open(filepath.Join(spool, d.Hash))
	if err != nil {
		return &wire.Error{Code: wire.CodeNotFound, Message: err.Error()}
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// FindMissingBlobs reports every blob missing: a turbo server has no
// blobs of its own, each entry carries its blobs, so vx hands them all to
// UploadBlobs.
func (c *Client) FindMissingBlobs(ctx context.Context, blobs []wire.Digest) ([]wire.Digest, error) {
	return blobs, nil
}

// UploadBlobs records where the blobs are, for the UpdateActionResult
// that packs them; it sends nothing.
func (c *Client) UploadBlobs(ctx context.Context, blobs []wire.BlobSource) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range blobs {
		if !validHash(b.Digest.Hash) {
			return &wire.Error{Code: wire.CodeInvalidArgument, Message: fmt.Sprintf("%q is not a SHA-256 digest", b.Digest.Hash)}
		}
		c.paths[b.Digest.Hash] = b.Path
	}
	return nil
}

// UpdateActionResult packs the result and its blobs into one artifact
// (in a temporary file, to sign it and send its length) and PUTs it.
func (c *Client) UpdateActionResult(ctx context.Context, action wire.Digest, result []byte) error {
	hash := ArtifactHash(action)
	f, err := os.CreateTemp(c.spool, "put-*")
	if err != nil {
		return &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
	}
	defer os.Remove(f.Name())
	defer f.Close()
	var mac interface {
		io.Writer
		Sum([]byte) []byte
	}
	// Packing a large entry takes a while, and so does sending it: both
	// report progress, for vx's idle deadline.
	durationMS, err := pack(progressWriter{f, ctx}, action, result, c.blobPath)
	if err != nil {
		return &wire.Error{Code: wire.CodeInternal, Message: "cannot pack the entry: " + err.Error()}
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err == nil && c.key != nil {
		// The tag covers the length before the bytes: read the packed
		// file again.
		mac = newMAC(c.key, hash, c.team, size)
		if _, err = io.Copy(mac, progressReader{f, ctx}); err == nil {
			_, err = f.Seek(0, io.SeekStart)
		}
	}
	if err != nil {
		return &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
	}
	req, err := c.request(ctx, http.MethodPut, "/v8/artifacts/"+hash, io.NopCloser(progressReader{f, ctx}))
	if err != nil {
		return err
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/octet-stream")
	if durationMS > 0 {
		req.Header.Set("x-artifact-duration", strconv.FormatInt(durationMS, 10))
	}
	if mac != nil {
		req.Header.Set("x-artifact-tag", base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	resp, err := c.do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return c.statusError(resp)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return nil
}

// blobPath is where UploadBlobs said blob h is.
func (c *Client) blobPath(h string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.paths[h]
	return p, ok
}

// Close removes the spool.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.spool != "" {
		os.RemoveAll(c.spool)
	}
	return nil
}

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for _, r := range h {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}

// Verify reports whether tag is the x-artifact-tag of an artifact (see
// [Tag]).
func Verify(key []byte, hash, teamID string, body []byte, tag string) bool {
	want, err := base64.StdEncoding.DecodeString(tag)
	if err != nil {
		return false
	}
	m := newMAC(key, hash, teamID, int64(len(body)))
	m.Write(body)
	return hmac.Equal(m.Sum(nil), want)
}
