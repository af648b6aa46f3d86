package reapi

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The cache encodes its REAPI messages by hand (reapi.go, wire.go), so that
// vx links no protobuf runtime. These fuzz tests hold that encoding to
// protobuf-go's, which the tests alone import (google.golang.org/protobuf
// is in go.mod for vx-remote): the bytes vx writes are the bytes
// protobuf-go writes for the same message (deterministic marshalling, which
// orders fields by number), and each side reads the other's. Run briefly:
//
//	go test ./internal/cache/reapi -run '^$' -fuzz FuzzCommandProto -fuzztime 30s

var marshal = proto.MarshalOptions{Deterministic: true}

// allUTF8 reports whether every one of ss is valid UTF-8 (each alone: two
// halves of a character are valid together).
func allUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// split cuts a fuzz string into a list, on "|".
func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

func FuzzCommandProto(f *testing.F) {
	f.Add("sh|-c|tsc -b", "NODE_ENV=production|PATH=/usr/bin", "packages/web", "dist|out/a.js")
	f.Add("", "", "", "")
	f.Add("||", "=|A=", ".", "|")
	f.Add("node\x00x|ü", "K=v=w", "a/b c", "ü/ö")
	f.Fuzz(func(t *testing.T, args, env, dir, outputs string) {
		if !allUTF8(args, env, dir, outputs) {
			t.Skip("protobuf-go refuses a string field that is not UTF-8")
		}
		c := &Command{Arguments: split(args), WorkingDirectory: dir, OutputPaths: split(outputs)}
		pb := &repb.Command{Arguments: c.Arguments, WorkingDirectory: dir, OutputPaths: c.OutputPaths}
		for _, kv := range split(env) {
			name, value, _ := strings.Cut(kv, "=")
			c.Environment = append(c.Environment, Property{Name: name, Value: value})
			pb.EnvironmentVariables = append(pb.EnvironmentVariables, &repb.Command_EnvironmentVariable{Name: name, Value: value})
		}
		ours := c.Marshal()
		want, err := marshal.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, want) {
			t.Fatalf("Command %+v:\nvx:          %x\nprotobuf-go: %x", c, ours, want)
		}
		back, err := UnmarshalCommand(want)
		if err != nil {
			t.Fatalf("UnmarshalCommand of protobuf-go's bytes: %v", err)
		}
		if !bytes.Equal(back.Marshal(), want) {
			t.Errorf("UnmarshalCommand read %+v from protobuf-go's bytes of %+v", back, c)
		}
	})
}

func FuzzActionProto(f *testing.F) {
	h := strings.Repeat("ab", 32)
	f.Add(h, int64(120), h, int64(0), []byte("salt"), "OSFamily=linux|vx=1")
	f.Add("", int64(0), "", int64(0), []byte(nil), "")
	f.Add(h, int64(-1), "x", int64(1<<40), []byte{0}, "=")
	f.Fuzz(func(t *testing.T, cmdHash string, cmdSize int64, rootHash string, rootSize int64, salt []byte, platform string) {
		if !allUTF8(cmdHash, rootHash, platform) {
			t.Skip("protobuf-go refuses a string field that is not UTF-8")
		}
		a := &Action{CommandDigest: Digest{Hash: cmdHash, Size: cmdSize}, InputRootDigest: Digest{Hash: rootHash, Size: rootSize}, Salt: salt}
		pb := &repb.Action{CommandDigest: &repb.Digest{Hash: cmdHash, SizeBytes: cmdSize},
			InputRootDigest: &repb.Digest{Hash: rootHash, SizeBytes: rootSize}, Salt: salt}
		if props := split(platform); len(props) > 0 {
			pb.Platform = &repb.Platform{}
			for _, kv := range props {
				name, value, _ := strings.Cut(kv, "=")
				a.Platform = append(a.Platform, Property{Name: name, Value: value})
				pb.Platform.Properties = append(pb.Platform.Properties, &repb.Platform_Property{Name: name, Value: value})
			}
		}
		ours := a.Marshal()
		want, err := marshal.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, want) {
			t.Fatalf("Action %+v:\nvx:          %x\nprotobuf-go: %x", a, ours, want)
		}
		back, err := UnmarshalAction(want)
		if !ValidDigest(a.CommandDigest) || !ValidDigest(a.InputRootDigest) {
			// vx reads only SHA-256 digests, where protobuf-go takes any.
			if err == nil {
				t.Errorf("UnmarshalAction accepted the digests of %+v", a)
			}
			return
		}
		if err != nil {
			t.Fatalf("UnmarshalAction of protobuf-go's bytes: %v", err)
		}
		if !bytes.Equal(back.Marshal(), want) || len(back.Other) > 0 {
			t.Errorf("UnmarshalAction read %+v from protobuf-go's bytes of %+v", back, a)
		}
	})
}

// actionResult builds the same ActionResult for vx and for protobuf-go
// from fuzz values: files "path:content:size:exec:mode" and symlinks
// "path>target", separated by "|"; digests are the SHA-256 of the content
// given, so that vx reads them back.
func actionResult(files, symlinks string, exit int32, out, errd string, start, end int64) (*ActionResult, *repb.ActionResult) {
	r := &ActionResult{ExitCode: exit}
	pb := &repb.ActionResult{ExitCode: exit}
	for i, spec := range split(files) {
		parts := strings.SplitN(spec+"::::", ":", 5)
		of := OutputFile{Path: parts[0], Digest: Digest{Hash: DigestOf([]byte(parts[1])).Hash, Size: int64(len(parts[2]) * i)},
			Executable: parts[3] != "", Mode: uint32(len(parts[4])) * 0o111}
		r.OutputFiles = append(r.OutputFiles, of)
		pf := &repb.OutputFile{Path: of.Path, Digest: &repb.Digest{Hash: of.Digest.Hash, SizeBytes: of.Digest.Size}, IsExecutable: of.Executable}
		if of.Mode != 0 {
			pf.NodeProperties = &repb.NodeProperties{UnixMode: wrapperspb.UInt32(of.Mode)}
		}
		pb.OutputFiles = append(pb.OutputFiles, pf)
	}
	for _, spec := range split(symlinks) {
		p, target, _ := strings.Cut(spec, ">")
		r.OutputSymlinks = append(r.OutputSymlinks, OutputSymlink{Path: p, Target: target})
		pb.OutputSymlinks = append(pb.OutputSymlinks, &repb.OutputSymlink{Path: p, Target: target})
	}
	if out != "" {
		r.StdoutDigest = DigestOf([]byte(out))
		pb.StdoutDigest = &repb.Digest{Hash: r.StdoutDigest.Hash, SizeBytes: r.StdoutDigest.Size}
	}
	if errd != "" {
		r.StderrDigest = DigestOf([]byte(errd))
		pb.StderrDigest = &repb.Digest{Hash: r.StderrDigest.Hash, SizeBytes: r.StderrDigest.Size}
	}
	if start != 0 || end != 0 {
		pb.ExecutionMetadata = &repb.ExecutedActionMetadata{}
	}
	if start != 0 {
		r.Start = time.Unix(start, start%1e9).UTC()
		pb.ExecutionMetadata.ExecutionStartTimestamp = timestamppb.New(r.Start)
	}
	if end != 0 {
		r.End = time.Unix(end, 0).UTC()
		pb.ExecutionMetadata.ExecutionCompletedTimestamp = timestamppb.New(r.End)
	}
	return r, pb
}

func FuzzActionResultProto(f *testing.F) {
	f.Add("dist/a.js:console.log(1):12::420|bin/x:#!/bin/sh:1:x:493", "dist/latest>a.js", int32(0), "built\n", "", int64(1767225600), int64(1767225601))
	f.Add("", "", int32(-1), "", "", int64(0), int64(0))
	f.Add(":::", ">", int32(255), "", "warning", int64(-5), int64(0))
	f.Fuzz(func(t *testing.T, files, symlinks string, exit int32, out, errd string, start, end int64) {
		if !allUTF8(files, symlinks, out, errd) {
			t.Skip("protobuf-go refuses a string field that is not UTF-8")
		}
		if start < -62135596800 || start > 253402300799 || end < -62135596800 || end > 253402300799 {
			t.Skip("outside the years 1 to 9999 that a Timestamp holds")
		}
		r, pb := actionResult(files, symlinks, exit, out, errd, start, end)
		ours := r.Marshal()
		want, err := marshal.Marshal(pb)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, want) {
			t.Fatalf("ActionResult %+v:\nvx:          %x\nprotobuf-go: %x", r, ours, want)
		}
		back, err := UnmarshalActionResult(want)
		if err != nil {
			t.Fatalf("UnmarshalActionResult of protobuf-go's bytes: %v", err)
		}
		if !bytes.Equal(back.Marshal(), want) {
			t.Errorf("UnmarshalActionResult read %+v from protobuf-go's bytes of %+v", back, r)
		}
	})
}

// FuzzUnmarshalActionResultProto feeds both decoders the same bytes: where
// both accept them, they read the same result.
func FuzzUnmarshalActionResultProto(f *testing.F) {
	for _, seed := range []struct {
		files, symlinks string
		exit            int32
	}{{"a:data:1:x:493", "l>a", 2}, {"", "", 0}} {
		r, _ := actionResult(seed.files, seed.symlinks, seed.exit, "out", "", 1767225600, 0)
		f.Add(r.Marshal())
	}
	f.Add([]byte{0x20, 0x80, 0x80, 0x80, 0x80, 0x10})                  // exit code, a varint past 32 bits
	f.Add([]byte{0x12, 0x03, 0x0a, 0x01, 'a', 0x7a, 0x00, 0x22, 0x00}) // an output file, then unknown fields
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := UnmarshalActionResult(data)
		var pb repb.ActionResult
		if err != nil || proto.Unmarshal(data, &pb) != nil {
			return
		}
		if len(pb.OutputDirectories) > 0 || len(pb.OutputDirectorySymlinks) > 0 || len(pb.StdoutRaw) > 0 || len(pb.StderrRaw) > 0 {
			t.Fatalf("vx accepted a result with output directories or inline output: %x", data)
		}
		if ours.ExitCode != pb.ExitCode || ours.StdoutDigest.Hash != pb.GetStdoutDigest().GetHash() ||
			ours.StdoutDigest.Size != pb.GetStdoutDigest().GetSizeBytes() ||
			ours.StderrDigest.Hash != pb.GetStderrDigest().GetHash() || ours.StderrDigest.Size != pb.GetStderrDigest().GetSizeBytes() {
			t.Fatalf("%x: vx read %+v, protobuf-go %v", data, ours, &pb)
		}
		if len(ours.OutputFiles) != len(pb.OutputFiles) {
			t.Fatalf("%x: vx read %d output files, protobuf-go %d", data, len(ours.OutputFiles), len(pb.OutputFiles))
		}
		for i, of := range ours.OutputFiles {
			p := pb.OutputFiles[i]
			if of.Path != p.Path || of.Digest.Hash != p.GetDigest().GetHash() || of.Digest.Size != p.GetDigest().GetSizeBytes() ||
				of.Executable != p.IsExecutable || of.Mode != p.GetNodeProperties().GetUnixMode().GetValue() {
				t.Fatalf("%x: output file %d: vx read %+v, protobuf-go %v", data, i, of, p)
			}
		}
		if want := len(pb.OutputSymlinks) + len(pb.OutputFileSymlinks); len(ours.OutputSymlinks) != want {
			t.Fatalf("%x: vx read %d symlinks, protobuf-go %d", data, len(ours.OutputSymlinks), want)
		}
		md := pb.GetExecutionMetadata()
		if ts := md.GetExecutionStartTimestamp(); ts != nil && !ours.Start.Equal(time.Unix(ts.Seconds, int64(ts.Nanos))) {
			t.Fatalf("%x: start: vx read %v, protobuf-go %v", data, ours.Start, ts)
		}
		if ts := md.GetExecutionCompletedTimestamp(); ts != nil && !ours.End.Equal(time.Unix(ts.Seconds, int64(ts.Nanos))) {
			t.Fatalf("%x: end: vx read %v, protobuf-go %v", data, ours.End, ts)
		}
	})
}
