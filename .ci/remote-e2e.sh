#!/usr/bin/env bash
# The remote cache against real servers: builds bazel-remote v2.6.2 from the
# tools module (bin/bazel-remote, REAPI) and installs ducktors'
# turborepo-remote-cache 2.12.0 from the npm registry
# (bin/turborepo-remote-cache, turbo's HTTP API; npm ci, timed), then runs the
# end-to-end tests, which start them on free loopback ports with their
# stores in temporary directories. Here they must run, not skip.
set -euo pipefail
cd "$(dirname "$0")/.."
make bazel-remote
./bin/bazel-remote --help >/dev/null
start=$(date +%s)
make turbo-remote-cache
echo "turborepo-remote-cache installed in $(($(date +%s) - start))s"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
go test -count=1 -v -run '^(TestRemote|TestBazelRemote|TestTurboRemote|TestTurboServerHangs)' ./cmd/vx/ ./internal/remote/ >"$out" 2>&1 || status=$?
grep -E '^(=== RUN|--- |ok|FAIL|PASS)' "$out" || true
if [ "$status" -ne 0 ]; then
	cat "$out"
	exit "$status"
fi
if grep -q -- '--- SKIP' "$out"; then
	grep -B2 -A3 -- '--- SKIP' "$out"
	echo "remote cache end-to-end tests skipped although bin/bazel-remote was built and turborepo-remote-cache installed"
	exit 1
fi
