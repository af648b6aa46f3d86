#!/usr/bin/env bash
# The remote cache against a real REAPI server: builds bazel-remote v2.6.2
# from the tools module (bin/bazel-remote) and runs the end-to-end tests,
# which start it on free loopback ports with its store in a temporary
# directory. Here they must run, not skip.
set -euo pipefail
cd "$(dirname "$0")/.."
make bazel-remote
./bin/bazel-remote --help >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
go test -count=1 -v -run '^(TestRemote|TestBazelRemote)' ./cmd/vx/ ./internal/remote/ >"$out" 2>&1 || status=$?
grep -E '^(=== RUN|--- |ok|FAIL|PASS)' "$out" || true
if [ "$status" -ne 0 ]; then
	cat "$out"
	exit "$status"
fi
if grep -q -- '--- SKIP' "$out"; then
	grep -B2 -A3 -- '--- SKIP' "$out"
	echo "remote cache end-to-end tests skipped although bin/bazel-remote was built"
	exit 1
fi
