package reapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/remote/wire"
	"github.com/vxrun/vx/internal/testdir"
)

// fakeServer is an in-process REAPI server for the faults a real server
// cannot be made to show: a small batch limit, no SHA-256, a blob served
// with the wrong length.
type fakeServer struct {
	repb.UnimplementedCapabilitiesServer
	repb.UnimplementedContentAddressableStorageServer
	repb.UnimplementedActionCacheServer
	bspb.UnimplementedByteStreamServer

	maxBatch  int64
	digestFns []repb.DigestFunction_Value
	serve     []byte // what ByteStream Read sends, whatever is asked

	mu      sync.Mutex
	batches [][]string // hashes of each BatchUpdateBlobs request
	streams []string   // resource names written through ByteStream
	blobs   map[string][]byte
	headers []string
}

func (f *fakeServer) GetCapabilities(ctx context.Context, r *repb.GetCapabilitiesRequest) (*repb.ServerCapabilities, error) {
	f.note(ctx)
	return &repb.ServerCapabilities{CacheCapabilities: &repb.CacheCapabilities{DigestFunctions: f.digestFns,
		MaxBatchTotalSizeBytes: f.maxBatch, ActionCacheUpdateCapabilities: &repb.ActionCacheUpdateCapabilities{UpdateEnabled: true}}}, nil
}

func (f *fakeServer) note(ctx context.Context) {
	md, _ := metadata.FromIncomingContext(ctx)
	f.mu.Lock()
	f.headers = append(f.headers, md.Get("authorization")...)
	f.mu.Unlock()
}

func (f *fakeServer) BatchUpdateBlobs(ctx context.Context, r *repb.BatchUpdateBlobsRequest) (*repb.BatchUpdateBlobsResponse, error) {
	f.note(ctx)
	var hs []string
	resp := &repb.BatchUpdateBlobsResponse{}
	f.mu.Lock()
	for _, b := range r.Requests {
		hs = append(hs, b.Digest.Hash)
		f.blobs[b.Digest.Hash] = b.Data
		resp.Responses = append(resp.Responses, &repb.BatchUpdateBlobsResponse_Response{Digest: b.Digest})
	}
	f.batches = append(f.batches, hs)
	f.mu.Unlock()
	return resp, nil
}

func (f *fakeServer) Write(s bspb.ByteStream_WriteServer) error {
	var name string
	var buf bytes.Buffer
	for {
		req, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if req.ResourceName != "" {
			name = req.ResourceName
		}
		buf.Write(req.Data)
		if req.FinishWrite {
			break
		}
	}
	parts := strings.Split(name, "/")
	f.mu.Lock()
	f.streams = append(f.streams, name)
	f.blobs[parts[len(parts)-2]] = buf.Bytes()
	f.mu.Unlock()
	return s.SendAndClose(&bspb.WriteResponse{CommittedSize: int64(buf.Len())})
}

func (f *fakeServer) Read(r *bspb.ReadRequest, s bspb.ByteStream_ReadServer) error {
	return s.Send(&bspb.ReadResponse{Data: f.serve})
}

func (f *fakeServer) FindMissingBlobs(ctx context.Context, r *repb.FindMissingBlobsRequest) (*repb.FindMissingBlobsResponse, error) {
	resp := &repb.FindMissingBlobsResponse{}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range r.BlobDigests {
		if _, ok := f.blobs[d.Hash]; !ok {
			resp.MissingBlobDigests = append(resp.MissingBlobDigests, d)
		}
	}
	return resp, nil
}

func (f *fakeServer) GetActionResult(ctx context.Context, r *repb.GetActionResultRequest) (*repb.ActionResult, error) {
	// An entry naming a blob the server does not hold, as a server without
	// bazel-remote's dependency check may hand out.
	return &repb.ActionResult{OutputFiles: []*repb.OutputFile{{Path: "dist/x", Digest: &repb.Digest{Hash: strings.Repeat("9", 64), SizeBytes: 3}}}}, nil
}

func startFake(t *testing.T, f *fakeServer, header string) *Client {
	t.Helper()
	if f.blobs == nil {
		f.blobs = map[string][]byte{}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	repb.RegisterCapabilitiesServer(s, f)
	repb.RegisterContentAddressableStorageServer(s, f)
	repb.RegisterActionCacheServer(s, f)
	bspb.RegisterByteStreamServer(s, f)
	go s.Serve(l)
	t.Cleanup(s.Stop)
	c, err := Dial(&wire.Hello{Version: wire.Version, URL: "grpc://" + l.Addr().String(), Instance: "main", Header: header})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func source(t *testing.T, data []byte) cache.BlobSource {
	sum := sha256.Sum256(data)
	d := cache.Digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	p := filepath.Join(testdir.New(t), d.Hash)
	os.WriteFile(p, data, 0o644)
	return cache.BlobSource{Digest: d, Path: p}
}

// TestUploadWithinBatchLimit: with a server limit of 2 KiB, small blobs go
// in batches that each fit, and a blob above it through ByteStream under
// the instance's upload resource name.
func TestUploadWithinBatchLimit(t *testing.T) {
	f := &fakeServer{maxBatch: 2048, digestFns: []repb.DigestFunction_Value{repb.DigestFunction_SHA256}}
	c := startFake(t, f, "Authorization=Bearer t0k3n")
	var srcs []cache.BlobSource
	for i := 0; i < 6; i++ {
		srcs = append(srcs, source(t, bytes.Repeat([]byte{byte('a' + i)}, 500)))
	}
	big := source(t, bytes.Repeat([]byte("z"), 3000))
	srcs = append(srcs, big, srcs[0]) // and a duplicate
	if err := c.UploadBlobs(context.Background(), srcs); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, b := range f.batches {
		if size := len(b) * (500 + blobOverhead); size+requestOverhead > 2048 {
			t.Errorf("a batch of %d blobs exceeds the server's 2 KiB limit", len(b))
		}
		total += len(b)
	}
	if total != 6 {
		t.Errorf("%d blobs batched, want the 6 distinct small ones", total)
	}
	if len(f.streams) != 1 || !strings.HasPrefix(f.streams[0], "main/uploads/") || !strings.HasSuffix(f.streams[0], "/blobs/"+big.Digest.Hash+"/3000") {
		t.Errorf("ByteStream writes: %q", f.streams)
	}
	if got := f.blobs[big.Digest.Hash]; len(got) != 3000 {
		t.Errorf("large blob arrived with %d bytes", len(got))
	}
	for _, h := range f.headers {
		if h != "Bearer t0k3n" {
			t.Errorf("authorization header %q", h)
		}
	}
	if len(f.headers) == 0 {
		t.Error("the header was not sent")
	}
}

// TestUploadRefusesCorruptLocalBlob: a local file that does not match its
// digest is never uploaded.
func TestUploadRefusesCorruptLocalBlob(t *testing.T) {
	f := &fakeServer{digestFns: []repb.DigestFunction_Value{repb.DigestFunction_SHA256}}
	c := startFake(t, f, "")
	small, big := source(t, []byte("small")), source(t, bytes.Repeat([]byte("b"), 5<<20))
	os.WriteFile(small.Path, []byte("SMALL"), 0o644)
	os.WriteFile(big.Path, bytes.Repeat([]byte("c"), 5<<20), 0o644)
	for _, s := range []cache.BlobSource{small, big} {
		err := c.UploadBlobs(context.Background(), []cache.BlobSource{s})
		if err == nil || !strings.Contains(err.Error(), "does not match its digest") {
			t.Errorf("upload of a corrupt %d-byte blob: %v", s.Digest.Size, err)
		}
	}
	if len(f.blobs) != 0 {
		t.Errorf("the server received %d blobs", len(f.blobs))
	}
}

func TestNoSHA256(t *testing.T) {
	f := &fakeServer{digestFns: []repb.DigestFunction_Value{repb.DigestFunction_BLAKE3}}
	c := startFake(t, f, "")
	err := c.UploadBlobs(context.Background(), []cache.BlobSource{source(t, []byte("x"))})
	var we *wire.Error
	if !errors.As(err, &we) || we.Code != wire.CodeUnimplemented || !strings.Contains(we.Message, "SHA-256") {
		t.Fatalf("err = %v", err)
	}
}

// TestReadWrongLength: a server sending more or fewer bytes than the digest
// says is an error, not a blob.
func TestReadWrongLength(t *testing.T) {
	for _, n := range []int{3, 5} {
		f := &fakeServer{serve: bytes.Repeat([]byte("x"), n)}
		c := startFake(t, f, "")
		var buf bytes.Buffer
		if err := c.ReadBlob(context.Background(), cache.Digest{Hash: strings.Repeat("1", 64), Size: 4}, &buf); err == nil {
			t.Errorf("a %d-byte answer for a 4-byte blob was accepted", n)
		}
	}
}

// TestResultWithMissingBlobs: a result naming a blob the server does not
// hold is not found.
func TestResultWithMissingBlobs(t *testing.T) {
	c := startFake(t, &fakeServer{}, "")
	_, err := c.GetActionResult(context.Background(), cache.Digest{Hash: strings.Repeat("a", 64), Size: 10})
	if !errors.Is(err, cache.ErrNotFound) || !strings.Contains(err.Error(), "no longer holds") {
		t.Fatalf("err = %v", err)
	}
}
