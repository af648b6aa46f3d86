#!/usr/bin/env bash
# bench/cache.sh: the task cache beside turbo's (part of `make bench`, also
# runnable alone). On one git repository of 200 packages x 250 source files
# (bench/gen -cache-files), both configured alike (build, dependsOn ^build,
# outputs dist/**), it measures with hyperfine:
#
#   keys cold    vx run build --dry-run with an empty store (no memo): every
#                key and whether the store has it
#   keys warm    vx run build --dry-run, nothing changed since the last run
#   turbo keys   turbo run build --dry=json
#   all hit      vx run build / turbo run build, every task in the cache
#
# and prints the medians and vx's ratios to turbo. turbo is installed with npm
# into bench/.cache/turbo (pinned, TURBO_VERSION) and runs with npm as the
# package manager; turbo 2.x no longer uses a daemon for `turbo run` (its
# --no-daemon flag is deprecated and does nothing), so there is none to turn
# off. Telemetry and update checks are off. Nothing is asserted.
#
# Knobs: BENCH_CACHE_ROUNDS (3), BENCH_CACHE_RUNS (5 per round),
# BENCH_CACHE_N (200), BENCH_CACHE_FILES (250), TURBO_VERSION (2.11.11).
# Writes the table to stdout and to $1 when given (appended).
set -euo pipefail
export LC_ALL=C TURBO_TELEMETRY_DISABLED=1 TURBO_NO_UPDATE_NOTIFIER=1 DO_NOT_TRACK=1
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

cd "$(dirname "$0")/.."
repo=$PWD
cache=$repo/bench/.cache
mkdir -p "$cache"
log=$cache/cache-bench.log
: >"$log"
rounds=${BENCH_CACHE_ROUNDS:-3}
runs=${BENCH_CACHE_RUNS:-5}
n=${BENCH_CACHE_N:-200}
files=${BENCH_CACHE_FILES:-250}
turbo_version=${TURBO_VERSION:-2.11.11}
out=${1:-}
say() { echo "bench/cache: $*" >&2; }

command -v hyperfine >/dev/null || { say "hyperfine not found: skipped"; exit 0; }
command -v git >/dev/null || { say "git not found: skipped"; exit 0; }

export CGO_ENABLED=0
go build -trimpath -o "$cache/vx" ./cmd/vx
go build -trimpath -o "$cache/gen" ./bench/gen

turbo=$cache/turbo/node_modules/.bin/turbo
if [ "$("$turbo" --version 2>/dev/null)" != "$turbo_version" ]; then
	say "installing turbo $turbo_version with npm into $cache/turbo"
	rm -rf "$cache/turbo" && mkdir -p "$cache/turbo"
	echo '{"private": true}' >"$cache/turbo/package.json"
	(cd "$cache/turbo" && npm install --no-audit --no-fund "turbo@$turbo_version") >>"$log" 2>&1 || true
fi
have_turbo=1
"$turbo" --version >/dev/null 2>&1 || { have_turbo=0; say "turbo could not be installed or does not run: vx alone"; }

ws=$cache/cachews
# The stamp names what the workspace was written with; raise gen_version
# when bench/gen writes it differently (2: npm's package-lock.json), so
# that an older one is written again.
gen_version=2
stamp=.bench-v$gen_version-$n-$files
if [ ! -f "$ws/$stamp" ]; then
	say "writing the workspace: $n packages x $files files"
	rm -rf "$ws" && mkdir -p "$ws"
	"$cache/gen" -n "$n" -cache-files "$files" "$ws"
	(cd "$ws" && git init -q && git add -A && git -c user.email=b@b -c user.name=bench -c commit.gpgsign=false commit -qm bench) >>"$log" 2>&1
	touch "$ws/.git/info/exclude" && echo ".bench-*" >>"$ws/.git/info/exclude"
	touch "$ws/$stamp"
fi
cd "$ws"
store=$ws/node_modules/.cache/vx
cold=$cache/cold-store
say "filling both caches (every build runs once)"
"$cache/vx" run build >>"$log" 2>&1
[ $have_turbo = 1 ] && "$turbo" run build >>"$log" 2>&1
# Check that the all-hit commands do hit.
"$cache/vx" run build 2>&1 | tail -n 1 | tee -a "$log" | grep "$n cached, 0 ran" >/dev/null || say "warning: vx's second run did not hit everywhere (see $log)"
if [ $have_turbo = 1 ]; then
	"$turbo" run build 2>&1 | tee -a "$log" | grep "$n cached, $n total" >/dev/null || say "warning: turbo's second run did not hit everywhere (see $log)"
fi

labels=("vx keys cold" "vx keys warm" "vx all hit")
cmds=("$cache/vx run build --dry-run --cache-dir $cold" "$cache/vx run build --dry-run" "$cache/vx run build")
if [ $have_turbo = 1 ]; then
	labels+=("turbo keys (--dry=json)" "turbo all hit")
	cmds+=("$turbo run build --dry=json" "$turbo run build")
fi
raw=$cache/cache-raw
rm -rf "$raw" && mkdir -p "$raw"
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
start=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	args=()
	k=${#labels[@]}
	for ((i = 0; i < k; i++)); do
		j=$(((i + r - 1) % k))
		prep=true
		[ $j = 0 ] && prep="rm -rf $cold"
		args+=(--prepare "$prep" -n "${labels[j]}" "${cmds[j]}")
	done
	say "round $r/$rounds"
	hyperfine -N --style basic --warmup 1 --runs "$runs" --export-csv "$raw/round-$r.csv" "${args[@]}" >>"$log" 2>&1
done
elapsed=$((SECONDS - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# The median of each round's median, per command.
median_of() { # label
	awk -F, -v l="$1" 'FNR > 1 && $1 == l { print $4 }' "$raw"/round-*.csv | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# And of user + system CPU time (hyperfine's mean per round), per command.
cpu_of() { # label
	awk -F, -v l="$1" 'FNR > 1 && $1 == l { print $5 + $6 }' "$raw"/round-*.csv | sort -g |
		awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
declare -A med cpu
for l in "${labels[@]}"; do
	med[$l]=$(median_of "$l")
	cpu[$l]=$(cpu_of "$l")
done
ratio() { # a b: wall, then CPU
	if [ -n "${med[$1]:-}" ] && [ -n "${med[$2]:-}" ]; then
		awk -v a="${med[$1]}" -v b="${med[$2]}" -v c="${cpu[$1]}" -v d="${cpu[$2]}" 'BEGIN { printf "%.2f | %.2f", a / b, c / d }'
	else
		echo "n/a | n/a"
	fi
}
table() {
	echo "| command | median wall (s) | CPU, user + system (s) |"
	echo "| --- | ---: | ---: |"
	for l in "${labels[@]}"; do printf '| %s | %.3f | %.3f |\n' "$l" "${med[$l]}" "${cpu[$l]}"; done
	echo
	if [ $have_turbo = 1 ]; then
		echo "| ratio | vx / turbo, wall | vx / turbo, CPU | goal |"
		echo "| --- | ---: | ---: | --- |"
		echo "| keys of all $n tasks, cold: vx keys cold / turbo keys | $(ratio "vx keys cold" "turbo keys (--dry=json)") | at most 0.25 |"
		echo "| every task hits: vx all hit / turbo all hit | $(ratio "vx all hit" "turbo all hit") | at most 0.25 |"
		echo "| warm keys: vx keys warm | $(printf "%.3f" "${med["vx keys warm"]}") s | $(printf "%.3f" "${cpu["vx keys warm"]}") s | under 0.15 s |"
	fi
}
{
	echo
	echo "## The task cache beside turbo"
	echo
	echo "$n packages x $files files in one git repository, every file committed; vx and turbo $([ $have_turbo = 1 ] && "$turbo" --version || echo '(skipped)') configured alike."
	echo "hyperfine -N, $rounds rounds x $runs runs, commands in a rotated order each round; the table gives the median of the rounds' medians."
	echo "Wall time of the measurements: ${elapsed} s; load average before: $load_before, after: $load_after."
	echo
	table
} | tee -a "${out:-/dev/null}"
