package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrameRoundTrip(t *testing.T) {
	frames := []Frame{
		{Kind: KindRequest, ID: 1, Payload: []byte(`{"op":"hello"}`)},
		{Kind: KindData, ID: 1<<32 - 1, Payload: bytes.Repeat([]byte{0, 1, 2}, 1000)},
		{Kind: KindCancel, ID: 7, Payload: []byte{}},
	}
	var buf bytes.Buffer
	for _, f := range frames {
		if err := WriteFrame(&buf, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range frames {
		got, err := ReadFrame(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("frame (-want +got):\n%s", diff)
		}
	}
	if _, err := ReadFrame(&buf); err != io.EOF {
		t.Errorf("at the end: %v, want io.EOF", err)
	}
}

func TestFrameBroken(t *testing.T) {
	var full bytes.Buffer
	WriteFrame(&full, Frame{Kind: KindResponse, ID: 3, Payload: []byte("hello")})
	b := full.Bytes()
	for _, tc := range []struct {
		name string
		in   []byte
		want error
	}{
		{"cut in the length", b[:2], io.ErrUnexpectedEOF},
		{"cut in the header", b[:6], io.ErrUnexpectedEOF},
		{"cut in the payload", b[:len(b)-1], io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ReadFrame(bytes.NewReader(tc.in)); !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("length too large", func(t *testing.T) {
		if _, err := ReadFrame(bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 'q'})); err == nil {
			t.Error("a 4 GiB frame was accepted")
		}
	})
	t.Run("payload too large to write", func(t *testing.T) {
		if err := WriteFrame(io.Discard, Frame{Payload: make([]byte, MaxPayload+1)}); err == nil {
			t.Error("an oversized frame was written")
		}
	})
}

func TestErrorIsMiss(t *testing.T) {
	for code, miss := range map[string]bool{CodeNotFound: true, CodeBadSignature: true, CodeUnavailable: false, CodeDeadline: false} {
		if got := errors.Is(&Error{Code: code}, ErrNotFound); got != miss {
			t.Errorf("%s is a miss: %v, want %v", code, got, miss)
		}
	}
	if got := AsError(ErrNotFound).Code; got != CodeNotFound {
		t.Errorf("AsError(ErrNotFound).Code = %s", got)
	}
}
