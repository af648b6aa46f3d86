package otel

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vxrun/vx/internal/otel/wire"
)

// Protocols vx exports with.
const (
	ProtoHTTPProtobuf = "http/protobuf" // the default
	ProtoHTTPJSON     = "http/json"
)

// DefaultEndpoint is where --otel without a URL sends when no variable names a collector: a collector's
// OTLP/HTTP port on this machine.
const DefaultEndpoint = "http://localhost:4318"

// DefaultTimeout is a request's timeout when OTEL_EXPORTER_OTLP_TIMEOUT does not set one.
const DefaultTimeout = wire.DefaultTimeout

// Config is where and how a run's trace is exported.
type Config struct {
	URL      string      // the traces endpoint, in full (".../v1/traces")
	Headers  [][2]string // sent with every request, in order
	Protocol string      // ProtoHTTPProtobuf or ProtoHTTPJSON
	Timeout  time.Duration
	Gzip     bool   // OTEL_EXPORTER_OTLP_COMPRESSION=gzip: bodies are sent gzip-compressed
	CAFile   string // OTEL_EXPORTER_OTLP_CERTIFICATE: the PEM file of the CAs that sign an https collector's certificate, absolute
	// Resource holds the resource's attributes: service.name first, then OTEL_RESOURCE_ATTRIBUTES' others in
	// their order.
	Resource []KeyValue
}

// ContentType is the Content-Type of c's requests.
func (c *Config) ContentType() string {
	if c.Protocol == ProtoHTTPJSON {
		return "application/json"
	}
	return "application/x-protobuf"
}

// Encode encodes the spans as one ExportTraceServiceRequest in c's protocol.
func (c *Config) Encode(spans []Span) []byte {
	if c.Protocol == ProtoHTTPJSON {
		return EncodeJSON(c.Resource, spans)
	}
	return EncodeProto(c.Resource, spans)
}

// FromEnv returns the export configuration: flagSet says --otel was given and flagURL is its value ("" for
// --otel alone); getenv looks up the variables of vx's environment. It returns nil, nil when nothing asks for an
// export (no --otel and no endpoint variable, or the variables turned it off). An error names the variable or flag
// at fault; vx says it and runs without a trace.
func FromEnv(flagSet bool, flagURL string, getenv func(string) string) (*Config, error) {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	either := func(suffix string) (string, string) {
		if v := env("OTEL_EXPORTER_OTLP_TRACES_" + suffix); v != "" {
			return v, "OTEL_EXPORTER_OTLP_TRACES_" + suffix
		}
		return env("OTEL_EXPORTER_OTLP_" + suffix), "OTEL_EXPORTER_OTLP_" + suffix
	}
	c := &Config{Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout}
	switch tracesEP, generic := env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"), env("OTEL_EXPORTER_OTLP_ENDPOINT"); {
	case flagSet && flagURL != "":
		u, err := tracesURL(flagURL, true)
		if err != nil {
			return nil, fmt.Errorf("otel: --otel=%s: %w", strconv.Quote(flagURL), err)
		}
		c.URL = u
	case !flagSet && (strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(env("OTEL_TRACES_EXPORTER"), "none")):
		return nil, nil
	case tracesEP != "":
		u, err := tracesURL(tracesEP, false)
		if err != nil {
			return nil, fmt.Errorf("otel: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=%s: %w", strconv.Quote(tracesEP), err)
		}
		c.URL = u
	case generic != "":
		u, err := tracesURL(generic, true)
		if err != nil {
			return nil, fmt.Errorf("otel: OTEL_EXPORTER_OTLP_ENDPOINT=%s: %w", strconv.Quote(generic), err)
		}
		c.URL = u
	case flagSet:
		c.URL = DefaultEndpoint + "/v1/traces"
	default:
		return nil, nil
	}
	if v, name := either("PROTOCOL"); v != "" {
		switch v {
		case ProtoHTTPProtobuf, ProtoHTTPJSON:
			c.Protocol = v
		case "grpc":
			return nil, fmt.Errorf("otel: %s=grpc: vx exports over OTLP/HTTP only; set it to http/protobuf or http/json (a collector's OTLP/HTTP port is 4318)", name)
		default:
			return nil, fmt.Errorf("otel: %s=%s: not a protocol; use http/protobuf or http/json", name, strconv.Quote(v))
		}
	}
	if v, name := either("HEADERS"); v != "" {
		h, err := parseList(v)
		if err != nil {
			return nil, fmt.Errorf("otel: %s: %w", name, err) // never the value: it holds credentials
		}
		c.Headers = h
	}
	if v, name := either("TIMEOUT"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return nil, fmt.Errorf("otel: %s=%s: not a number of milliseconds", name, strconv.Quote(v))
		}
		if ms > 0 { // 0 means no limit in the specification; vx keeps its default
			c.Timeout = time.Duration(ms) * time.Millisecond
		}
	}
	if v, name := either("COMPRESSION"); v != "" {
		switch v {
		case "gzip":
			c.Gzip = true
		case "none":
		default:
			return nil, fmt.Errorf("otel: %s=%s: use gzip or none", name, strconv.Quote(v))
		}
	}
	if v, name := either("CERTIFICATE"); v != "" {
		if !filepath.IsAbs(v) {
			return nil, fmt.Errorf("otel: %s=%s: name the file by its absolute path", name, strconv.Quote(v))
		}
		c.CAFile = v
	}
	service := "vx"
	var attrs []KeyValue
	if v := env("OTEL_RESOURCE_ATTRIBUTES"); v != "" {
		list, err := parseList(v)
		if err != nil {
			return nil, fmt.Errorf("otel: OTEL_RESOURCE_ATTRIBUTES: %w", err)
		}
		for _, kv := range list {
			if kv[0] == "service.name" {
				service = kv[1]
				continue
			}
			attrs = append(attrs, String(kv[0], kv[1]))
		}
	}
	if v := env("OTEL_SERVICE_NAME"); v != "" {
		service = v
	}
	c.Resource = append([]KeyValue{String("service.name", service)}, attrs...)
	return c, nil
}

// tracesURL checks an endpoint and, for a generic one (base), appends the traces path as the specification
// says: "http://host:4318" and "http://host:4318/" become "http://host:4318/v1/traces", "http://host/otlp"
// becomes "http://host/otlp/v1/traces". A base that already ends in /v1/traces is kept.
func tracesURL(s string, base bool) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("not an http:// or https:// URL")
	}
	if base && !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
		u.RawPath = ""
	}
	return u.String(), nil
}

// parseList parses the W3C Baggage-like list of OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES:
// key=value pairs separated by commas, values percent-decoded, spaces around each trimmed. An error does not
// quote the list (a header may be a token).
func parseList(s string) ([][2]string, error) {
	var out [][2]string
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("entry %d is not key=value", i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("entry %d (%s): the value is not percent-encoded correctly", i+1, strconv.Quote(k))
		}
		out = append(out, [2]string{k, dv})
	}
	return out, nil
}

// Redact returns the URL u without its user information and query, for messages.
func Redact(u string) string { return wire.Redact(u) }
