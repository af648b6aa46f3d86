package remote

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/vxrun/vx/internal/remote/wire"
)

// Lazy is a cache.Remote that starts its [Client] on the first call, so
// that a run whose tasks all hit the local store never starts the helper.
// When start fails, every call fails at once with an error wrapping
// ErrDisabled; start reports the failure itself (one warning).
type Lazy struct {
	start func() (*Client, error)
	once  sync.Once
	c     *Client
	err   error
	mu    sync.Mutex
	done  bool
}

// NewLazy returns a Lazy that calls start on first use.
func NewLazy(start func() (*Client, error)) *Lazy { return &Lazy{start: start} }

func (l *Lazy) client() (*Client, error) {
	l.once.Do(func() {
		l.mu.Lock()
		closed := l.done
		l.mu.Unlock()
		if closed {
			l.err = fmt.Errorf("%w: closed", ErrDisabled)
			return
		}
		c, err := l.start()
		if err != nil {
			l.err = fmt.Errorf("%w: %v", ErrDisabled, err)
			return
		}
		l.mu.Lock()
		l.c = c
		l.mu.Unlock()
	})
	return l.c, l.err
}

// Started reports whether the helper was started.
func (l *Lazy) Started() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c != nil
}

// GetActionResult implements cache.Remote.
func (l *Lazy) GetActionResult(ctx context.Context, action wire.Digest) ([]byte, error) {
	c, err := l.client()
	if err != nil {
		return nil, err
	}
	return c.GetActionResult(ctx, action)
}

// UpdateActionResult implements cache.Remote.
func (l *Lazy) UpdateActionResult(ctx context.Context, action wire.Digest, result []byte) error {
	c, err := l.client()
	if err != nil {
		return err
	}
	return c.UpdateActionResult(ctx, action, result)
}

// FindMissingBlobs implements cache.Remote.
func (l *Lazy) FindMissingBlobs(ctx context.Context, blobs []wire.Digest) ([]wire.Digest, error) {
	c, err := l.client()
	if err != nil {
		return nil, err
	}
	return c.FindMissingBlobs(ctx, blobs)
}

// UploadBlobs implements cache.Remote.
func (l *Lazy) UploadBlobs(ctx context.Context, blobs []wire.BlobSource) error {
	c, err := l.client()
	if err != nil {
		return err
	}
	return c.UploadBlobs(ctx, blobs)
}

// ReadBlob implements cache.Remote.
func (l *Lazy) ReadBlob(ctx context.Context, d wire.Digest, w io.Writer) error {
	c, err := l.client()
	if err != nil {
		return err
	}
	return c.ReadBlob(ctx, d, w)
}

// Close ends the helper if it was started; a later call does not start it.
func (l *Lazy) Close() error {
	l.mu.Lock()
	l.done = true
	l.mu.Unlock()
	l.once.Do(func() { l.err = fmt.Errorf("%w: closed", ErrDisabled) })
	l.mu.Lock()
	c := l.c
	l.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}
