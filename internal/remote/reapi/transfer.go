package reapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/vxrun/vx/internal/remote/wire"
)

func marshal(r *repb.ActionResult) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(r)
}

func unmarshal(b []byte, r *repb.ActionResult) error { return proto.Unmarshal(b, r) }

// Per-blob and per-request overheads counted against the batch limit (the
// digest, the field tags, the instance name).
const (
	blobOverhead    = 128
	requestOverhead = 1 << 10
	streamChunk     = 1 << 20 // ByteStream write chunk
	parallel        = 4       // transfers in flight at once
)

// batchLimit is the largest BatchUpdateBlobs request to send.
func (c *Client) batchLimit(ctx context.Context) (int64, error) {
	caps, err := c.Capabilities(ctx)
	if err != nil {
		return 0, err
	}
	if !caps.SHA256 {
		return 0, &wire.Error{Code: wire.CodeUnimplemented, Message: fmt.Sprintf("the server does not take SHA-256 digests (it takes %v)", caps.DigestFunctions)}
	}
	limit := int64(defaultBatchLimit)
	if caps.MaxBatchBytes > 0 && caps.MaxBatchBytes < limit {
		limit = caps.MaxBatchBytes
	}
	return limit, nil
}

// UploadBlobs uploads every blob not already on the server: small blobs
// in BatchUpdateBlobs requests within the server's limit, larger ones
// through ByteStream. Each file's content is checked against its digest
// as it is read; a mismatch is an error, never an upload.
func (c *Client) UploadBlobs(ctx context.Context, blobs []wire.BlobSource) error {
	limit, err := c.batchLimit(ctx)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var small, large []wire.BlobSource
	for _, b := range blobs {
		if b.Digest.Size == 0 || seen[b.Digest.Hash] {
			continue
		}
		seen[b.Digest.Hash] = true
		if b.Digest.Size+blobOverhead+requestOverhead <= limit {
			small = append(small, b)
		} else {
			large = append(large, b)
		}
	}
	var batches [][]wire.BlobSource
	var cur []wire.BlobSource
	var curSize int64 = requestOverhead
	for _, b := range small {
		if len(cur) > 0 && curSize+b.Digest.Size+blobOverhead > limit {
			batches = append(batches, cur)
			cur, curSize = nil, requestOverhead
		}
		cur = append(cur, b)
		curSize += b.Digest.Size + blobOverhead
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		sem   = make(chan struct{}, parallel)
	)
	run := func(f func() error) {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(); err != nil {
				mu.Lock()
				if first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
	for _, batch := range batches {
		run(func() error { return c.batchUpload(ctx, batch) })
	}
	for _, b := range large {
		run(func() error { return c.streamUpload(ctx, b) })
	}
	wg.Wait()
	return first
}

// readVerified reads a whole local blob and checks its digest.
func readVerified(b wire.BlobSource) ([]byte, error) {
	data, err := os.ReadFile(b.Path)
	if err != nil {
		return nil, &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("cannot read the local blob: %v", err)}
	}
	if int64(len(data)) != b.Digest.Size || hexSum(data) != b.Digest.Hash {
		return nil, localMismatch(b)
	}
	return data, nil
}

func localMismatch(b wire.BlobSource) error {
	return &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("the local blob %s does not match its digest %s/%d; not uploaded", b.Path, b.Digest.Hash, b.Digest.Size)}
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func (c *Client) batchUpload(ctx context.Context, batch []wire.BlobSource) error {
	req := &repb.BatchUpdateBlobsRequest{InstanceName: c.instance, DigestFunction: repb.DigestFunction_SHA256}
	for _, b := range batch {
		data, err := readVerified(b)
		if err != nil {
			return err
		}
		req.Requests = append(req.Requests, &repb.BatchUpdateBlobsRequest_Request{Digest: pbDigest(b.Digest), Data: data})
	}
	resp, err := c.cas.BatchUpdateBlobs(ctx, req)
	if err != nil {
		return c.rpcError(err)
	}
	for _, r := range resp.GetResponses() {
		if st := r.GetStatus(); st != nil && codes.Code(st.GetCode()) != codes.OK {
			return c.rpcError(status.ErrorProto(st))
		}
	}
	return nil
}

// streamUpload writes one blob through ByteStream, hashing it as it goes
// and holding back the last chunk (the one that finishes the write) until
// the whole file matched its digest.
func (c *Client) streamUpload(ctx context.Context, b wire.BlobSource) error {
	f, err := os.Open(b.Path)
	if err != nil {
		return &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("cannot read the local blob: %v", err)}
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // on an early return, abandons the write without finishing it
	stream, err := c.bs.Write(ctx)
	if err != nil {
		return c.rpcError(err)
	}
	name := c.resource("uploads", newUUID(), "blobs", b.Digest.Hash, strconv.FormatInt(b.Digest.Size, 10))
	h := sha256.New()
	var off int64
	buf := make([]byte, streamChunk)
	var pending []byte // read but not yet sent
	first := true
	send := func(data []byte, last bool) error {
		req := &bspb.WriteRequest{WriteOffset: off, Data: data, FinishWrite: last}
		if first {
			req.ResourceName = name
			first = false
		}
		if err := stream.Send(req); err != nil {
			if errors.Is(err, io.EOF) {
				return io.EOF // the server ended the stream: its status comes from CloseAndRecv
			}
			return c.rpcError(err)
		}
		off += int64(len(data))
		return nil
	}
	for {
		n, rerr := io.ReadFull(f, buf)
		if n > 0 {
			h.Write(buf[:n])
			if pending != nil {
				if err := send(pending, false); err != nil {
					if err == io.EOF {
						break
					}
					return err
				}
			}
			pending = append(pending[:0:0], buf[:n]...)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			if off+int64(len(pending)) != b.Digest.Size || hex.EncodeToString(h.Sum(nil)) != b.Digest.Hash {
				return localMismatch(b)
			}
			if err := send(pending, true); err != nil && err != io.EOF {
				return err
			}
			break
		}
		if rerr != nil {
			return &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("cannot read the local blob: %v", rerr)}
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return c.rpcError(err)
	}
	// A server that already holds the blob may end the write early and
	// report the full size (REAPI), or -1 when it compressed it.
	if cs := resp.GetCommittedSize(); cs != b.Digest.Size && cs != -1 {
		return &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("the server committed %d of %d bytes of %s", cs, b.Digest.Size, b.Digest.Hash)}
	}
	return nil
}

// ReadBlob streams the blob to w through ByteStream. The caller verifies
// the digest; a server sending more than the digest's size is an error.
func (c *Client) ReadBlob(ctx context.Context, d wire.Digest, w io.Writer) error {
	if d.Size == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.bs.Read(ctx, &bspb.ReadRequest{ResourceName: c.resource("blobs", d.Hash, strconv.FormatInt(d.Size, 10))})
	if err != nil {
		return c.rpcError(err)
	}
	var got int64
	for {
		resp, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return c.rpcError(err)
		}
		data := resp.GetData()
		got += int64(len(data))
		if got > d.Size {
			return &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("the server sent more than the %d bytes of %s", d.Size, d.Hash)}
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if got != d.Size {
		return &wire.Error{Code: wire.CodeInternal, Message: fmt.Sprintf("the server sent %d of the %d bytes of %s", got, d.Size, d.Hash)}
	}
	return nil
}

var _ wire.Backend = (*Client)(nil)
