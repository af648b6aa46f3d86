// Package wire is the pipe between vx and its helper "vx-remote otel" (vx run --otel): frames, the hello, and
// what both sides need to agree on (the bounds, how a URL is shown). It imports nothing of vx, so that the helper
// links none of vx's run.
package wire
