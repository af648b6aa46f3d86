#!/usr/bin/env bash
# bench/trace.sh: what tracing a task (vx run --trace) costs, side by side
# with the same run untraced, on two workspaces it generates under
# bench/.cache/trace:
#
#   tsc      one project of BENCH_TRACE_FILES (300) TypeScript files built by
#            the real tsc (a global `tsc`, or `npm i -g typescript`), every
#            run with an empty store, so the task runs
#   no-op    BENCH_TRACE_N (100) projects whose build is `true`, every run
#            with an empty store
#
# Each pair is measured by hyperfine in one invocation (interleaved runs,
# the store removed before each): the median wall time and the mean CPU time
# (user + system, vx and its tasks), and the traced ÷ untraced ratios. On a
# loaded machine the CPU ratio is the steadier figure.
# Goal (issue 31): at most 1.3x on the tsc build. Nothing is asserted.
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
repo=$PWD
dir=$repo/bench/.cache/trace
runs=${BENCH_TRACE_RUNS:-10}
files=${BENCH_TRACE_FILES:-300}
n=${BENCH_TRACE_N:-100}
say() { echo "bench/trace: $*" >&2; }
command -v hyperfine >/dev/null || { say "hyperfine not found: skipped"; exit 0; }
[ "$(uname -s)" = Linux ] || { say "tracing is Linux-only: skipped"; exit 0; }
tsc=$(command -v tsc || true)
[ -n "$tsc" ] || { say "tsc not found (npm i -g typescript): skipped"; exit 0; }

rm -rf "$dir" && mkdir -p "$dir"
vx=$dir/vx
CGO_ENABLED=0 go build -trimpath -o "$vx" ./cmd/vx

# tsc: one project, a chain of modules that import each other.
ws=$dir/tsc
mkdir -p "$ws/app/src"
echo '{"name":"root","private":true,"workspaces":["app"]}' >"$ws/package.json"
echo '{"name":"app","version":"1.0.0","scripts":{"build":"tsc -p ."}}' >"$ws/app/package.json"
echo '{"compilerOptions":{"strict":true,"outDir":"dist","rootDir":"src","declaration":true,"target":"es2022","module":"es2022"},"include":["src"]}' >"$ws/app/tsconfig.json"
echo '{"tasks":{"build":{"outputs":["dist/**"]}}}' >"$ws/vx.json"
for i in $(seq 1 "$files"); do
	prev=$(( i > 1 ? i - 1 : 1 ))
	{
		[ "$i" -gt 1 ] && echo "import { f$prev } from './m$prev.js';"
		echo "export interface T$i { a: number; b: string; c: readonly number[] }"
		echo "export function f$i(x: T$i): number { return x.a + x.c.length$( [ "$i" -gt 1 ] && echo " + f$prev({ a: 1, b: '', c: [] })" ); }"
	} >"$ws/app/src/m$i.ts"
done
(cd "$ws" && git init -q && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)

# no-op: many projects, each build a no-op.
ws2=$dir/noop
mkdir -p "$ws2"
echo '{"name":"root","private":true,"workspaces":["p/*"]}' >"$ws2/package.json"
echo '{"tasks":{"build":{}}}' >"$ws2/vx.json"
for i in $(seq 1 "$n"); do
	mkdir -p "$ws2/p/p$i"
	echo "{\"name\":\"p$i\",\"version\":\"1.0.0\",\"scripts\":{\"build\":\"true\"}}" >"$ws2/p/p$i/package.json"
done
(cd "$ws2" && git init -q && git add -A && git -c user.email=b@b -c user.name=b commit -qm init)

measure() { # name workspace
	local name=$1 w=$2 json=$dir/$1.json
	hyperfine -w 1 -r "$runs" --export-json "$json" \
		--prepare "rm -rf $w/node_modules/.cache/vx $w/app/dist" \
		-n untraced "cd $w && $vx run build" \
		-n traced "cd $w && $vx run build --trace" >&2
	node -e '
		const r = require(process.argv[1]).results;
		const m = Object.fromEntries(r.map(x => [x.command, x.median]));
		// hyperfine 1.15 gives the mean user and system times as numbers.
		const cpu = Object.fromEntries(r.map(x => [x.command, x.user + x.system]));
		const ms = s => (s * 1000).toFixed(0) + " ms";
		console.log(`| ${process.argv[2]} | ${ms(m.untraced)} | ${ms(m.traced)} | ${(m.traced / m.untraced).toFixed(2)}x | ${ms(cpu.untraced)} | ${ms(cpu.traced)} | ${(cpu.traced / cpu.untraced).toFixed(2)}x |`);
	' "$json" "$name"
}
echo "| workspace | wall untraced | wall traced | ratio | CPU untraced | CPU traced | ratio |"
echo "|---|---|---|---|---|---|---|"
measure "tsc build, $files files" "$ws"
measure "$n no-op tasks" "$ws2"
