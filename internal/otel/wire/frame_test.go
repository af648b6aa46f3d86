package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrames(t *testing.T) {
	var b bytes.Buffer
	bodies := [][]byte{[]byte(`{"url":"http://c/v1/traces"}`), {}, bytes.Repeat([]byte{0, 0xff}, 70000)}
	for _, body := range bodies {
		if err := WriteFrame(&b, body); err != nil {
			t.Fatal(err)
		}
	}
	var got [][]byte
	for {
		f, err := ReadFrame(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, f)
	}
	if diff := cmp.Diff(bodies, got); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	if err := WriteFrame(io.Discard, make([]byte, MaxFrame+1)); err == nil {
		t.Error("a frame over the limit was written")
	}
	if _, err := ReadFrame(strings.NewReader("\x7f\x00\x00\x00")); err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Errorf("a length over the limit: %v", err)
	}
	if _, err := ReadFrame(strings.NewReader("\x00\x00\x00\x05ab")); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a cut frame: %v, want io.ErrUnexpectedEOF", err)
	}
}
