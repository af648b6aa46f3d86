package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol's version. vx refuses a helper that answers hello
// with another one: they are built from the same module and installed
// together.
const Version = 2

// Frame kinds.
const (
	KindRequest  byte = 'q'
	KindResponse byte = 'r'
	KindData     byte = 'd'
	KindCancel   byte = 'c'
	// KindProgress tells vx that a call is still receiving bytes (a turbo
	// artifact being downloaded), so that its idle deadline starts again;
	// it has no payload.
	KindProgress byte = 'p'
)

// MaxPayload bounds one frame's payload. Blob bytes travel in data frames of
// at most DataChunk bytes; requests and responses are small except for an
// ActionResult, which a server keeps well under this.
const (
	MaxPayload = 16 << 20
	DataChunk  = 256 << 10
)

// Frame is one unit on the pipe.
type Frame struct {
	Kind    byte
	ID      uint32
	Payload []byte
}

// WriteFrame writes f in one Write call, so that a caller holding a mutex
// around it never interleaves two frames.
func WriteFrame(w io.Writer, f Frame) error {
	if len(f.Payload) > MaxPayload {
		return fmt.Errorf("wire: frame of %d bytes exceeds the limit of %d", len(f.Payload), MaxPayload)
	}
	buf := make([]byte, 9+len(f.Payload))
	binary.BigEndian.PutUint32(buf, uint32(5+len(f.Payload)))
	buf[4] = f.Kind
	binary.BigEndian.PutUint32(buf[5:], f.ID)
	copy(buf[9:], f.Payload)
	_, err := w.Write(buf)
	return err
}

// ReadFrame reads one frame. It returns io.EOF at a clean end of the stream
// (no partial frame) and io.ErrUnexpectedEOF inside a frame.
func ReadFrame(r io.Reader) (Frame, error) {
	var hdr [9]byte
	if _, err := io.ReadFull(r, hdr[:4]); err != nil {
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n < 5 || n-5 > MaxPayload {
		return Frame{}, fmt.Errorf("wire: bad frame length %d", n)
	}
	if _, err := io.ReadFull(r, hdr[4:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	f := Frame{Kind: hdr[4], ID: binary.BigEndian.Uint32(hdr[5:9]), Payload: make([]byte, n-5)}
	if _, err := io.ReadFull(r, f.Payload); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	return f, nil
}
