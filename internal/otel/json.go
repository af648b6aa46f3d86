package otel

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
)

// ScopeName is the instrumentation scope of vx's spans.
const ScopeName = "github.com/vxrun/vx"

// The OTLP JSON mapping (the protobuf JSON mapping with OTLP's exceptions): field names in lowerCamelCase,
// trace and span ids as hex strings, 64-bit integers (times, int values) as decimal strings, enums as numbers.
type (
	jsonRequest struct {
		ResourceSpans []jsonResourceSpans `json:"resourceSpans"`
	}
	jsonResourceSpans struct {
		Resource   jsonResource     `json:"resource"`
		ScopeSpans []jsonScopeSpans `json:"scopeSpans"`
	}
	jsonResource struct {
		Attributes []jsonKeyValue `json:"attributes"`
	}
	jsonScopeSpans struct {
		Scope jsonScope  `json:"scope"`
		Spans []jsonSpan `json:"spans"`
	}
	jsonScope struct {
		Name string `json:"name"`
	}
	jsonSpan struct {
		TraceID           string         `json:"traceId"`
		SpanID            string         `json:"spanId"`
		ParentSpanID      string         `json:"parentSpanId,omitempty"`
		Name              string         `json:"name"`
		Kind              int            `json:"kind"`
		StartTimeUnixNano string         `json:"startTimeUnixNano"`
		EndTimeUnixNano   string         `json:"endTimeUnixNano"`
		Attributes        []jsonKeyValue `json:"attributes,omitempty"`
		Links             []jsonLink     `json:"links,omitempty"`
		Status            *jsonStatus    `json:"status,omitempty"`
	}
	jsonLink struct {
		TraceID    string         `json:"traceId"`
		SpanID     string         `json:"spanId"`
		Attributes []jsonKeyValue `json:"attributes,omitempty"`
	}
	jsonStatus struct {
		Message string `json:"message,omitempty"`
		Code    int    `json:"code,omitempty"`
	}
	jsonKeyValue struct {
		Key   string       `json:"key"`
		Value jsonAnyValue `json:"value"`
	}
	jsonAnyValue struct {
		StringValue *string         `json:"stringValue,omitempty"`
		BoolValue   *bool           `json:"boolValue,omitempty"`
		IntValue    *string         `json:"intValue,omitempty"`
		ArrayValue  *jsonArrayValue `json:"arrayValue,omitempty"`
	}
	jsonArrayValue struct {
		Values []jsonAnyValue `json:"values"`
	}
)

func jsonAttrs(kvs []KeyValue) []jsonKeyValue {
	out := make([]jsonKeyValue, 0, len(kvs))
	for _, kv := range kvs {
		var v jsonAnyValue
		switch kv.Value.Kind {
		case KindString:
			v.StringValue = &kv.Value.Str
		case KindBool:
			v.BoolValue = &kv.Value.Bool
		case KindInt:
			s := strconv.FormatInt(kv.Value.Int, 10)
			v.IntValue = &s
		case KindStrings:
			a := &jsonArrayValue{Values: make([]jsonAnyValue, len(kv.Value.Strings))}
			for i := range kv.Value.Strings {
				a.Values[i].StringValue = &kv.Value.Strings[i]
			}
			v.ArrayValue = a
		}
		out = append(out, jsonKeyValue{kv.Key, v})
	}
	return out
}

// EncodeJSON encodes spans as one ExportTraceServiceRequest in the OTLP JSON encoding.
func EncodeJSON(resource []KeyValue, spans []Span) []byte {
	js := make([]jsonSpan, 0, len(spans))
	for _, s := range spans {
		j := jsonSpan{TraceID: hex.EncodeToString(s.Trace[:]), SpanID: hex.EncodeToString(s.ID[:]), Name: s.Name,
			Kind: KindInternal, StartTimeUnixNano: strconv.FormatUint(unixNano(s.Start), 10),
			EndTimeUnixNano: strconv.FormatUint(unixNano(s.End), 10), Attributes: jsonAttrs(s.Attrs)}
		if s.Parent != (SpanID{}) {
			j.ParentSpanID = hex.EncodeToString(s.Parent[:])
		}
		for _, l := range s.Links {
			j.Links = append(j.Links, jsonLink{hex.EncodeToString(l.Trace[:]), hex.EncodeToString(l.Span[:]), jsonAttrs(l.Attrs)})
		}
		if s.Status != StatusUnset || s.Message != "" {
			j.Status = &jsonStatus{Message: s.Message, Code: s.Status}
		}
		js = append(js, j)
	}
	req := jsonRequest{[]jsonResourceSpans{{Resource: jsonResource{jsonAttrs(resource)},
		ScopeSpans: []jsonScopeSpans{{Scope: jsonScope{ScopeName}, Spans: js}}}}}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err) // only strings, numbers and slices: cannot fail
	}
	return b
}
