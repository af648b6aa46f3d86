package otel

import (
	"encoding/binary"
	"strings"
)

// The OTLP protobuf messages vx sends, by field number (opentelemetry-proto's trace/v1, common/v1,
// resource/v1 and collector/trace/v1): ExportTraceServiceRequest{resource_spans=1}
// ResourceSpans{resource=1, scope_spans=2} Resource{attributes=1} ScopeSpans{scope=1, spans=2}
// InstrumentationScope{name=1, version=2} Span{trace_id=1, span_id=2, parent_span_id=4, name=5, kind=6,
// start_time_unix_nano=7 (fixed64), end_time_unix_nano=8 (fixed64), attributes=9, links=13, status=15}
// Link{trace_id=1, span_id=2, attributes=4} Status{message=2, code=3} KeyValue{key=1, value=2}
// AnyValue{string_value=1, bool_value=2, int_value=3, array_value=5} ArrayValue{values=1}.

// Wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
)

// pbuf is a protobuf encoder for the few messages above: fields are written in order, and a nested message is
// written into its own buffer first, so that its length is known.
type pbuf []byte

func (b *pbuf) tag(field, wire int) { b.varint(uint64(field)<<3 | uint64(wire)) }

func (b *pbuf) varint(v uint64) { *b = binary.AppendUvarint(*b, v) }

func (b *pbuf) bytes(field int, v []byte) {
	b.tag(field, wireBytes)
	b.varint(uint64(len(v)))
	*b = append(*b, v...)
}

// str writes a string field; proto3 omits an empty one.
func (b *pbuf) str(field int, v string) {
	if v != "" {
		b.bytes(field, []byte(strings.ToValidUTF8(v, "\uFFFD")))
	}
}

func (b *pbuf) uint(field int, v uint64) {
	if v != 0 {
		b.tag(field, wireVarint)
		b.varint(v)
	}
}

func (b *pbuf) fixed64(field int, v uint64) {
	if v != 0 {
		b.tag(field, wireFixed64)
		*b = binary.LittleEndian.AppendUint64(*b, v)
	}
}

// msg writes the message fill writes as field.
func (b *pbuf) msg(field int, fill func(*pbuf)) {
	var m pbuf
	fill(&m)
	b.bytes(field, m)
}

func (b *pbuf) attrs(field int, kvs []KeyValue) {
	for _, kv := range kvs {
		b.msg(field, func(m *pbuf) {
			m.str(1, kv.Key)
			m.msg(2, func(v *pbuf) { v.anyValue(kv.Value) })
		})
	}
}

// anyValue writes the fields of an AnyValue: the oneof's field is written even when it holds its zero value,
// so that the value's kind is kept.
func (b *pbuf) anyValue(v Value) {
	switch v.Kind {
	case KindString:
		b.bytes(1, []byte(strings.ToValidUTF8(v.Str, "\uFFFD")))
	case KindBool:
		b.tag(2, wireVarint)
		if v.Bool {
			b.varint(1)
		} else {
			b.varint(0)
		}
	case KindInt:
		b.tag(3, wireVarint)
		b.varint(uint64(v.Int))
	case KindStrings:
		b.msg(5, func(a *pbuf) {
			for _, s := range v.Strings {
				a.msg(1, func(e *pbuf) { e.bytes(1, []byte(strings.ToValidUTF8(s, "\uFFFD"))) })
			}
		})
	}
}

// EncodeProto encodes spans as one ExportTraceServiceRequest (protobuf) with the resource's attributes and vx
// as the instrumentation scope.
func EncodeProto(resource []KeyValue, spans []Span) []byte {
	var req pbuf
	req.msg(1, func(rs *pbuf) {
		rs.msg(1, func(r *pbuf) { r.attrs(1, resource) })
		rs.msg(2, func(ss *pbuf) {
			ss.msg(1, func(sc *pbuf) { sc.str(1, ScopeName) })
			for _, s := range spans {
				ss.msg(2, func(p *pbuf) { p.span(s) })
			}
		})
	})
	return req
}

func (b *pbuf) span(s Span) {
	b.bytes(1, s.Trace[:])
	b.bytes(2, s.ID[:])
	if s.Parent != (SpanID{}) {
		b.bytes(4, s.Parent[:])
	}
	b.str(5, s.Name)
	b.uint(6, KindInternal)
	b.fixed64(7, unixNano(s.Start))
	b.fixed64(8, unixNano(s.End))
	b.attrs(9, s.Attrs)
	for _, l := range s.Links {
		b.msg(13, func(m *pbuf) {
			m.bytes(1, l.Trace[:])
			m.bytes(2, l.Span[:])
			m.attrs(4, l.Attrs)
		})
	}
	if s.Status != StatusUnset || s.Message != "" {
		b.msg(15, func(m *pbuf) {
			m.str(2, s.Message)
			m.uint(3, uint64(s.Status))
		})
	}
}
