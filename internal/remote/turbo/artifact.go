package turbo

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	repb "github.com/bazelbuild/remote-apis/build/bazel/remote/execution/v2"
	"google.golang.org/protobuf/proto"

	"github.com/vxrun/vx/internal/remote/wire"
)

// An artifact is vx's entry on a turbo server, gzip-compressed:
//
//	vx-turbo-entry 1\n
//	action <sha256>/<size>\n            the action it answers
//	result <n>\n<n bytes>               the serialized REAPI ActionResult
//	blob <sha256>/<size>\n<size bytes>  each distinct non-empty blob the result names
//	end\n
//
// A reader refuses anything else: another action, a blob the result does
// not name or names with another size, a blob twice or missing, a blob
// whose bytes do not match its digest, bytes after the end.
const artifactMagic = "vx-turbo-entry 1"

// resultBlobs lists the distinct non-empty blobs a serialized
// ActionResult names, and the run's duration in milliseconds when it
// says.
func resultBlobs(result []byte) ([]wire.Digest, int64, error) {
	var r repb.ActionResult
	if err := proto.Unmarshal(result, &r); err != nil {
		return nil, 0, fmt.Errorf("the result does not decode: %w", err)
	}
	if len(r.GetOutputDirectories()) > 0 || len(r.GetStdoutRaw()) > 0 || len(r.GetStderrRaw()) > 0 {
		return nil, 0, errors.New("the result holds output directories or inline logs, which vx does not write")
	}
	var out []wire.Digest
	seen := map[string]bool{}
	add := func(d *repb.Digest) error {
		if d == nil || d.GetSizeBytes() == 0 {
			return nil
		}
		if !validHash(d.GetHash()) || d.GetSizeBytes() < 0 {
			return fmt.Errorf("the result names %q, which is not a SHA-256 digest", d.GetHash())
		}
		if seen[d.GetHash()] {
			return nil
		}
		seen[d.GetHash()] = true
		out = append(out, wire.Digest{Hash: d.GetHash(), Size: d.GetSizeBytes()})
		return nil
	}
	if err := add(r.GetStdoutDigest()); err != nil {
		return nil, 0, err
	}
	if err := add(r.GetStderrDigest()); err != nil {
		return nil, 0, err
	}
	for _, f := range r.GetOutputFiles() {
		if err := add(f.GetDigest()); err != nil {
			return nil, 0, err
		}
	}
	var ms int64
	if md := r.GetExecutionMetadata(); md != nil && md.GetExecutionStartTimestamp() != nil && md.GetExecutionCompletedTimestamp() != nil {
		ms = md.GetExecutionCompletedTimestamp().AsTime().Sub(md.GetExecutionStartTimestamp().AsTime()).Milliseconds()
	}
	return out, ms, nil
}

// pack writes the artifact of action's result to w, each blob read from
// the file pathOf names. It returns the run's duration in milliseconds
// (0 when unknown).
func pack(w io.Writer, action wire.Digest, result []byte, pathOf func(hash string) (string, bool)) (int64, error) {
	blobs, ms, err := resultBlobs(result)
	if err != nil {
		return 0, err
	}
	total := int64(len(result))
	for _, d := range blobs {
		total += d.Size
	}
	if total > MaxArtifact {
		return 0, fmt.Errorf("the entry holds %d bytes, more than an artifact may (%d)", total, MaxArtifact)
	}
	gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(gz, "%s\naction %s\nresult %d\n", artifactMagic, action, len(result))
	if _, err := gz.Write(result); err != nil {
		return 0, err
	}
	for _, d := range blobs {
		p, ok := pathOf(d.Hash)
		if !ok {
			return 0, fmt.Errorf("blob %s was not handed over for upload", d)
		}
		if err := copyBlob(gz, p, d); err != nil {
			return 0, err
		}
	}
	if _, err := io.WriteString(gz, "end\n"); err != nil {
		return 0, err
	}
	return ms, gz.Close()
}

func copyBlob(w io.Writer, path string, d wire.Digest) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintf(w, "blob %s\n", d); err != nil {
		return err
	}
	n, err := io.CopyN(w, f, d.Size)
	if err != nil && n < d.Size {
		return fmt.Errorf("blob %s: %s holds %d bytes", d, path, n)
	}
	return err
}

// unpack reads an artifact for action: the blobs go to files of the spool
// (staged, by hash; the caller renames or removes them) and the result is
// returned.
func (c *Client) unpack(r *bufio.Reader, action wire.Digest) (staged map[string]string, result []byte, err error) {
	staged = map[string]string{}
	gz, err := gzip.NewReader(r)
	if err != nil {
		return staged, nil, fmt.Errorf("not gzip: %w", err)
	}
	gz.Multistream(false)
	lr := &io.LimitedReader{R: gz, N: MaxArtifact + 1}
	br := bufio.NewReaderSize(lr, 64<<10)
	line := func() (string, error) {
		var b []byte
		for {
			c, err := br.ReadByte()
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return "", err
			}
			if c == '\n' {
				return string(b), nil
			}
			if len(b) >= 256 {
				return "", errors.New("a header line is too long")
			}
			b = append(b, c)
		}
	}
	l, err := line()
	if err != nil {
		return staged, nil, err
	}
	if l != artifactMagic {
		return staged, nil, fmt.Errorf("it starts with %q, not %q", trim(l), artifactMagic)
	}
	if l, err = line(); err != nil {
		return staged, nil, err
	}
	if l != "action "+action.String() {
		return staged, nil, fmt.Errorf("it answers another action (%q)", trim(l))
	}
	if l, err = line(); err != nil {
		return staged, nil, err
	}
	n, err := sizeAfter(l, "result ")
	if err != nil || n > wire.MaxPayload {
		return staged, nil, fmt.Errorf("bad result line %q", trim(l))
	}
	result = make([]byte, n)
	if _, err := io.ReadFull(br, result); err != nil {
		return staged, nil, fmt.Errorf("the result is cut short: %w", err)
	}
	want, _, err := resultBlobs(result)
	if err != nil {
		return staged, nil, err
	}
	need := map[string]int64{}
	for _, d := range want {
		need[d.Hash] = d.Size
	}
	for {
		if l, err = line(); err != nil {
			return staged, nil, err
		}
		if l == "end" {
			break
		}
		rest, ok := strings.CutPrefix(l, "blob ")
		h, sz, ok2 := strings.Cut(rest, "/")
		size, err := strconv.ParseInt(sz, 10, 64)
		if !ok || !ok2 || err != nil || !validHash(h) {
			return staged, nil, fmt.Errorf("bad blob line %q", trim(l))
		}
		if need[h] != size || size == 0 {
			return staged, nil, fmt.Errorf("blob %s/%d is not one the result names", h, size)
		}
		if _, dup := staged[h]; dup {
			return staged, nil, fmt.Errorf("blob %s twice", h)
		}
		p, err := c.stage(br, wire.Digest{Hash: h, Size: size})
		if p != "" {
			staged[h] = p
		}
		if err != nil {
			return staged, nil, err
		}
	}
	for _, d := range want {
		if _, ok := staged[d.Hash]; !ok {
			return staged, nil, fmt.Errorf("blob %s is missing", d)
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err == nil {
			err = errors.New("bytes after the end line")
		}
		return staged, nil, err
	}
	if lr.N <= 0 {
		return staged, nil, fmt.Errorf("it unpacks to more than %d bytes", MaxArtifact)
	}
	return staged, result, nil
}

// stage copies blob d from r into a new file of the spool, checking its
// digest.
func (c *Client) stage(r io.Reader, d wire.Digest) (string, error) {
	f, err := os.CreateTemp(c.spool, "get-*")
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyN(io.MultiWriter(f, h), r, d.Size)
	if err != nil {
		if n < d.Size && errors.Is(err, io.EOF) {
			err = fmt.Errorf("blob %s is cut short at %d bytes", d, n)
		}
		return f.Name(), err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.Hash {
		return f.Name(), fmt.Errorf("blob %s does not match its digest", d)
	}
	return f.Name(), nil
}

func sizeAfter(l, prefix string) (int64, error) {
	s, ok := strings.CutPrefix(l, prefix)
	if !ok {
		return 0, errors.New("no " + prefix)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("bad size")
	}
	return n, nil
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
