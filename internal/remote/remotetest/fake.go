package remotetest

import (
	"bytes"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	bspb "google.golang.org/genproto/googleapis/bytestream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Fake is an in-process REAPI v2 cache (Capabilities, ActionCache,
// ContentAddressableStorage, ByteStream) for the faults a real server
// cannot be made to show on demand: latency, calls that never answer,
// blobs that stream slowly or stall. Its knobs may be changed while it
// serves; the zero values serve like a healthy, fast server.
type Fake struct {
	repb.UnimplementedCapabilitiesServer
	repb.UnimplementedContentAddressableStorageServer
	repb.UnimplementedActionCacheServer
	bspb.UnimplementedByteStreamServer

	URL string // grpc://127.0.0.1:port

	mu      sync.Mutex
	ac      map[string][]byte // action hash → serialized ActionResult
	cas     map[string][]byte
	latency time.Duration // before every answer
	hang    bool          // calls never answer (until the caller gives up)
	chunk   int           // ByteStream Read: bytes per message (0: all at once)
	every   time.Duration // ByteStream Read: pause between messages
	stallAt int64         // ByteStream Read: stop sending after this many bytes and wait (-1: never)
	reads   chan string   // a ByteStream Read started (its resource name); nil: not told
	counts  map[string]int
}

// StartFake starts a Fake on a free loopback port; it stops when the test
// ends.
func StartFake(t testing.TB) *Fake {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &Fake{URL: "grpc://" + l.Addr().String(), ac: map[string][]byte{}, cas: map[string][]byte{}, stallAt: -1,
		counts: map[string]int{}}
	s := grpc.NewServer()
	repb.RegisterCapabilitiesServer(s, f)
	repb.RegisterContentAddressableStorageServer(s, f)
	repb.RegisterActionCacheServer(s, f)
	bspb.RegisterByteStreamServer(s, f)
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return f
}

// SetLatency delays every answer by d.
func (f *Fake) SetLatency(d time.Duration) { f.mu.Lock(); f.latency = d; f.mu.Unlock() }

// SetHang makes every call wait until its caller gives up.
func (f *Fake) SetHang(on bool) { f.mu.Lock(); f.hang = on; f.mu.Unlock() }

// SetStream makes ByteStream reads send chunk bytes per message with a
// pause of every between messages, and stop after stallAt bytes, waiting
// for the caller to give up (stallAt < 0: never).
func (f *Fake) SetStream(chunk int, every time.Duration, stallAt int64) {
	f.mu.Lock()
	f.chunk, f.every, f.stallAt = chunk, every, stallAt
	f.mu.Unlock()
}

// NotifyReads returns a channel that receives the resource name of every
// ByteStream read as it starts.
func (f *Fake) NotifyReads() <-chan string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads = make(chan string, 64)
	return f.reads
}

// Count returns how many calls of the named method (GetActionResult,
// FindMissingBlobs, Read...) the server received.
func (f *Fake) Count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.counts[method]
}

// Entries returns the number of action results stored.
func (f *Fake) Entries() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.ac)
}

// wait applies the latency and the hang to a call.
func (f *Fake) wait(ctx context.Context, method string) error {
	f.mu.Lock()
	f.counts[method]++
	latency, hang := f.latency, f.hang
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	}
	select {
	case <-time.After(latency):
		return nil
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	}
}

func (f *Fake) GetCapabilities(ctx context.Context, r *repb.GetCapabilitiesRequest) (*repb.ServerCapabilities, error) {
	if err := f.wait(ctx, "GetCapabilities"); err != nil {
		return nil, err
	}
	return &repb.ServerCapabilities{CacheCapabilities: &repb.CacheCapabilities{
		DigestFunctions:               []repb.DigestFunction_Value{repb.DigestFunction_SHA256},
		MaxBatchTotalSizeBytes:        4 << 20,
		ActionCacheUpdateCapabilities: &repb.ActionCacheUpdateCapabilities{UpdateEnabled: true},
	}}, nil
}

func (f *Fake) GetActionResult(ctx context.Context, r *repb.GetActionResultRequest) (*repb.ActionResult, error) {
	if err := f.wait(ctx, "GetActionResult"); err != nil {
		return nil, err
	}
	f.mu.Lock()
	b, ok := f.ac[r.GetActionDigest().GetHash()]
	f.mu.Unlock()
	if !ok {
		return nil, status.Error(codes.NotFound, "no such action")
	}
	res := &repb.ActionResult{}
	if err := proto.Unmarshal(b, res); err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return res, nil
}

func (f *Fake) UpdateActionResult(ctx context.Context, r *repb.UpdateActionResultRequest) (*repb.ActionResult, error) {
	if err := f.wait(ctx, "UpdateActionResult"); err != nil {
		return nil, err
	}
	b, err := proto.Marshal(r.GetActionResult())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	f.mu.Lock()
	f.ac[r.GetActionDigest().GetHash()] = b
	f.mu.Unlock()
	return r.GetActionResult(), nil
}

func (f *Fake) FindMissingBlobs(ctx context.Context, r *repb.FindMissingBlobsRequest) (*repb.FindMissingBlobsResponse, error) {
	if err := f.wait(ctx, "FindMissingBlobs"); err != nil {
		return nil, err
	}
	resp := &repb.FindMissingBlobsResponse{}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, d := range r.GetBlobDigests() {
		if _, ok := f.cas[d.GetHash()]; !ok {
			resp.MissingBlobDigests = append(resp.MissingBlobDigests, d)
		}
	}
	return resp, nil
}

func (f *Fake) BatchUpdateBlobs(ctx context.Context, r *repb.BatchUpdateBlobsRequest) (*repb.BatchUpdateBlobsResponse, error) {
	if err := f.wait(ctx, "BatchUpdateBlobs"); err != nil {
		return nil, err
	}
	resp := &repb.BatchUpdateBlobsResponse{}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range r.GetRequests() {
		f.cas[b.GetDigest().GetHash()] = b.GetData()
		resp.Responses = append(resp.Responses, &repb.BatchUpdateBlobsResponse_Response{Digest: b.GetDigest()})
	}
	return resp, nil
}

func (f *Fake) Write(s bspb.ByteStream_WriteServer) error {
	if err := f.wait(s.Context(), "Write"); err != nil {
		return err
	}
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
		if req.GetResourceName() != "" {
			name = req.GetResourceName()
		}
		buf.Write(req.GetData())
		if req.GetFinishWrite() {
			break
		}
	}
	parts := strings.Split(name, "/")
	if len(parts) < 2 {
		return status.Error(codes.InvalidArgument, "bad resource name")
	}
	f.mu.Lock()
	f.cas[parts[len(parts)-2]] = buf.Bytes()
	f.mu.Unlock()
	return s.SendAndClose(&bspb.WriteResponse{CommittedSize: int64(buf.Len())})
}

// Read streams a blob as SetStream says.
func (f *Fake) Read(r *bspb.ReadRequest, s bspb.ByteStream_ReadServer) error {
	ctx := s.Context()
	f.mu.Lock()
	if f.reads != nil {
		select {
		case f.reads <- r.GetResourceName():
		default:
		}
	}
	f.mu.Unlock()
	if err := f.wait(ctx, "Read"); err != nil {
		return err
	}
	parts := strings.Split(r.GetResourceName(), "/")
	if len(parts) < 2 {
		return status.Error(codes.InvalidArgument, "bad resource name")
	}
	f.mu.Lock()
	data, ok := f.cas[parts[len(parts)-2]]
	chunk, every, stallAt := f.chunk, f.every, f.stallAt
	f.mu.Unlock()
	if !ok {
		return status.Error(codes.NotFound, "no such blob")
	}
	if chunk <= 0 {
		chunk = len(data)
	}
	var sent int64
	for len(data) > 0 {
		if stallAt >= 0 && sent >= stallAt {
			<-ctx.Done()
			return status.FromContextError(ctx.Err()).Err()
		}
		n := min(chunk, len(data))
		if stallAt >= 0 {
			n = min(n, int(stallAt-sent))
		}
		if err := s.Send(&bspb.ReadResponse{Data: data[:n]}); err != nil {
			return err
		}
		data, sent = data[n:], sent+int64(n)
		if every > 0 && len(data) > 0 {
			select {
			case <-time.After(every):
			case <-ctx.Done():
				return status.FromContextError(ctx.Err()).Err()
			}
		}
	}
	return nil
}
