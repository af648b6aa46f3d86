package reapi

import (
	"errors"
	"fmt"
	"math"
)

// This file holds the few pieces of the protocol buffers wire format that
// REAPI's messages need: varints, length-delimited fields and fixed64 are
// never mixed with anything else. Writing them here instead of linking
// google.golang.org/protobuf keeps vx's start free of that module's package
// initialisation (its internal/detrand reads the executable at init).

const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendTag(b []byte, field, wt int) []byte {
	return appendVarint(b, uint64(field)<<3|uint64(wt))
}

// appendBytesField appends a length-delimited field; empty values are
// skipped, as proto3 does for scalar fields.
func appendBytesField(b []byte, field int, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

func appendStringField(b []byte, field int, v string) []byte {
	if v == "" {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendRepeatedString appends every element, the empty ones too: in a
// repeated field an empty string is a value.
func appendRepeatedString(b []byte, field int, vs []string) []byte {
	for _, v := range vs {
		b = appendTag(b, field, wireBytes)
		b = appendVarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

// appendMessageField appends an embedded message. A nil msg is absent; an
// empty but present message is written with length 0.
func appendMessageField(b []byte, field int, msg []byte) []byte {
	if msg == nil {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = appendVarint(b, uint64(len(msg)))
	return append(b, msg...)
}

func appendVarintField(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return appendVarint(appendTag(b, field, wireVarint), v)
}

func appendBoolField(b []byte, field int, v bool) []byte {
	if !v {
		return b
	}
	return appendVarintField(b, field, 1)
}

var errWire = errors.New("cache: malformed protocol buffer")

// wireField is one field read by nextField.
type wireField struct {
	num   int
	wt    int
	u     uint64 // varint, fixed64, fixed32
	bytes []byte // length-delimited
}

func readVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		c := b[i]
		if i == 9 && c > 1 {
			return 0, 0
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// nextField reads the field at the start of b and returns the rest.
func nextField(b []byte) (wireField, []byte, error) {
	tag, n := readVarint(b)
	if n == 0 {
		return wireField{}, nil, errWire
	}
	b = b[n:]
	f := wireField{num: int(tag >> 3), wt: int(tag & 7)}
	if tag>>3 == 0 || tag>>3 > math.MaxInt32 {
		return wireField{}, nil, errWire
	}
	switch f.wt {
	case wireVarint:
		f.u, n = readVarint(b)
		if n == 0 {
			return wireField{}, nil, errWire
		}
		return f, b[n:], nil
	case wireFixed64:
		if len(b) < 8 {
			return wireField{}, nil, errWire
		}
		for i := 7; i >= 0; i-- {
			f.u = f.u<<8 | uint64(b[i])
		}
		return f, b[8:], nil
	case wireFixed32:
		if len(b) < 4 {
			return wireField{}, nil, errWire
		}
		for i := 3; i >= 0; i-- {
			f.u = f.u<<8 | uint64(b[i])
		}
		return f, b[4:], nil
	case wireBytes:
		l, n := readVarint(b)
		if n == 0 || l > uint64(len(b)-n) {
			return wireField{}, nil, errWire
		}
		f.bytes = b[n : n+int(l)]
		return f, b[n+int(l):], nil
	}
	return wireField{}, nil, fmt.Errorf("%w: wire type %d", errWire, f.wt)
}

// eachField calls fn for every field of msg, stopping at the first error.
// A field whose wire type does not match what fn expects is reported by fn.
func eachField(msg []byte, fn func(f wireField) error) error {
	for len(msg) > 0 {
		f, rest, err := nextField(msg)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			return err
		}
		msg = rest
	}
	return nil
}

// want checks that f has wire type wt.
func (f wireField) want(wt int) error {
	if f.wt != wt {
		return fmt.Errorf("%w: field %d has wire type %d, want %d", errWire, f.num, f.wt, wt)
	}
	return nil
}
