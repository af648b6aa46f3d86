// Package send is the sending side of vx's OpenTelemetry export, run by the helper "vx-remote otel": it reads
// the frames vx writes ([wire.WriteFrame]: a hello, then request bodies) and POSTs each body to the collector
// over OTLP/HTTP with net/http, so that vx itself links no HTTP client.
//
// It never holds vx up: bodies wait in a bounded queue (when it is full, a body is dropped), each request has
// the hello's timeout, the first failure (the collector is down, refuses, answers an error) is said once on
// stderr, and once the pipe closes what is left is sent within the hello's flush bound and the rest dropped.
package send
