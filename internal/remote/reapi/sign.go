package reapi

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// A signature travels as a google.protobuf.StringValue in the
// ActionResult's execution_metadata.auxiliary_metadata, a well-known type
// that every server stores and any client can decode.
//
// Version 2 covers every field a restore reads, file modes included;
// version 1 (vx before it) did not cover unix_mode, so a client without
// the key could have made a signed file 0777: a v1 signature counts as
// none.
const (
	signatureType     = "type.googleapis.com/google.protobuf.StringValue"
	signaturePrefix   = "vx-signature:v2:hmac-sha256:"
	signaturePrefixV1 = "vx-signature:v1:hmac-sha256:"
)

// canonical is the content a signature covers: the action it answers, the
// exit code, every output with its digest (files with their executable
// bit and their unix_mode, symlinks with their target, directories with
// their tree) sorted by path, and the digests of the logs: every field a
// restore reads. Servers may rewrite what they store (bazel-remote adds a
// worker name), so the signature covers this form and never the stored
// bytes.
func canonical(action *repb.Digest, r *repb.ActionResult) []byte {
	var lines []string
	d := func(x *repb.Digest) string {
		return x.GetHash() + "/" + strconv.FormatInt(x.GetSizeBytes(), 10)
	}
	for _, f := range r.GetOutputFiles() {
		x := "-"
		if f.GetIsExecutable() {
			x = "x"
		}
		mode := "-"
		if m := f.GetNodeProperties().GetUnixMode(); m != nil {
			mode = strconv.FormatUint(uint64(m.GetValue()), 8)
		}
		lines = append(lines, fmt.Sprintf("file %q %s %s %s", f.GetPath(), d(f.GetDigest()), x, mode))
	}
	for _, s := range r.GetOutputSymlinks() {
		lines = append(lines, fmt.Sprintf("symlink %q %q", s.GetPath(), s.GetTarget()))
	}
	for _, s := range r.GetOutputFileSymlinks() {
		lines = append(lines, fmt.Sprintf("filesymlink %q %q", s.GetPath(), s.GetTarget()))
	}
	for _, s := range r.GetOutputDirectorySymlinks() {
		lines = append(lines, fmt.Sprintf("dirsymlink %q %q", s.GetPath(), s.GetTarget()))
	}
	for _, dir := range r.GetOutputDirectories() {
		lines = append(lines, fmt.Sprintf("dir %q %s", dir.GetPath(), d(dir.GetTreeDigest())))
	}
	sort.Strings(lines)
	var b strings.Builder
	b.WriteString("vx-result-v2\n")
	fmt.Fprintf(&b, "action %s\n", d(action))
	fmt.Fprintf(&b, "exit %d\n", r.GetExitCode())
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "stdout %s\n", logDigest(r.GetStdoutDigest(), r.GetStdoutRaw()))
	fmt.Fprintf(&b, "stderr %s\n", logDigest(r.GetStderrDigest(), r.GetStderrRaw()))
	return []byte(b.String())
}

// logDigest names a log by its digest, computed from the inlined bytes
// when the server inlined them (the two forms are the same log).
func logDigest(dg *repb.Digest, raw []byte) string {
	if len(raw) > 0 {
		sum := sha256.Sum256(raw)
		return hex.EncodeToString(sum[:]) + "/" + strconv.Itoa(len(raw))
	}
	if dg == nil {
		sum := sha256.Sum256(nil)
		return hex.EncodeToString(sum[:]) + "/0"
	}
	return dg.GetHash() + "/" + strconv.FormatInt(dg.GetSizeBytes(), 10)
}

func mac(key []byte, action *repb.Digest, r *repb.ActionResult) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(canonical(action, r))
	return m.Sum(nil)
}

// sign replaces any vx signature in r by one made with key.
func sign(key []byte, action *repb.Digest, r *repb.ActionResult) error {
	sig := signaturePrefix + hex.EncodeToString(mac(key, action, r))
	v, err := proto.Marshal(wrapperspb.String(sig))
	if err != nil {
		return err
	}
	if r.ExecutionMetadata == nil {
		r.ExecutionMetadata = &repb.ExecutedActionMetadata{}
	}
	md := r.ExecutionMetadata
	kept := md.AuxiliaryMetadata[:0]
	for _, a := range md.AuxiliaryMetadata {
		if _, ok := signatureOf(a); !ok && !isV1(a) {
			kept = append(kept, a)
		}
	}
	md.AuxiliaryMetadata = append(kept, &anypb.Any{TypeUrl: signatureType, Value: v})
	return nil
}

// verify reports "" when r carries a valid signature by key, else why not.
func verify(key []byte, action *repb.Digest, r *repb.ActionResult) string {
	want := mac(key, action, r)
	found, v1 := false, false
	for _, a := range r.GetExecutionMetadata().GetAuxiliaryMetadata() {
		sig, ok := signatureOf(a)
		if !ok {
			v1 = v1 || isV1(a)
			continue
		}
		found = true
		got, err := hex.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return ""
		}
	}
	switch {
	case !found && v1:
		return "the entry's signature is of an older vx (v1, which does not cover file modes): signed entries are misses until a vx of this version stores them again"
	case !found:
		return "the entry is not signed (VX_REMOTE_SIGNING_KEY is set, so unsigned entries are misses)"
	}
	return "the entry's signature does not match its content or was made with another key"
}

// signatureOf returns the hex MAC of a current signature.
func signatureOf(a *anypb.Any) (string, bool) {
	return strings.CutPrefix(stringValue(a), signaturePrefix)
}

// isV1 reports whether a is a version 1 signature.
func isV1(a *anypb.Any) bool {
	return strings.HasPrefix(stringValue(a), signaturePrefixV1)
}

func stringValue(a *anypb.Any) string {
	if a.GetTypeUrl() != signatureType {
		return ""
	}
	var s wrapperspb.StringValue
	if proto.Unmarshal(a.GetValue(), &s) != nil {
		return ""
	}
	return s.GetValue()
}
