package otel

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

// testSpans are a root span and two children, one failed, with every kind of value and a link.
func testSpans() ([]KeyValue, []Span) {
	tr := TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	root, a, b := SpanID{0, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}, SpanID{1, 2, 3, 4, 5, 6, 7, 8}, SpanID{9, 9, 9, 9, 9, 9, 9, 9}
	t0 := time.Unix(1_790_000_000, 123_456_789)
	res := []KeyValue{String("service.name", "vx"), String("team", "web")}
	return res, []Span{
		{Trace: tr, ID: a, Parent: root, Name: "ui#build", Start: t0, End: t0.Add(1500 * time.Millisecond),
			Attrs: []KeyValue{String("vx.project", "ui"), String("vx.cache", "miss"), Int("vx.exit_code", 0), Bool("vx.persistent", false)}},
		{Trace: tr, ID: b, Parent: root, Name: "web#build", Start: t0.Add(2 * time.Second), End: t0.Add(3 * time.Second),
			Attrs:  []KeyValue{Int("vx.exit_code", 2), Int("big", math.MaxInt64), Int("negative", -1), String("bad utf8", "a\xffb")},
			Status: StatusError, Message: "exit code 2"},
		{Trace: tr, ID: root, Name: "vx run build", Start: t0, End: t0.Add(3 * time.Second),
			Attrs:  []KeyValue{Strings("vx.critical_path", []string{"ui#build", "web#build"}), Strings("empty", nil), Bool("yes", true)},
			Links:  []Link{{Trace: tr, Span: a, Attrs: []KeyValue{Int("vx.critical_path.index", 0)}}, {Trace: tr, Span: b}},
			Status: StatusError, Message: "failed, exit code 1"},
	}
}

// strictJSON decodes b into v, refusing unknown fields and trailing data.
func strictJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	if d.More() {
		t.Fatalf("trailing data after the request")
	}
}

// TestEncodeJSON checks the OTLP JSON mapping: lowerCamelCase names, hex ids, 64-bit integers as decimal
// strings, enums as numbers, the oneof of AnyValue.
func TestEncodeJSON(t *testing.T) {
	res, spans := testSpans()
	var got jsonRequest
	strictJSON(t, EncodeJSON(res, spans), &got)
	str := func(s string) *string { return &s }
	yes, no := true, false
	want := jsonRequest{[]jsonResourceSpans{{
		Resource: jsonResource{[]jsonKeyValue{{"service.name", jsonAnyValue{StringValue: str("vx")}}, {"team", jsonAnyValue{StringValue: str("web")}}}},
		ScopeSpans: []jsonScopeSpans{{Scope: jsonScope{"github.com/vxrun/vx"}, Spans: []jsonSpan{
			{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "0102030405060708", ParentSpanID: "00f067aa0ba902b7", Name: "ui#build", Kind: 1,
				StartTimeUnixNano: "1790000000123456789", EndTimeUnixNano: "1790000001623456789",
				Attributes: []jsonKeyValue{{"vx.project", jsonAnyValue{StringValue: str("ui")}}, {"vx.cache", jsonAnyValue{StringValue: str("miss")}},
					{"vx.exit_code", jsonAnyValue{IntValue: str("0")}}, {"vx.persistent", jsonAnyValue{BoolValue: &no}}}},
			{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "0909090909090909", ParentSpanID: "00f067aa0ba902b7", Name: "web#build", Kind: 1,
				StartTimeUnixNano: "1790000002123456789", EndTimeUnixNano: "1790000003123456789",
				Attributes: []jsonKeyValue{{"vx.exit_code", jsonAnyValue{IntValue: str("2")}}, {"big", jsonAnyValue{IntValue: str("9223372036854775807")}},
					{"negative", jsonAnyValue{IntValue: str("-1")}}, {"bad utf8", jsonAnyValue{StringValue: str("a\ufffdb")}}},
				Status: &jsonStatus{Message: "exit code 2", Code: 2}},
			{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Name: "vx run build", Kind: 1,
				StartTimeUnixNano: "1790000000123456789", EndTimeUnixNano: "1790000003123456789",
				Attributes: []jsonKeyValue{{"vx.critical_path", jsonAnyValue{ArrayValue: &jsonArrayValue{[]jsonAnyValue{{StringValue: str("ui#build")}, {StringValue: str("web#build")}}}}},
					{"empty", jsonAnyValue{ArrayValue: &jsonArrayValue{[]jsonAnyValue{}}}}, {"yes", jsonAnyValue{BoolValue: &yes}}},
				Links: []jsonLink{{"4bf92f3577b34da6a3ce929d0e0e4736", "0102030405060708", []jsonKeyValue{{"vx.critical_path.index", jsonAnyValue{IntValue: str("0")}}}},
					{"4bf92f3577b34da6a3ce929d0e0e4736", "0909090909090909", nil}},
				Status: &jsonStatus{Message: "failed, exit code 1", Code: 2}},
		}}},
	}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("request (-want +got):\n%s", diff)
	}
}

// TestEncodeProto decodes the protobuf encoding with protowire, by the field numbers and wire types of
// opentelemetry-proto, into the JSON mapping's form, and compares it with what the JSON encoding says: both
// encodings carry the same request.
func TestEncodeProto(t *testing.T) {
	res, spans := testSpans()
	var want jsonRequest
	strictJSON(t, EncodeJSON(res, spans), &want)
	got := decodeRequest(t, EncodeProto(res, spans))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("protobuf request (-JSON +protobuf):\n%s", diff)
	}
}

// fields splits a message into its fields, failing on a malformed one or a wire type other than want's.
func fields(t *testing.T, b []byte, want map[protowire.Number]protowire.Type, each func(protowire.Number, []byte, uint64)) {
	t.Helper()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		if wt, ok := want[num]; !ok || wt != typ {
			t.Fatalf("field %d of wire type %d: not in the schema (want %v)", num, typ, want)
		}
		switch typ {
		case protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			each(num, v, 0)
			b = b[n:]
		case protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			each(num, nil, v)
			b = b[n:]
		case protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				t.Fatal(protowire.ParseError(n))
			}
			each(num, nil, v)
			b = b[n:]
		}
	}
}

const (
	bytesT  = protowire.BytesType
	varintT = protowire.VarintType
)

func decodeRequest(t *testing.T, b []byte) jsonRequest {
	var req jsonRequest
	fields(t, b, map[protowire.Number]protowire.Type{1: bytesT}, func(_ protowire.Number, rsb []byte, _ uint64) {
		var rs jsonResourceSpans
		fields(t, rsb, map[protowire.Number]protowire.Type{1: bytesT, 2: bytesT}, func(n protowire.Number, v []byte, _ uint64) {
			if n == 1 {
				rs.Resource.Attributes = []jsonKeyValue{}
				fields(t, v, map[protowire.Number]protowire.Type{1: bytesT}, func(_ protowire.Number, kv []byte, _ uint64) {
					rs.Resource.Attributes = append(rs.Resource.Attributes, decodeKeyValue(t, kv))
				})
				return
			}
			var ss jsonScopeSpans
			fields(t, v, map[protowire.Number]protowire.Type{1: bytesT, 2: bytesT}, func(n protowire.Number, v []byte, _ uint64) {
				if n == 1 {
					fields(t, v, map[protowire.Number]protowire.Type{1: bytesT, 2: bytesT}, func(n protowire.Number, v []byte, _ uint64) {
						if n == 1 {
							ss.Scope.Name = string(v)
						}
					})
					return
				}
				ss.Spans = append(ss.Spans, decodeSpan(t, v))
			})
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		})
		req.ResourceSpans = append(req.ResourceSpans, rs)
	})
	return req
}

func decodeSpan(t *testing.T, b []byte) jsonSpan {
	var s jsonSpan
	s.StartTimeUnixNano, s.EndTimeUnixNano = "0", "0"
	fields(t, b, map[protowire.Number]protowire.Type{1: bytesT, 2: bytesT, 4: bytesT, 5: bytesT, 6: varintT,
		7: protowire.Fixed64Type, 8: protowire.Fixed64Type, 9: bytesT, 13: bytesT, 15: bytesT}, func(n protowire.Number, v []byte, u uint64) {
		switch n {
		case 1:
			s.TraceID = id(t, v, 16)
		case 2:
			s.SpanID = id(t, v, 8)
		case 4:
			s.ParentSpanID = id(t, v, 8)
		case 5:
			s.Name = string(v)
		case 6:
			s.Kind = int(u)
		case 7:
			s.StartTimeUnixNano = strconv.FormatUint(u, 10)
		case 8:
			s.EndTimeUnixNano = strconv.FormatUint(u, 10)
		case 9:
			s.Attributes = append(s.Attributes, decodeKeyValue(t, v))
		case 13:
			var l jsonLink
			fields(t, v, map[protowire.Number]protowire.Type{1: bytesT, 2: bytesT, 4: bytesT}, func(n protowire.Number, v []byte, _ uint64) {
				switch n {
				case 1:
					l.TraceID = id(t, v, 16)
				case 2:
					l.SpanID = id(t, v, 8)
				case 4:
					l.Attributes = append(l.Attributes, decodeKeyValue(t, v))
				}
			})
			s.Links = append(s.Links, l)
		case 15:
			s.Status = &jsonStatus{}
			fields(t, v, map[protowire.Number]protowire.Type{2: bytesT, 3: varintT}, func(n protowire.Number, v []byte, u uint64) {
				if n == 2 {
					s.Status.Message = string(v)
				} else {
					s.Status.Code = int(u)
				}
			})
		}
	})
	return s
}

func id(t *testing.T, b []byte, size int) string {
	if len(b) != size {
		t.Fatalf("an id of %d bytes, want %d", len(b), size)
	}
	return hex.EncodeToString(b)
}

func decodeKeyValue(t *testing.T, b []byte) jsonKeyValue {
	var kv jsonKeyValue
	fields(t, b, map[protowire.Number]protowire.Type{1: bytesT, 2: bytesT}, func(n protowire.Number, v []byte, _ uint64) {
		if n == 1 {
			kv.Key = string(v)
			return
		}
		kv.Value = decodeAnyValue(t, v)
	})
	return kv
}

func decodeAnyValue(t *testing.T, b []byte) jsonAnyValue {
	var av jsonAnyValue
	set := 0
	fields(t, b, map[protowire.Number]protowire.Type{1: bytesT, 2: varintT, 3: varintT, 5: bytesT}, func(n protowire.Number, v []byte, u uint64) {
		set++
		switch n {
		case 1:
			s := string(v)
			av.StringValue = &s
		case 2:
			bv := u != 0
			av.BoolValue = &bv
		case 3:
			s := strconv.FormatInt(int64(u), 10)
			av.IntValue = &s
		case 5:
			av.ArrayValue = &jsonArrayValue{Values: []jsonAnyValue{}}
			fields(t, v, map[protowire.Number]protowire.Type{1: bytesT}, func(_ protowire.Number, e []byte, _ uint64) {
				av.ArrayValue.Values = append(av.ArrayValue.Values, decodeAnyValue(t, e))
			})
		}
	})
	if set != 1 {
		t.Fatalf("an AnyValue with %d fields of its oneof set", set)
	}
	return av
}
