package wire

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"time"
)

// The pipe from vx to the helper ("vx-remote otel") carries frames: a 4-byte big-endian length, then that many
// bytes. The first frame is a [Hello] in JSON; each later one is the body of one request, ready to POST. vx
// closes the pipe at the end of the run; the helper then sends what it holds within Hello.FlushMS and exits.

// MaxFrame bounds a frame: a larger one is a broken stream.
const MaxFrame = 16 << 20

// Hello tells the helper where and how to send.
type Hello struct {
	URL         string      `json:"url"`
	Headers     [][2]string `json:"headers,omitempty"`
	ContentType string      `json:"contentType"`
	TimeoutMS   int64       `json:"timeoutMs"`        // one request's limit
	FlushMS     int64       `json:"flushMs"`          // how long the helper may send once the pipe is closed
	Gzip        bool        `json:"gzip,omitempty"`   // send the bodies gzip-compressed (Content-Encoding: gzip)
	CAFile      string      `json:"caFile,omitempty"` // PEM file of the CAs an https collector's certificate may chain to, besides the system's
}

// WriteFrame writes b as one frame.
func WriteFrame(w io.Writer, b []byte) error {
	if len(b) > MaxFrame {
		return fmt.Errorf("otel: a frame of %d bytes is over the limit of %d", len(b), MaxFrame)
	}
	buf := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(buf, uint32(len(b)))
	copy(buf[4:], b)
	_, err := w.Write(buf)
	return err
}

// ReadFrame reads one frame; io.EOF at a frame's boundary ends the stream.
func ReadFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > MaxFrame {
		return nil, fmt.Errorf("otel: a frame of %d bytes is over the limit of %d", size, MaxFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}

// ReadHello reads the first frame.
func ReadHello(r io.Reader) (*Hello, error) {
	b, err := ReadFrame(r)
	if err != nil {
		return nil, fmt.Errorf("otel: reading the hello: %w", err)
	}
	var h Hello
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("otel: decoding the hello: %w", err)
	}
	return &h, nil
}

// DefaultTimeout is a request's timeout when OTEL_EXPORTER_OTLP_TIMEOUT does not set one (the specification's
// 10 s).
const DefaultTimeout = 10 * time.Second

// FlushBound is how long the end of a run waits, at most, for the last spans to be sent.
const FlushBound = 2 * time.Second

// Redact returns the URL u without its user information and query, for messages.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "the collector"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}
