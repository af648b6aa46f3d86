package otel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFromEnv(t *testing.T) {
	vx := []KeyValue{String("service.name", "vx")}
	ca := filepath.Join(os.TempDir(), "collector-ca.pem") // absolute on every system
	tests := []struct {
		name    string
		flag    bool
		flagURL string
		env     map[string]string
		want    *Config // nil: no export
		err     string
	}{
		{name: "nothing asks", want: nil},
		{name: "--otel alone: a collector on this machine", flag: true,
			want: &Config{URL: "http://localhost:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "--otel=URL is a base: /v1/traces appended", flag: true, flagURL: "http://collector:4318",
			want: &Config{URL: "http://collector:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "--otel=URL with a path and a slash", flag: true, flagURL: "https://otel.example.com/otlp/",
			want: &Config{URL: "https://otel.example.com/otlp/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "--otel=URL already the traces endpoint", flag: true, flagURL: "http://c:4318/v1/traces",
			want: &Config{URL: "http://c:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "the generic endpoint gets /v1/traces", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: &Config{URL: "http://c:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "the traces endpoint is used as it is", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom"},
			want: &Config{URL: "http://c:4318/custom", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "the traces endpoint over the generic one", env: map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT": "http://generic:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:4318/v1/traces"},
			want: &Config{URL: "http://traces:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "--otel=URL over the variables", flag: true, flagURL: "http://flag:4318", env: map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:4318/v1/traces"},
			want: &Config{URL: "http://flag:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "--otel alone takes the variables' endpoint", flag: true, env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"},
			want: &Config{URL: "http://env:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "OTEL_SDK_DISABLED turns the variables off", env: map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "OTEL_TRACES_EXPORTER=none turns the variables off", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}},
		{name: "but not --otel", flag: true, env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"},
			want: &Config{URL: "http://c:4318/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "headers, percent-decoded; the traces ones win", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c",
			"OTEL_EXPORTER_OTLP_HEADERS": "x-generic=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": " Authorization=Bearer%20t0k , x-team=web=1"},
			want: &Config{URL: "http://c/v1/traces", Headers: [][2]string{{"Authorization", "Bearer t0k"}, {"x-team", "web=1"}},
				Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "generic headers", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "a=b"},
			want: &Config{URL: "http://c/v1/traces", Headers: [][2]string{{"a", "b"}}, Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "json; the traces protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"},
			want: &Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPJSON, Timeout: DefaultTimeout, Resource: vx}},
		{name: "timeout in milliseconds", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_TIMEOUT": "1500"},
			want: &Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: 1500 * time.Millisecond, Resource: vx}},
		{name: "service name and resource attributes", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c",
			"OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored,deployment.environment=ci,vcs.ref=refs%2Fheads%2Fmain", "OTEL_SERVICE_NAME": "monorepo-ci"},
			want: &Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout,
				Resource: []KeyValue{String("service.name", "monorepo-ci"), String("deployment.environment", "ci"), String("vcs.ref", "refs/heads/main")}}},
		{name: "service.name from the resource attributes", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c",
			"OTEL_RESOURCE_ATTRIBUTES": "service.name=builds"},
			want: &Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: []KeyValue{String("service.name", "builds")}}},
		{name: "gzip, and a CA file", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip",
			"OTEL_EXPORTER_OTLP_CERTIFICATE": ca},
			want: &Config{URL: "https://c/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Gzip: true, CAFile: ca, Resource: vx}},
		{name: "compression none", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_COMPRESSION": "none"},
			want: &Config{URL: "http://c/v1/traces", Protocol: ProtoHTTPProtobuf, Timeout: DefaultTimeout, Resource: vx}},
		{name: "an unknown compression", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"},
			err: `otel: OTEL_EXPORTER_OTLP_COMPRESSION="zstd": use gzip or none`},
		{name: "a relative CA file", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_CERTIFICATE": "ca.pem"},
			err: `otel: OTEL_EXPORTER_OTLP_CERTIFICATE="ca.pem": name the file by its absolute path`},
		{name: "grpc is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			err: "otel: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: vx exports over OTLP/HTTP only"},
		{name: "an unknown protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "udp"},
			err: `otel: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL="udp": not a protocol`},
		{name: "not a URL", flag: true, flagURL: "localhost:4318", err: `otel: --otel="localhost:4318": not an http:// or https:// URL`},
		{name: "a bad endpoint variable", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "grpc://c:4317"},
			err: `otel: OTEL_EXPORTER_OTLP_ENDPOINT="grpc://c:4317": not an http:// or https:// URL`},
		{name: "a bad header never shows its value", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "a=1,secret-token"},
			err: "otel: OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value"},
		{name: "a bad timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_TIMEOUT": "10s"},
			err: `otel: OTEL_EXPORTER_OTLP_TIMEOUT="10s": not a number of milliseconds`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromEnv(tt.flag, tt.flagURL, func(k string) string { return tt.env[k] })
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v, want one that starts with %q", err, tt.err)
				}
				if strings.Contains(err.Error(), "secret-token") {
					t.Errorf("the error shows a header: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	if got, want := Redact("https://user:pw@c.example.com:4318/v1/traces?token=x"), "https://c.example.com:4318/v1/traces"; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}
