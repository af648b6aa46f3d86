// Package helper finds vx's helper programs: vx-remote (the remote cache's
// client) and vx-config (the evaluator of vx.config.ts). They are separate
// programs so that what they link (gRPC, esbuild) costs vx's own start-up
// nothing; `go install github.com/vxrun/vx/cmd/...`, the release archives
// and the npm packages put them beside vx.
package helper
