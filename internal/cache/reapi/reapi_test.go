package reapi

import (
	"testing"
	"time"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
)

// The encodings are checked against the generated REAPI v2 protos: what vx
// writes, the reference decoder reads field for field, and what the
// reference encoder writes, vx reads. The protos are linked into this test
// only, never into vx.
func TestCommandActionMatchReference(t *testing.T) {
	cmd := &Command{
		Arguments:        []string{"sh", "-c", "node build.mjs", ""},
		Environment:      []Property{{"A", "sha256:1"}, {"B", ""}},
		WorkingDirectory: "packages/ui",
		OutputPaths:      []string{"!dist/**/*.map", "dist/**"},
	}
	var got repb.Command
	if err := proto.Unmarshal(cmd.Marshal(), &got); err != nil {
		t.Fatal(err)
	}
	want := &repb.Command{
		Arguments: cmd.Arguments,
		EnvironmentVariables: []*repb.Command_EnvironmentVariable{
			{Name: "A", Value: "sha256:1"}, {Name: "B", Value: ""},
		},
		WorkingDirectory: "packages/ui",
		OutputPaths:      cmd.OutputPaths,
	}
	if !proto.Equal(want, &got) {
		t.Errorf("Command decoded by the reference:\n got %v\nwant %v", &got, want)
	}
	// Same bytes as the reference encoder in deterministic mode.
	ref, err := proto.MarshalOptions{Deterministic: true}.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if string(ref) != string(cmd.Marshal()) {
		t.Errorf("Command bytes differ from the reference encoder's:\n got %x\nwant %x", cmd.Marshal(), ref)
	}

	a := &Action{
		CommandDigest:   DigestOf([]byte("c")),
		InputRootDigest: DigestOf(nil),
		Salt:            []byte("vx-cache-1"),
		Platform:        []Property{{"ISA", "amd64"}, {"OSFamily", "linux"}},
	}
	wantA := &repb.Action{
		CommandDigest:   &repb.Digest{Hash: a.CommandDigest.Hash, SizeBytes: 1},
		InputRootDigest: &repb.Digest{Hash: a.InputRootDigest.Hash},
		Salt:            a.Salt,
		Platform: &repb.Platform{Properties: []*repb.Platform_Property{
			{Name: "ISA", Value: "amd64"}, {Name: "OSFamily", Value: "linux"},
		}},
	}
	ref, err = proto.MarshalOptions{Deterministic: true}.Marshal(wantA)
	if err != nil {
		t.Fatal(err)
	}
	if string(ref) != string(a.Marshal()) {
		t.Errorf("Action bytes differ from the reference encoder's:\n got %x\nwant %x", a.Marshal(), ref)
	}
	back, err := UnmarshalAction(ref)
	if err != nil {
		t.Fatal(err)
	}
	if back.CommandDigest != a.CommandDigest || back.InputRootDigest != a.InputRootDigest || string(back.Salt) != string(a.Salt) {
		t.Errorf("UnmarshalAction = %+v, want %+v", back, a)
	}
}

func TestActionResultMatchesReference(t *testing.T) {
	start := time.Unix(1700000000, 123456789)
	r := &ActionResult{
		OutputFiles: []OutputFile{
			{Path: "dist/index.js", Digest: DigestOf([]byte("x")), Mode: 0o644},
			{Path: "dist/cli", Digest: DigestOf([]byte("#!")), Executable: true, Mode: 0o755},
			{Path: "dist/empty", Digest: DigestOf(nil)},
		},
		OutputSymlinks: []OutputSymlink{{Path: "dist/latest", Target: "index.js"}},
		ExitCode:       0,
		StdoutDigest:   DigestOf([]byte("out\n")),
		StderrDigest:   DigestOf(nil),
		Start:          start,
		End:            start.Add(1500 * time.Millisecond),
	}
	var got repb.ActionResult
	if err := proto.Unmarshal(r.Marshal(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.OutputFiles) != 3 || got.OutputFiles[1].Path != "dist/cli" || !got.OutputFiles[1].IsExecutable ||
		got.OutputFiles[1].NodeProperties.GetUnixMode().GetValue() != 0o755 ||
		got.OutputFiles[0].Digest.Hash != r.OutputFiles[0].Digest.Hash || got.OutputFiles[0].Digest.SizeBytes != 1 ||
		got.OutputFiles[2].Digest.GetHash() != DigestOf(nil).Hash {
		t.Errorf("output files decoded by the reference: %v", got.OutputFiles)
	}
	if len(got.OutputSymlinks) != 1 || got.OutputSymlinks[0].Target != "index.js" {
		t.Errorf("output symlinks decoded by the reference: %v", got.OutputSymlinks)
	}
	if got.StdoutDigest.GetSizeBytes() != 4 || got.StderrDigest.GetHash() != DigestOf(nil).Hash {
		t.Errorf("stdout/stderr digests decoded by the reference: %v %v", got.StdoutDigest, got.StderrDigest)
	}
	md := got.ExecutionMetadata
	if !md.ExecutionStartTimestamp.AsTime().Equal(r.Start) || !md.ExecutionCompletedTimestamp.AsTime().Equal(r.End) {
		t.Errorf("execution metadata decoded by the reference: %v", md)
	}

	// A result written by the reference encoder, with a negative exit
	// code and a field vx does not know, reads back.
	got.ExitCode = -1
	got.ExecutionMetadata.Worker = "bazel-remote"
	ref, err := proto.Marshal(&got)
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalActionResult(ref)
	if err != nil {
		t.Fatal(err)
	}
	r.ExitCode = -1
	if string(back.Marshal()) != string(r.Marshal()) {
		t.Errorf("round trip through the reference changed the result:\n got %+v\nwant %+v", back, r)
	}
}

func TestUnmarshalActionResultRejects(t *testing.T) {
	good := (&ActionResult{OutputFiles: []OutputFile{{Path: "a", Digest: DigestOf([]byte("a"))}}}).Marshal()
	dirs, _ := proto.Marshal(&repb.ActionResult{OutputDirectories: []*repb.OutputDirectory{{Path: "d", TreeDigest: &repb.Digest{Hash: DigestOf(nil).Hash}}}})
	sha1, _ := proto.Marshal(&repb.ActionResult{StdoutDigest: &repb.Digest{Hash: "da39a3ee5e6b4b0d3255bfef95601890afd80709"}})
	inline, _ := proto.Marshal(&repb.ActionResult{StdoutRaw: []byte("hi")})
	for name, msg := range map[string][]byte{
		"truncated inside a field": good[:len(good)-3],
		"output directories":       dirs,
		"sha-1 digest":             sha1,
		"inline stdout":            inline,
		"garbage":                  []byte{0xff, 0xff, 0xff},
	} {
		if _, err := UnmarshalActionResult(msg); err == nil {
			t.Errorf("%s: UnmarshalActionResult succeeded, want an error", name)
		}
	}
}
