// Package reapi is the gRPC client of a REAPI v2 cache (ActionCache,
// ContentAddressableStorage, ByteStream, Capabilities) behind vx's
// remote-cache helper, cmd/vx-remote. It links google.golang.org/grpc and
// the generated REAPI protos, and so must never be imported by vx itself:
// vx reaches it over a pipe (package remote).
//
// Digests are SHA-256. Results are signed and verified here when a signing
// key is configured, and a result whose blobs the server no longer holds is
// reported as not found, never handed out.
package reapi

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/remote/wire"
)

// defaultBatchLimit is the size of a batch request when the server sets no
// lower one: gRPC servers' default receive limit.
const defaultBatchLimit = 4 << 20

// Client talks to one REAPI v2 cache.
type Client struct {
	conn     *grpc.ClientConn
	ac       repb.ActionCacheClient
	cas      repb.ContentAddressableStorageClient
	capsC    repb.CapabilitiesClient
	bs       bspb.ByteStreamClient
	instance string
	key      []byte
	cfg      remote.Config

	capsMu sync.Mutex
	caps   *wire.Capabilities
}

// Dial prepares a client for the hello's configuration. It does not
// connect: gRPC connects on the first call. Its errors never contain the
// header or the signing key.
func Dial(h *wire.Hello) (*Client, error) {
	cfg := remote.Config{URL: h.URL, Instance: h.Instance, Header: h.Header, TLSCert: h.TLSCert, TLSKey: h.TLSKey,
		TLSCA: h.TLSCA, SigningKey: h.SigningKey}
	if err := cfg.Check(); err != nil {
		return nil, &wire.Error{Code: wire.CodeConfig, Message: cfg.Redact(err.Error())}
	}
	target, useTLS, _ := cfg.Target()
	opts := []grpc.DialOption{
		grpc.WithUserAgent("vx-remote"),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(wire.MaxPayload)),
	}
	if useTLS {
		tc, err := tlsConfig(&cfg)
		if err != nil {
			return nil, &wire.Error{Code: wire.CodeConfig, Message: err.Error()}
		}
		opts = append(opts, grpc.WithTransportCredentials(credentials.NewTLS(tc)))
	} else {
		opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if name, value, ok := strings.Cut(cfg.Header, "="); ok {
		md := metadata.Pairs(strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value))
		opts = append(opts,
			grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, o ...grpc.CallOption) error {
				return invoker(metadata.NewOutgoingContext(ctx, metadata.Join(md, outgoing(ctx))), method, req, reply, cc, o...)
			}),
			grpc.WithStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, o ...grpc.CallOption) (grpc.ClientStream, error) {
				return streamer(metadata.NewOutgoingContext(ctx, metadata.Join(md, outgoing(ctx))), desc, cc, method, o...)
			}))
	}
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeConfig, Message: cfg.Redact(err.Error())}
	}
	c := &Client{conn: conn, ac: repb.NewActionCacheClient(conn), cas: repb.NewContentAddressableStorageClient(conn),
		capsC: repb.NewCapabilitiesClient(conn), bs: bspb.NewByteStreamClient(conn), instance: h.Instance, cfg: cfg}
	if h.SigningKey != "" {
		c.key = []byte(h.SigningKey)
	}
	return c, nil
}

func outgoing(ctx context.Context) metadata.MD {
	md, _ := metadata.FromOutgoingContext(ctx)
	return md
}

func tlsConfig(cfg *remote.Config) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if cfg.TLSCA != "" {
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		pem, err := os.ReadFile(cfg.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("cannot read VX_REMOTE_TLS_CA: %w", err)
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("VX_REMOTE_TLS_CA %q holds no PEM certificate", cfg.TLSCA)
		}
		tc.RootCAs = pool
	}
	if cfg.TLSCert != "" {
		pair, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("cannot load the client certificate pair (VX_REMOTE_TLS_CERT, VX_REMOTE_TLS_KEY): %w", err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// rpcError maps a gRPC error to the pipe's codes, with the header and key
// redacted from the message.
func (c *Client) rpcError(err error) error {
	if err == nil {
		return nil
	}
	var we *wire.Error
	if errors.As(err, &we) {
		return we
	}
	code := wire.CodeUnknown
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		code = wire.CodeDeadline
	} else if errors.Is(err, context.Canceled) {
		code = wire.CodeCanceled
	} else if st, ok := status.FromError(err); ok {
		msg = st.Message()
		switch st.Code() {
		case codes.NotFound:
			code = wire.CodeNotFound
		case codes.Unavailable:
			code = wire.CodeUnavailable
		case codes.DeadlineExceeded:
			code = wire.CodeDeadline
		case codes.Canceled:
			code = wire.CodeCanceled
		case codes.Unauthenticated:
			code = wire.CodeUnauthenticated
		case codes.PermissionDenied:
			code = wire.CodePermissionDenied
		case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
			code = wire.CodeInvalidArgument
		case codes.ResourceExhausted:
			code = wire.CodeResourceExhaust
		case codes.Unimplemented:
			code = wire.CodeUnimplemented
		case codes.Internal, codes.DataLoss:
			code = wire.CodeInternal
		}
	}
	return &wire.Error{Code: code, Message: c.cfg.Redact(msg)}
}

func pbDigest(d wire.Digest) *repb.Digest { return &repb.Digest{Hash: d.Hash, SizeBytes: d.Size} }

// Capabilities asks the server once and remembers a successful answer.
func (c *Client) Capabilities(ctx context.Context) (*wire.Capabilities, error) {
	c.capsMu.Lock()
	defer c.capsMu.Unlock()
	if c.caps != nil {
		return c.caps, nil
	}
	start := time.Now()
	sc, err := c.capsC.GetCapabilities(ctx, &repb.GetCapabilitiesRequest{InstanceName: c.instance})
	if err != nil {
		return nil, c.rpcError(err)
	}
	caps := &wire.Capabilities{DigestFunctions: []string{}, LatencyMS: time.Since(start).Milliseconds()}
	cc := sc.GetCacheCapabilities()
	for _, f := range cc.GetDigestFunctions() {
		caps.DigestFunctions = append(caps.DigestFunctions, f.String())
		if f == repb.DigestFunction_SHA256 {
			caps.SHA256 = true
		}
	}
	if len(cc.GetDigestFunctions()) == 0 && cc != nil {
		// Servers older than REAPI 2.1 list none and mean SHA-256.
		caps.SHA256 = true
	}
	caps.MaxBatchBytes = cc.GetMaxBatchTotalSizeBytes()
	caps.UpdateEnabled = cc.GetActionCacheUpdateCapabilities().GetUpdateEnabled()
	if v := sc.GetHighApiVersion(); v != nil {
		caps.APIVersion = fmt.Sprintf("%d.%d", v.GetMajor(), v.GetMinor())
	}
	if cc == nil {
		return nil, &wire.Error{Code: wire.CodeUnimplemented, Message: "the server offers no cache (its capabilities have no cache_capabilities)"}
	}
	c.caps = caps
	return caps, nil
}

// GetActionResult fetches the result, checks its signature when a key is
// set, and checks that the server still holds every blob it names.
func (c *Client) GetActionResult(ctx context.Context, action wire.Digest) ([]byte, error) {
	ad := pbDigest(action)
	r, err := c.ac.GetActionResult(ctx, &repb.GetActionResultRequest{InstanceName: c.instance, ActionDigest: ad,
		DigestFunction: repb.DigestFunction_SHA256})
	if err != nil {
		return nil, c.rpcError(err)
	}
	if c.key != nil {
		if why := verify(c.key, ad, r); why != "" {
			return nil, &wire.Error{Code: wire.CodeBadSignature, Message: why}
		}
	}
	var need []wire.Digest
	add := func(d *repb.Digest) {
		if d != nil && d.GetSizeBytes() > 0 {
			need = append(need, wire.Digest{Hash: d.GetHash(), Size: d.GetSizeBytes()})
		}
	}
	for _, f := range r.GetOutputFiles() {
		add(f.GetDigest())
	}
	for _, d := range r.GetOutputDirectories() {
		add(d.GetTreeDigest())
	}
	if len(r.GetStdoutRaw()) == 0 {
		add(r.GetStdoutDigest())
	}
	if len(r.GetStderrRaw()) == 0 {
		add(r.GetStderrDigest())
	}
	missing, err := c.FindMissingBlobs(ctx, need)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		return nil, &wire.Error{Code: wire.CodeNotFound,
			Message: fmt.Sprintf("the result names %d blob(s) the server no longer holds (first %s/%d)", len(missing), missing[0].Hash, missing[0].Size)}
	}
	b, err := marshal(r)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
	}
	return b, nil
}

// UpdateActionResult stores result (a serialized ActionResult), signed
// when a key is set.
func (c *Client) UpdateActionResult(ctx context.Context, action wire.Digest, result []byte) error {
	r := &repb.ActionResult{}
	if err := unmarshal(result, r); err != nil {
		return &wire.Error{Code: wire.CodeInvalidArgument, Message: "the result is not a serialized REAPI ActionResult: " + err.Error()}
	}
	ad := pbDigest(action)
	if c.key != nil {
		if err := sign(c.key, ad, r); err != nil {
			return &wire.Error{Code: wire.CodeInternal, Message: err.Error()}
		}
	}
	_, err := c.ac.UpdateActionResult(ctx, &repb.UpdateActionResultRequest{InstanceName: c.instance, ActionDigest: ad,
		ActionResult: r, DigestFunction: repb.DigestFunction_SHA256})
	return c.rpcError(err)
}

// findMissingChunk bounds the digests of one FindMissingBlobs request.
const findMissingChunk = 4096

// FindMissingBlobs asks in requests of at most findMissingChunk digests.
func (c *Client) FindMissingBlobs(ctx context.Context, blobs []wire.Digest) ([]wire.Digest, error) {
	var missing []wire.Digest
	for len(blobs) > 0 {
		n := min(len(blobs), findMissingChunk)
		req := &repb.FindMissingBlobsRequest{InstanceName: c.instance, DigestFunction: repb.DigestFunction_SHA256}
		for _, d := range blobs[:n] {
			if d.Size > 0 {
				req.BlobDigests = append(req.BlobDigests, pbDigest(d))
			}
		}
		blobs = blobs[n:]
		if len(req.BlobDigests) == 0 {
			continue
		}
		resp, err := c.cas.FindMissingBlobs(ctx, req)
		if err != nil {
			return nil, c.rpcError(err)
		}
		for _, d := range resp.GetMissingBlobDigests() {
			missing = append(missing, wire.Digest{Hash: d.GetHash(), Size: d.GetSizeBytes()})
		}
	}
	return missing, nil
}

func (c *Client) resource(parts ...string) string {
	if c.instance != "" {
		parts = append([]string{c.instance}, parts...)
	}
	return strings.Join(parts, "/")
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
