package wire

import (
	"context"
	"errors"
	"io"
)

// Operations a [Request] names.
const (
	OpHello              = "hello"
	OpCapabilities       = "capabilities"
	OpGetActionResult    = "getActionResult"
	OpUpdateActionResult = "updateActionResult"
	OpFindMissingBlobs   = "findMissingBlobs"
	OpUploadBlobs        = "uploadBlobs"
	OpReadBlob           = "readBlob"
)

// Request opens a call. Only the fields its Op uses are set.
type Request struct {
	Op string `json:"op"`
	// TimeoutMS is the call's deadline in milliseconds from its arrival; 0
	// means none (the helper's own per-call default applies).
	TimeoutMS int64        `json:"timeoutMs,omitempty"`
	Hello     *Hello       `json:"hello,omitempty"`
	Action    *Digest      `json:"action,omitempty"`
	Result    []byte       `json:"result,omitempty"` // a serialized REAPI ActionResult
	Digests   []Digest     `json:"digests,omitempty"`
	Blobs     []BlobSource `json:"blobs,omitempty"`
}

// Hello is the configuration vx hands the helper. It travels over the pipe,
// not on the command line or in the environment, so the header and the
// signing key are never visible to other processes.
type Hello struct {
	Version  int    `json:"version"`
	URL      string `json:"url"`      // grpc://host:port or grpcs://host:port; http(s):// for turbo's API
	Instance string `json:"instance"` // REAPI instance name, may be empty
	// Header is one "Name=Value" sent with every call (an auth token). It
	// is never printed and never part of an error.
	Header     string `json:"header,omitempty"`
	TLSCert    string `json:"tlsCert,omitempty"` // client certificate (PEM file) for mutual TLS
	TLSKey     string `json:"tlsKey,omitempty"`  // its private key (PEM file)
	TLSCA      string `json:"tlsCA,omitempty"`   // extra roots (PEM file) to trust besides the system's
	SigningKey string `json:"signingKey,omitempty"`
	// Token, TeamID and TeamSlug are a turbo server's bearer token and
	// team (URL http:// or https://). The token is never printed.
	Token    string `json:"token,omitempty"`
	TeamID   string `json:"teamId,omitempty"`
	TeamSlug string `json:"teamSlug,omitempty"`
}

// Response ends a call.
type Response struct {
	Error        *Error        `json:"error,omitempty"`
	Version      int           `json:"version,omitempty"` // hello
	Result       []byte        `json:"result,omitempty"`  // getActionResult
	Missing      []Digest      `json:"missing,omitempty"` // findMissingBlobs
	Capabilities *Capabilities `json:"capabilities,omitempty"`
}

// Capabilities is what the server said it supports.
type Capabilities struct {
	DigestFunctions []string `json:"digestFunctions"` // e.g. ["SHA256"]
	SHA256          bool     `json:"sha256"`          // vx's digest function is among them
	MaxBatchBytes   int64    `json:"maxBatchBytes"`   // 0: the server sets no limit
	UpdateEnabled   bool     `json:"updateEnabled"`   // clients may write ActionResults
	APIVersion      string   `json:"apiVersion"`      // highest REAPI version the server speaks, e.g. "2.3"
	LatencyMS       int64    `json:"latencyMs"`       // the Capabilities call's round trip
}

// Error codes, named after gRPC's status codes, plus the helper's own.
const (
	CodeNotFound         = "not_found"
	CodeBadSignature     = "bad_signature" // a miss: the entry's signature is absent or wrong
	CodeUnavailable      = "unavailable"
	CodeDeadline         = "deadline_exceeded"
	CodeCanceled         = "canceled"
	CodeUnauthenticated  = "unauthenticated"
	CodePermissionDenied = "permission_denied"
	CodeInvalidArgument  = "invalid_argument"
	CodeResourceExhaust  = "resource_exhausted"
	CodeUnimplemented    = "unimplemented"
	CodeInternal         = "internal"
	CodeUnknown          = "unknown"
	CodeProtocol         = "protocol" // the two sides do not understand each other
	CodeConfig           = "config"   // the hello's configuration cannot be used (bad certificate file...)
)

// Error is a failed call: a code vx acts on and a message for people.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Is makes a not_found or bad_signature Error match [ErrNotFound]:
// both are misses.
func (e *Error) Is(target error) bool {
	return target == ErrNotFound && (e.Code == CodeNotFound || e.Code == CodeBadSignature)
}

// AsError turns any error into an *Error, keeping a code it already has and
// mapping context errors and [ErrNotFound].
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return &Error{Code: CodeNotFound, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeDeadline, Message: err.Error()}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCanceled, Message: err.Error()}
	}
	return &Error{Code: CodeUnknown, Message: err.Error()}
}

// Backend is what the helper serves: a REAPI v2 cache (package reapi's
// client, or a fake in tests).
type Backend interface {
	Capabilities(ctx context.Context) (*Capabilities, error)
	GetActionResult(ctx context.Context, action Digest) ([]byte, error)
	UpdateActionResult(ctx context.Context, action Digest, result []byte) error
	FindMissingBlobs(ctx context.Context, blobs []Digest) ([]Digest, error)
	UploadBlobs(ctx context.Context, blobs []BlobSource) error
	ReadBlob(ctx context.Context, d Digest, w io.Writer) error
	Close() error
}

type progressKey struct{}

// WithProgress returns a context whose [Progress] calls f: the helper
// gives each call one, so that a backend receiving a large answer can say
// that bytes still arrive.
func WithProgress(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// Progress reports that the call of ctx is receiving bytes; it does
// nothing outside the helper.
func Progress(ctx context.Context) {
	if f, ok := ctx.Value(progressKey{}).(func()); ok {
		f()
	}
}
