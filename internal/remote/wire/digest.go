package wire

import (
	"errors"
	"fmt"
)

// Digest names a blob by its SHA-256 (64 lower-case hex digits) and its size
// in bytes, as REAPI v2's Digest does. Package cache uses this type as its
// own (cache.Digest is an alias), so that neither vx's side of the pipe nor
// the helper converts, and the helper links no part of the cache.
type Digest struct {
	Hash string
	Size int64
}

// String returns "hash/size", the form REAPI resource names use.
func (d Digest) String() string { return fmt.Sprintf("%s/%d", d.Hash, d.Size) }

// BlobSource is one blob to upload: its digest and the local file that holds
// it (a file of the local content-addressed store).
type BlobSource struct {
	Digest Digest
	Path   string
}

// ErrNotFound is returned (possibly wrapped) by a cache that holds no
// ActionResult for an action, or no blob for a digest: a miss. It is
// cache.ErrNotFound.
var ErrNotFound = errors.New("cache: not found")
