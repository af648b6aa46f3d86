package reapi

import (
	"strings"
	"testing"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func testResult() *repb.ActionResult {
	return &repb.ActionResult{
		OutputFiles: []*repb.OutputFile{
			{Path: "dist/b.js", Digest: &repb.Digest{Hash: strings.Repeat("b", 64), SizeBytes: 2},
				NodeProperties: &repb.NodeProperties{UnixMode: wrapperspb.UInt32(0o644)}},
			{Path: "dist/a.sh", Digest: &repb.Digest{Hash: strings.Repeat("a", 64), SizeBytes: 1}, IsExecutable: true},
		},
		OutputSymlinks: []*repb.OutputSymlink{{Path: "dist/link", Target: "a.sh"}},
		StdoutDigest:   &repb.Digest{Hash: strings.Repeat("c", 64), SizeBytes: 3},
	}
}

func TestSignVerify(t *testing.T) {
	key := []byte("k1")
	action := &repb.Digest{Hash: strings.Repeat("d", 64), SizeBytes: 140}
	signed := testResult()
	if err := sign(key, action, signed); err != nil {
		t.Fatal(err)
	}
	if why := verify(key, action, signed); why != "" {
		t.Fatalf("fresh signature: %s", why)
	}
	// Signing twice keeps one signature.
	sign(key, action, signed)
	if n := len(signed.ExecutionMetadata.AuxiliaryMetadata); n != 1 {
		t.Errorf("%d signatures after signing twice", n)
	}

	for _, tc := range []struct {
		name   string
		change func(r *repb.ActionResult, a *repb.Digest)
		valid  bool
		why    string
	}{
		{"server adds a worker and timestamps", func(r *repb.ActionResult, a *repb.Digest) {
			r.ExecutionMetadata.Worker = "127.0.0.1:5555"
			r.ExecutionMetadata.QueuedTimestamp = timestamppb.Now()
		}, true, ""},
		{"outputs listed in another order", func(r *repb.ActionResult, a *repb.Digest) {
			r.OutputFiles[0], r.OutputFiles[1] = r.OutputFiles[1], r.OutputFiles[0]
		}, true, ""},
		{"stdout inlined instead of by digest", nil, true, ""}, // covered below with real bytes
		{"a file's content swapped", func(r *repb.ActionResult, a *repb.Digest) {
			r.OutputFiles[0].Digest.Hash = strings.Repeat("e", 64)
		}, false, "does not match"},
		{"executable bit flipped", func(r *repb.ActionResult, a *repb.Digest) { r.OutputFiles[1].IsExecutable = false }, false, "does not match"},
		{"file mode changed", func(r *repb.ActionResult, a *repb.Digest) {
			r.OutputFiles[0].NodeProperties.UnixMode = wrapperspb.UInt32(0o777)
		}, false, "does not match"},
		{"file mode added", func(r *repb.ActionResult, a *repb.Digest) {
			r.OutputFiles[1].NodeProperties = &repb.NodeProperties{UnixMode: wrapperspb.UInt32(0o4755)}
		}, false, "does not match"},
		{"file mode removed", func(r *repb.ActionResult, a *repb.Digest) { r.OutputFiles[0].NodeProperties = nil }, false, "does not match"},
		{"symlink retargeted", func(r *repb.ActionResult, a *repb.Digest) { r.OutputSymlinks[0].Target = "/etc/passwd" }, false, "does not match"},
		{"file added", func(r *repb.ActionResult, a *repb.Digest) {
			r.OutputFiles = append(r.OutputFiles, &repb.OutputFile{Path: "dist/evil.js", Digest: &repb.Digest{Hash: strings.Repeat("f", 64), SizeBytes: 9}})
		}, false, "does not match"},
		{"exit code changed", func(r *repb.ActionResult, a *repb.Digest) { r.ExitCode = 1 }, false, "does not match"},
		{"log changed", func(r *repb.ActionResult, a *repb.Digest) { r.StdoutDigest.SizeBytes = 4 }, false, "does not match"},
		{"moved to another action", func(r *repb.ActionResult, a *repb.Digest) { a.Hash = strings.Repeat("0", 64) }, false, "does not match"},
		{"signature removed", func(r *repb.ActionResult, a *repb.Digest) { r.ExecutionMetadata.AuxiliaryMetadata = nil }, false, "not signed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.change == nil {
				return
			}
			r := proto.Clone(signed).(*repb.ActionResult)
			a := proto.Clone(action).(*repb.Digest)
			tc.change(r, a)
			why := verify(key, a, r)
			if tc.valid && why != "" {
				t.Fatalf("rejected: %s", why)
			}
			if !tc.valid && !strings.Contains(why, tc.why) {
				t.Fatalf("verify = %q, want it to say %q", why, tc.why)
			}
		})
	}
	if why := verify([]byte("k2"), action, signed); !strings.Contains(why, "another key") {
		t.Errorf("another key: %q", why)
	}
}

func TestSignatureCoversInlinedLog(t *testing.T) {
	key := []byte("k")
	action := &repb.Digest{Hash: strings.Repeat("d", 64), SizeBytes: 1}
	log := []byte("hello\n")
	r := &repb.ActionResult{StdoutRaw: log}
	sign(key, action, r)
	byDigest := proto.Clone(r).(*repb.ActionResult)
	byDigest.StdoutRaw = nil
	byDigest.StdoutDigest = &repb.Digest{Hash: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", SizeBytes: 6}
	if why := verify(key, action, byDigest); why != "" {
		t.Fatalf("the server moved the inlined log to the CAS and the signature broke: %s", why)
	}
}

// TestSignatureV1IsNone: a signature of vx's first format, which did not
// cover file modes, counts as no signature, and signing again replaces it.
func TestSignatureV1IsNone(t *testing.T) {
	key := []byte("k")
	action := &repb.Digest{Hash: strings.Repeat("d", 64), SizeBytes: 1}
	r := testResult()
	v, _ := proto.Marshal(wrapperspb.String(signaturePrefixV1 + strings.Repeat("0", 64)))
	r.ExecutionMetadata = &repb.ExecutedActionMetadata{AuxiliaryMetadata: []*anypb.Any{{TypeUrl: signatureType, Value: v}}}
	if why := verify(key, action, r); !strings.Contains(why, "older vx") {
		t.Errorf("verify of a v1 signature = %q, want a miss naming the older format", why)
	}
	sign(key, action, r)
	if n := len(r.ExecutionMetadata.AuxiliaryMetadata); n != 1 || verify(key, action, r) != "" {
		t.Errorf("after signing: %d signatures, verify = %q", n, verify(key, action, r))
	}
}
