#!/usr/bin/env bash
# bench/config.sh: what vx.config.ts costs beside vx.json (part of `make bench`,
# also runnable alone). Two git workspaces of N packages x F files
# (bench/gen -cache-files), the same build task in each: one configured by
# vx.json, the other by a vx.config.ts that imports a preset (./presets/build.ts)
# and reads .env with node's parseEnv into define, as docs/config.md shows. With
# hyperfine it measures:
#
#   warm, vx.json       vx run build, every task in the cache
#   warm, vx.config.ts  the same, the config's memo holding (no node starts)
#   node start-up       node -e 0
#   cold evaluation     vx config --fresh: vx-config bundles and node evaluates
#
# and prints the medians, warm vx.config.ts / warm vx.json (goal: at most 1.3)
# and cold evaluation minus node's start-up (goal: at most 50 ms). The two
# workspaces need different working directories, so each command is its own
# hyperfine call, the order rotating every round. Nothing is asserted.
#
# Knobs: BENCH_CONFIG_ROUNDS (3), BENCH_CONFIG_RUNS (10 per round),
# BENCH_CONFIG_N (10), BENCH_CONFIG_FILES (10). Writes the table to stdout and
# to $1 when given (appended).
set -euo pipefail
export LC_ALL=C

cd "$(dirname "$0")/.."
repo=$PWD
cache=$repo/bench/.cache
mkdir -p "$cache"
log=$cache/config-bench.log
: >"$log"
rounds=${BENCH_CONFIG_ROUNDS:-3}
runs=${BENCH_CONFIG_RUNS:-10}
n=${BENCH_CONFIG_N:-10}
files=${BENCH_CONFIG_FILES:-10}
out=${1:-}
say() { echo "bench/config: $*" >&2; }

command -v hyperfine >/dev/null || { say "hyperfine not found: skipped"; exit 0; }
command -v git >/dev/null || { say "git not found: skipped"; exit 0; }
command -v node >/dev/null || { say "node not found: skipped"; exit 0; }

export CGO_ENABLED=0
bin=$cache/config-bin
mkdir -p "$bin"
go build -trimpath -o "$bin/vx" ./cmd/vx
go build -trimpath -o "$bin/vx-config" ./cmd/vx-config # beside vx, where vx looks for it
go build -trimpath -o "$cache/gen" ./bench/gen

define='{"API_URL": "https://api.example.com", "SITE_NAME": "bench"}'
setup() { # dir: a fresh workspace, committed
	rm -rf "$1" && mkdir -p "$1"
	"$cache/gen" -n "$n" -cache-files "$files" "$1"
	rm -f "$1/turbo.json"
}
json=$cache/config-json
ts=$cache/config-ts
say "writing the workspaces: $n packages x $files files, vx.json and vx.config.ts"
setup "$json"
echo "{\"tasks\": {\"build\": {\"dependsOn\": [\"^build\"], \"outputs\": [\"dist/**\"], \"env\": {\"define\": $define}}}}" >"$json/vx.json"
setup "$ts"
rm "$ts/vx.json"
mkdir -p "$ts/presets"
cat >"$ts/presets/build.ts" <<'EOF'
import type { Task } from "@vxrun/vx";

export const build = (define: Record<string, string>): Task => ({ dependsOn: ["^build"], outputs: ["dist/**"], env: { define } });
EOF
cat >"$ts/vx.config.ts" <<'EOF'
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { defineConfig } from "@vxrun/vx";
import { build } from "./presets/build.ts";

const env = parseEnv(readFileSync(".env", "utf8"));
export default defineConfig({ tasks: { build: build(env) } });
EOF
printf 'API_URL=https://api.example.com\nSITE_NAME=bench\n' >"$ts/.env"
for ws in "$json" "$ts"; do
	(cd "$ws" && git init -q && git add -A && git -c user.email=b@b -c user.name=bench -c commit.gpgsign=false commit -qm bench) >>"$log" 2>&1
done
# The two configurations must be the same.
a=$(cd "$json" && "$bin/vx" config | sed -n '/"tasks"/,$p')
b=$(cd "$ts" && "$bin/vx" config 2>>"$log" | sed -n '/"tasks"/,$p')
[ "$a" = "$b" ] || { say "the two workspaces are not configured alike:"; diff <(echo "$a") <(echo "$b") >&2; exit 1; }
say "filling the caches"
for ws in "$json" "$ts"; do
	(cd "$ws" && "$bin/vx" run build >>"$log" 2>&1 && "$bin/vx" run build 2>&1 | tail -n 1 | tee -a "$log" | grep -q "$n cached, 0 ran") ||
		say "warning: the second run in $ws did not hit everywhere (see $log)"
done
(cd "$ts" && "$bin/vx" config | grep -q '"evaluation": "remembered"') || say "warning: the memo does not hold in $ts"

labels=("warm vx.json" "warm vx.config.ts" "node start-up" "cold evaluation")
dirs=("$json" "$ts" "$ts" "$ts")
cmds=("$bin/vx run build" "$bin/vx run build" "node -e 0" "$bin/vx config --fresh")
raw=$cache/config-raw
rm -rf "$raw" && mkdir -p "$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
start=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	say "round $r/$rounds"
	k=${#labels[@]}
	for ((i = 0; i < k; i++)); do
		j=$(((i + r - 1) % k))
		(cd "${dirs[j]}" && hyperfine -N --style basic --warmup 2 --runs "$runs" -n "${labels[j]}" \
			--export-csv "$raw/round-$r-$j.csv" "${cmds[j]}") >>"$log" 2>&1
	done
done
elapsed=$((SECONDS - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
# The cold evaluation must really have evaluated, the warm run not.
(cd "$ts" && "$bin/vx" config --fresh | grep -q '"evaluation": "evaluated"') || say "warning: vx config --fresh did not evaluate"

median_of() { # label: the median of the rounds' medians
	awk -F, -v l="$1" 'FNR > 1 && $1 == l { print $4 }' "$raw"/round-*.csv | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
declare -A med
for l in "${labels[@]}"; do med[$l]=$(median_of "$l"); done
{
	echo
	echo "## vx.config.ts beside vx.json"
	echo
	echo "$n packages x $files files in one git repository each, the same build task: vx.json, or a vx.config.ts importing a preset and reading .env with parseEnv into define."
	echo "hyperfine -N, $rounds rounds x $runs runs, one call per command (the working directories differ), the order rotating each round; the median of the rounds' medians. node $(node --version)."
	echo "Wall time of the measurements: ${elapsed} s; load average before: $load_before, after: $load_after."
	echo
	echo "| command | median wall (ms) |"
	echo "| --- | ---: |"
	for l in "${labels[@]}"; do printf '| %s | %.1f |\n' "$l" "$(awk -v x="${med[$l]}" 'BEGIN { print x * 1000 }')"; done
	echo
	echo "| figure | value | goal |"
	echo "| --- | ---: | --- |"
	awk -v a="${med["warm vx.config.ts"]}" -v b="${med["warm vx.json"]}" 'BEGIN { printf "| warm run, all hits: vx.config.ts / vx.json | %.2f | at most 1.3 |\n", a / b }'
	awk -v a="${med["cold evaluation"]}" -v b="${med["node start-up"]}" 'BEGIN { printf "| cold evaluation - node start-up | %.1f ms | at most 50 ms |\n", (a - b) * 1000 }'
} | tee -a "${out:-/dev/null}"
