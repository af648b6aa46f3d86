#!/usr/bin/env bash
# bench/run.sh: `make bench`. Measures `vx run noop` side by side with the Go floor
# (bench/floor), a plain shell loop, bun and npm on generated workspaces of
# N = 1, 10, 100 projects (and 1,000 for vx and the floor alone), prints one
# table and writes it to bench/results/<date>.md. Nothing is asserted.
# docs/performance.md explains the figures.
#
# Everything it installs or builds goes to bench/.cache/ (gitignored):
#   hyperfine and GNU time from Debian's packages when missing (falls back to a
#   bash loop timed with $EPOCHREALTIME when hyperfine cannot be had), bun from
#   the npm registry (skipped, saying so, when it cannot be installed or run).
#
# Then bench/cache.sh measures the task cache beside turbo's and appends its
# table (BENCH_CACHE=0 skips it), and bench/config.sh vx.config.ts beside
# vx.json (BENCH_CONFIG=0 skips it).
#
# Knobs (environment): BENCH_ROUNDS (default 3): rounds per size, the order of
# the commands rotating every round so that drift hits all alike;
# BENCH_NO_HYPERFINE=1 forces the bash-loop fallback; BENCH_SIZES (default
# "1 10 100 1000"); BENCH_OUT: the results file (default
# bench/results/<date>.md).
set -euo pipefail
export LC_ALL=C
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

cd "$(dirname "$0")/.."
repo=$PWD
cache=$repo/bench/.cache
raw=$cache/raw
log=$cache/run.log
rounds=${BENCH_ROUNDS:-3}
sizes=${BENCH_SIZES:-"1 10 100 1000"}
conc=2
out=${BENCH_OUT:-$repo/bench/results/$(date +%F).md}

mkdir -p "$cache" "$(dirname "$out")"
rm -rf "$raw" && mkdir -p "$raw"
: >"$log"
notes=()
note() { echo "bench: $*" >&2; notes+=("$*"); }
say() { echo "bench: $*" >&2; }

# --- tools -------------------------------------------------------------------
apt_install() { # pkg: install a Debian package when we are root and apt works
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
	say "installing $1 with apt-get"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >>"$log" 2>&1 ||
		{ apt-get update -qq >>"$log" 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >>"$log" 2>&1; }
}

hyperfine=
if [ "${BENCH_NO_HYPERFINE:-}" != 1 ]; then
	command -v hyperfine >/dev/null || apt_install hyperfine || true
	if command -v hyperfine >/dev/null && hyperfine --help | grep -q -- '--shell'; then
		hyperfine=$(command -v hyperfine)
	else
		note "hyperfine (with -N) not available: timing with a bash \$EPOCHREALTIME loop instead"
	fi
fi
timebin=/usr/bin/time
[ -x "$timebin" ] || apt_install time || true
if ! "$timebin" -f %M -o /dev/null true 2>/dev/null; then
	timebin=
	note "GNU time not available: no peak RSS"
fi

say "building vx and the Go floor"
export CGO_ENABLED=0 # as `make build` ships it
go build -trimpath -o "$cache/floor" ./bench/floor
go build -trimpath -o "$cache/gen" ./bench/gen
go build -trimpath -o "$cache/report" ./bench/report
# A Go hello world (fmt.Println), the start-up goal's yardstick: written and
# built here, so that it is no package of the module.
mkdir -p "$cache/hello-src"
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello, world") }\n' >"$cache/hello-src/main.go"
go build -trimpath -o "$cache/hello" "$cache/hello-src/main.go"
have_vx=1
if ! go build -trimpath -o "$cache/vx" ./cmd/vx >>"$log" 2>&1; then
	have_vx=0
	note "vx does not build (go build ./cmd/vx failed, see $log): vx skipped"
fi

bun=$cache/bun/node_modules/.bin/bun
if ! "$bun" --version >/dev/null 2>&1; then
	if command -v npm >/dev/null; then
		say "installing bun with npm into $cache/bun"
		rm -rf "$cache/bun" && mkdir -p "$cache/bun"
		echo '{"private": true}' >"$cache/bun/package.json"
		(cd "$cache/bun" && npm install --no-audit --no-fund bun) >>"$log" 2>&1 || true
	fi
fi
have_bun=1
"$bun" --version >/dev/null 2>&1 || { have_bun=0; note "bun could not be installed or does not run: bun skipped"; }
have_npm=1
command -v npm >/dev/null || { have_npm=0; note "npm not found: npm skipped"; }

# --- workspaces and commands -----------------------------------------------------
# Each command is a shell-quoted string, run by hyperfine without a shell (-N) or
# by eval in the fallback, with the workspace root as working directory.
label_vx="vx run noop --concurrency $conc"
label_floor="floor -c $conc (Go floor)"
label_sh="sh -c true per project, sequential shell loop"
label_bun="bun run --filter '*' noop"
label_bun1="bun run noop (in the project)"
label_npm="npm run noop --workspaces"
# Where the time of one run goes (N=1; the plan also at N=1000): a Go process
# that spawns nothing, vx's start, and vx's work short of spawning.
label_empty="floor with no project (a Go process start)"
label_hello="Go hello world"
label_version="vx --version"
label_dry="vx run noop --dry-run"

command_for() { # label n: prints the command line
	case $1 in
	"$label_vx") echo "$cache/vx run noop --concurrency $conc" ;;
	"$label_floor") echo "$cache/floor -c $conc $(cd "$cache/ws/$2" && echo packages/*)" ;;
	"$label_sh") echo "sh -c 'for d in packages/*/; do (cd \"\$d\" && exec sh -c true); done'" ;;
	"$label_bun") echo "$bun run --filter '*' noop" ;;
	"$label_bun1") echo "$bun run --cwd packages/p0001 noop" ;;
	"$label_npm") echo "npm run noop --workspaces" ;;
	"$label_empty") echo "$cache/floor" ;;
	"$label_hello") echo "$cache/hello" ;;
	"$label_version") echo "$cache/vx --version" ;;
	"$label_dry") echo "$cache/vx run noop --dry-run" ;;
	esac
}

# Every command must really run every project's script: check each once on a
# workspace whose script leaves a file behind, and skip the ones that do not.
"$cache/gen" -n 3 -script 'echo ran >ran.txt' "$cache/ws/check"
candidates=()
[ $have_vx = 1 ] && candidates+=("$label_vx")
candidates+=("$label_floor" "$label_sh")
[ $have_vx = 1 ] && candidates+=("$label_dry" "$label_version")
candidates+=("$label_empty" "$label_hello")
[ $have_bun = 1 ] && candidates+=("$label_bun" "$label_bun1")
[ $have_npm = 1 ] && candidates+=("$label_npm")
ok=()
for label in "${candidates[@]}"; do
	rm -f "$cache"/ws/check/packages/*/ran.txt
	cmd=$(command_for "$label" check)
	cmd=${cmd//sh -c true/sh -c \"echo ran >ran.txt\"}
	[ "$label" = "$label_floor" ] && cmd="$cache/floor -c $conc -script 'echo ran >ran.txt' packages/p0001 packages/p0002 packages/p0003"
	case $label in
	"$label_bun1") want=1 ;;
	"$label_empty" | "$label_hello" | "$label_version" | "$label_dry") want=0 ;;
	*) want=3 ;;
	esac
	if (cd "$cache/ws/check" && eval "$cmd") >>"$log" 2>&1 &&
		[ "$(ls "$cache"/ws/check/packages/*/ran.txt 2>/dev/null | wc -l)" = $want ]; then
		ok+=("$label")
	else
		note "\`$label\` failed or did not run every project's script in a check workspace (see $log): skipped"
	fi
done

# Runs per hyperfine call (per round) by size: about 2 minutes per size at most.
runs_for() { case $1 in 1 | 10) echo 10 ;; 100) echo 4 ;; *) echo 2 ;; esac; }
rss_runs_for() { case $1 in 1000) echo 2 ;; *) echo 3 ;; esac; }

measure_hyperfine() { # file n round labels...
	local file=$1 n=$2 round=$3 args=() label warmup=1
	shift 3
	[ "$n" -ge 1000 ] && warmup=0
	for label; do args+=(-n "$label" "$(command_for "$label" "$n")"); done
	(cd "$cache/ws/$n" && "$hyperfine" -N --style basic --warmup $warmup --runs "$(runs_for "$n")" \
		--export-json "$file" "${args[@]}") >>"$log" 2>&1
}

measure_loop() { # file n round labels...: runs alternate command by command
	local file=$1 n=$2 round=$3 label t0 t1 d k
	shift 3
	local labels=("$@") cmds=()
	for label; do cmds+=("$(command_for "$label" "$n")"); done
	(
		cd "$cache/ws/$n"
		for ((k = 0; k < $(runs_for "$n"); k++)); do
			for i in "${!cmds[@]}"; do
				t0=${EPOCHREALTIME/./}
				if eval "${cmds[i]}" >/dev/null 2>&1; then
					t1=${EPOCHREALTIME/./}
					d=$((t1 - t0))
					printf '%s\t%d.%06d\n' "${labels[i]}" $((d / 1000000)) $((d % 1000000)) >>"$file"
				else
					echo "failed: ${labels[i]} (N=$n)" >>"$log"
				fi
			done
		done
	)
}

start=$SECONDS
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for n in $sizes; do
	"$cache/gen" -n "$n" "$cache/ws/$n"
	labels=()
	for label in "${ok[@]}"; do
		# 1,000 projects: vx and the floor alone (and vx's plan); the rows
		# that do not depend on N: at N=1 alone.
		case $label in
		"$label_vx" | "$label_floor") ;;
		"$label_dry") [ "$n" = 1 ] || [ "$n" -ge 1000 ] || continue ;;
		"$label_bun1" | "$label_empty" | "$label_hello" | "$label_version") [ "$n" = 1 ] || continue ;;
		*) [ "$n" -lt 1000 ] || continue ;;
		esac
		labels+=("$label")
	done
	[ ${#labels[@]} -gt 0 ] || continue
	for ((r = 1; r <= rounds; r++)); do
		# Rotate the order every round.
		order=("${labels[@]:$(((r - 1) % ${#labels[@]}))}" "${labels[@]:0:$(((r - 1) % ${#labels[@]}))}")
		say "N=$n round $r/$rounds: ${#order[@]} commands"
		if [ -n "$hyperfine" ]; then
			measure_hyperfine "$raw/time-$n-$r.json" "$n" "$r" "${order[@]}"
		else
			measure_loop "$raw/time-$n-$r.tsv" "$n" "$r" "${order[@]}"
		fi
	done
	if [ -n "$timebin" ]; then
		say "N=$n peak RSS"
		for ((k = 0; k < $(rss_runs_for "$n"); k++)); do
			for label in "${labels[@]}"; do
				cmd=$(command_for "$label" "$n")
				if (cd "$cache/ws/$n" && eval "$timebin -f %M -o \"$raw/rss.tmp\" $cmd") >/dev/null 2>&1; then
					printf '%s\t%s\n' "$label" "$(tail -n 1 "$raw/rss.tmp")" >>"$raw/rss-$n.tsv"
				fi
			done
		done
	fi
done
elapsed=$((SECONDS - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --- report --------------------------------------------------------------------
table=$("$cache/report" -vx "$label_vx" -floor "$label_floor" -version "$label_version" -hello "$label_hello" "$raw")
echo
echo "$table"
{
	echo "# vx benchmark, $(date '+%F %H:%M %Z')"
	echo
	echo "Written by \`make bench\` (bench/run.sh); see docs/performance.md. Nothing here is asserted."
	echo
	echo "- machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), Linux $(uname -r)"
	echo "- vx: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- cmd internal exec workspace 2>/dev/null || echo ' (with uncommitted changes)'), $(go version | cut -d' ' -f3), CGO_ENABLED=0, -trimpath"
	echo "- timing: ${hyperfine:+$($hyperfine --version), }$rounds rounds per size, commands in a rotated order each round; runs per round: N=1,10: $(runs_for 1), N=100: $(runs_for 100), N=1000: $(runs_for 1000)"
	echo "- peak RSS: GNU time %M (largest single process of the tree), max of $(rss_runs_for 1) runs ($(rss_runs_for 1000) at N=1000)"
	echo "- peers: $([ $have_bun = 1 ] && echo "bun $("$bun" --version)" || echo 'bun skipped'), $([ $have_npm = 1 ] && echo "npm $(npm --version) on node $(node --version)" || echo 'npm skipped')"
	echo "- concurrency: vx and the floor $conc; the shell loop and npm run one at a time; bun runs its filtered scripts in parallel"
	echo "- wall time of the measurements: ${elapsed} s; load average (1, 5, 15 min) before: $load_before, after: $load_after"
	for n in "${notes[@]}"; do echo "- note: $n"; done
	echo
	echo "$table"
} >"$out"
if [ "${BENCH_CACHE:-1}" != 0 ]; then
	say "the task cache beside turbo (bench/cache.sh; BENCH_CACHE=0 skips it)"
	"$repo/bench/cache.sh" "$out" || note "bench/cache.sh failed (see bench/.cache/cache-bench.log)"
fi
if [ "${BENCH_CONFIG:-1}" != 0 ]; then
	say "vx.config.ts beside vx.json (bench/config.sh; BENCH_CONFIG=0 skips it)"
	"$repo/bench/config.sh" "$out" || note "bench/config.sh failed (see bench/.cache/config-bench.log)"
fi
say "results written to ${out#"$repo"/}"
