// Package otel exports a run of vx as an OpenTelemetry trace (vx run --otel, or the standard
// OTEL_EXPORTER_OTLP_* variables): one trace per run, a root span for the run and a child span per task that
// started, sent over OTLP/HTTP in protobuf (http/protobuf, the default) or JSON (http/json) while the run goes.
//
// The package links no network code: it reads the configuration from the variables it is given ([FromEnv]; only
// cmd/vx reads the process's environment), records the spans ([Recorder], a [run.Observer]) and encodes them
// ([EncodeProto], [EncodeJSON]), and writes each encoded request as a frame to a pipe (package otel/wire). The helper
// program vx-remote, started only when a trace is exported ("vx-remote otel"), reads the frames and POSTs them
// (package otel/send), so that vx's own start-up links no net/http.
//
// The exporter never slows or breaks a run: spans wait in a bounded queue (when it is full, spans are dropped and
// counted; the root span carries the count), a request has a timeout, the helper says once on stderr when the
// collector is down or refuses, and the end of a run waits at most [FlushBound] for the last spans. vx's exit
// code never depends on the export.
//
// Precedence (the OpenTelemetry specification's, with vx's flag first): --otel=URL over
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as it is) over OTEL_EXPORTER_OTLP_ENDPOINT (with /v1/traces
// appended); the _TRACES_ variant of HEADERS, PROTOCOL and TIMEOUT over the generic one; OTEL_SERVICE_NAME over
// service.name in OTEL_RESOURCE_ATTRIBUTES. OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn off an
// export configured by the variables, never one asked for with --otel.
package otel
