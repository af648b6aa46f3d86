// Package oteltest starts a real OpenTelemetry collector for vx's end-to-end tests: bin/otelcol, built by `make
// otelcol` from tools/otelcol (the collector's own OTLP/HTTP receiver, go.opentelemetry.io/collector's
// otlpreceiver, which prints every trace it accepts as OTLP JSON). A test without it skips with one line, or
// fails under CI=true ([testtool.Missing]).
package oteltest
