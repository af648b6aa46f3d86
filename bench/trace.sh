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
# Each pair is measured by hyperfine, interleaved (round by round, one run
# of each, the store removed before each run): the median wall time and the
# mean CPU time (user + system, vx and its tasks), and the traced ÷
# untraced ratios. On a loaded machine the CPU ratio is the steadier
# figure. BENCH_TRACE_BEFORE=<git revision> also builds vx at that revision
# and measures its traced run in the same rounds ("before" columns: wall,
# CPU, and their ratios to this untraced run), to show a change to tracing
# side by side. Goal (issue 31): at most 1.3x on the tsc build and on the
# no-op run. Nothing is asserted.
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
before=${BENCH_TRACE_BEFORE:-}
if [ -n "$before" ]; then
	mkdir -p "$dir/before-src"
	git archive "$before" | tar -x -C "$dir/before-src"
	(cd "$dir/before-src" && CGO_ENABLED=0 go build -trimpath -o "$dir/vx-before" ./cmd/vx)
fi

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
	local name=$1 w=$2 out=$dir/$1 i c
	local names=(untraced traced) cmds=("cd $w && $vx run build" "cd $w && $vx run build --trace")
	if [ -n "$before" ]; then
		names+=(before) cmds+=("cd $w && $dir/vx-before run build --trace")
	fi
	rm -rf "$out" && mkdir -p "$out"
	# Interleaved: round by round, one run of each command, in turn forwards
	# and backwards, so that the machine's load drifts over all alike.
	# Round 0 warms up and is not counted.
	for i in $(seq 0 "$runs"); do
		local order=$(seq 0 $((${#names[@]} - 1)))
		[ $((i % 2)) = 0 ] || order=$(echo "$order" | tac)
		for c in $order; do
			hyperfine -r 1 -w 0 -N --export-json "$out/$i-${names[c]}.json" \
				--prepare "rm -rf $w/node_modules/.cache/vx $w/app/dist" \
				-n "${names[c]}" "bash -c '${cmds[c]}'" >/dev/null 2>&1
		done
	done
	node -e '
		const fs = require("fs"), dir = process.argv[1];
		const runs = {};
		for (const f of fs.readdirSync(dir)) {
			if (f.startsWith("0-")) continue; // the warm-up round
			const r = JSON.parse(fs.readFileSync(dir + "/" + f)).results[0];
			(runs[r.command] ??= []).push({ wall: r.times[0], cpu: r.user + r.system });
		}
		const median = a => { a = [...a].sort((x, y) => x - y); const h = a.length >> 1; return a.length % 2 ? a[h] : (a[h - 1] + a[h]) / 2; };
		const m = {}, cpu = {};
		for (const [k, v] of Object.entries(runs)) {
			m[k] = median(v.map(x => x.wall));
			cpu[k] = v.reduce((s, x) => s + x.cpu, 0) / v.length;
		}
		const ms = s => (s * 1000).toFixed(0) + " ms";
		const x = (a, b) => (a / b).toFixed(2) + "x";
		let row = `| ${process.argv[2]} | ${ms(m.untraced)} | ${ms(m.traced)} | ${x(m.traced, m.untraced)} | ${ms(cpu.untraced)} | ${ms(cpu.traced)} | ${x(cpu.traced, cpu.untraced)} |`;
		if (m.before) row += ` ${ms(m.before)} | ${x(m.before, m.untraced)} | ${ms(cpu.before)} | ${x(cpu.before, cpu.untraced)} |`;
		console.log(row);
	' "$out" "$name"
}
echo "load average before: $(cut -d" " -f1-3 /proc/loadavg)"
if [ -n "$before" ]; then
	echo "| workspace | wall untraced | wall traced | ratio | CPU untraced | CPU traced | ratio | wall traced before | ratio | CPU traced before | ratio |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
else
	echo "| workspace | wall untraced | wall traced | ratio | CPU untraced | CPU traced | ratio |"
	echo "|---|---|---|---|---|---|---|"
fi
measure "tsc build, $files files" "$ws"
measure "$n no-op tasks" "$ws2"
echo "load average after: $(cut -d" " -f1-3 /proc/loadavg)"
