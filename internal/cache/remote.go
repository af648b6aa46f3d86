package cache

import (
	"context"
	"io"

	"github.com/vxrun/vx/internal/remote/wire"
)

// Digest names a blob by its SHA-256 (64 lower-case hex digits) and its size
// in bytes, as REAPI v2's Digest does. The type is the remote-cache
// protocol's ([wire.Digest]), so that the vx-remote helper needs nothing of
// this package.
type Digest = wire.Digest

// ErrNotFound is returned (possibly wrapped) by a [Remote] that holds no
// ActionResult for an action, or no blob for a digest.
var ErrNotFound = wire.ErrNotFound

// BlobSource is one blob to upload: its digest and the local file that holds
// it (a file of the local content-addressed store).
type BlobSource = wire.BlobSource

// Remote is a REAPI v2 ActionCache and ContentAddressableStorage as vx sees
// it. Results travel in their REAPI v2 wire encoding (a serialized
// build.bazel.remote.execution.v2.ActionResult), so an implementation
// forwards bytes and needs none of this package's types. Every method honours
// ctx's deadline; an implementation never blocks past it.
type Remote interface {
	// GetActionResult returns the serialized ActionResult stored for the
	// action, or ErrNotFound.
	GetActionResult(ctx context.Context, action Digest) ([]byte, error)
	// UpdateActionResult stores result for the action. The caller uploads
	// every blob the result names first.
	UpdateActionResult(ctx context.Context, action Digest, result []byte) error
	// FindMissingBlobs returns those of blobs the remote does not hold.
	FindMissingBlobs(ctx context.Context, blobs []Digest) ([]Digest, error)
	// UploadBlobs stores blobs, batching small ones and streaming those above
	// the server's batch limit.
	UploadBlobs(ctx context.Context, blobs []BlobSource) error
	// ReadBlob writes the blob's content to w, or returns ErrNotFound. The
	// caller verifies the digest of what it received. Besides ctx, an
	// implementation may bound it by an idle deadline (no bytes for a
	// while) rather than a total one, so that a large blob is not cut off
	// while its bytes flow.
	ReadBlob(ctx context.Context, d Digest, w io.Writer) error
	// Close ends the connection (and any helper process behind it).
	Close() error
}
