package otel

import (
	"crypto/rand"
	"time"
)

// TraceID and SpanID are OpenTelemetry's identifiers: random, never all zero.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// NewTraceID returns a random trace id (crypto/rand).
func NewTraceID() TraceID {
	var id TraceID
	for id == (TraceID{}) {
		rand.Read(id[:])
	}
	return id
}

// NewSpanID returns a random span id (crypto/rand).
func NewSpanID() SpanID {
	var id SpanID
	for id == (SpanID{}) {
		rand.Read(id[:])
	}
	return id
}

// Span kinds and status codes, as OTLP numbers them.
const (
	KindInternal = 1

	StatusUnset = 0
	StatusOK    = 1
	StatusError = 2
)

// Span is one span of a run's trace.
type Span struct {
	Trace      TraceID
	ID, Parent SpanID // Parent is zero for the root
	Name       string
	Start, End time.Time
	Attrs      []KeyValue
	Links      []Link
	Status     int // StatusUnset, StatusOK or StatusError
	Message    string
}

// Link points from a span to another span of the trace.
type Link struct {
	Trace TraceID
	Span  SpanID
	Attrs []KeyValue
}

// KeyValue is an attribute.
type KeyValue struct {
	Key   string
	Value Value
}

// Value is an attribute's value: a string, an int64, a bool or an array of strings.
type Value struct {
	Kind    ValueKind
	Str     string
	Int     int64
	Bool    bool
	Strings []string
}

// ValueKind says which field of a [Value] holds it.
type ValueKind int

const (
	KindString ValueKind = iota
	KindInt
	KindBool
	KindStrings
)

// String, Int, Bool and Strings make attributes.
func String(k, v string) KeyValue    { return KeyValue{k, Value{Kind: KindString, Str: v}} }
func Int(k string, v int64) KeyValue { return KeyValue{k, Value{Kind: KindInt, Int: v}} }
func Bool(k string, v bool) KeyValue { return KeyValue{k, Value{Kind: KindBool, Bool: v}} }
func Strings(k string, v []string) KeyValue {
	return KeyValue{k, Value{Kind: KindStrings, Strings: append([]string{}, v...)}}
}

// unixNano is t in nanoseconds since the Unix epoch, 0 for the zero time.
func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}
