#!/usr/bin/env bash
# The npm packages end to end, offline from the registry's point of view: make
# npm builds every package; then, in fresh copies of the bundled example
# workspace, npm and pnpm install @vxrun/vx and this machine's platform
# package from the tarballs, and `npx vx` / `pnpm exec vx` must print what the
# Go-built binary prints. `npm install --ignore-scripts` must give a working
# vx too (the Node.js launcher instead of the native binary in its place).
# Then make dist: the archives from the same binaries, checked with sha256sum -c.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=0.0.0-ci.1
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

[ -n "${SKIP_MAKE_NPM:-}" ] || make npm VERSION=$version
case "$(uname -m)" in x86_64) cpu=x64 ;; aarch64 | arm64) cpu=arm64 ;; *) echo "no package for $(uname -m)"; exit 1 ;; esac
os=$(uname -s | tr '[:upper:]' '[:lower:]')
main_tgz=$repo/dist/npm/vxrun-vx-$version.tgz
plat_tgz=$repo/dist/npm/vxrun-vx-$os-$cpu-$version.tgz
native=$repo/dist/bin/${os}_$( [ $cpu = x64 ] && echo amd64 || echo arm64 )/vx

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The oracle is the Go-built binary, run in the same directory. Durations
# vary run to run; pnpm adds warnings of its own; the cache would make the
# second run a hit, so neither uses it.
norm() { sed -E -e 's/ in [0-9.]+(ms|s|µs)$/ in <t>/' -e '/^[^a-zA-Z|]{0,8}WARN/d'; }
want_version=$("$native" --version)
[ "$want_version" = "vx v$version" ] || { echo "stamped version: $want_version"; exit 1; }

check() { # name dir command...: vx --version and vx run build through the installed package
	local name=$1 dir=$2
	shift 2
	local got want_build
	want_build=$(cd "$dir" && "$native" run build --concurrency 1 --no-cache 2>&1 | norm)
	got=$(cd "$dir" && "$@" --version)
	[ "$got" = "$want_version" ] || { echo "$name: --version printed '$got', want '$want_version'"; exit 1; }
	got=$(cd "$dir" && "$@" run build --concurrency 1 --no-cache 2>&1 | norm)
	[ "$got" = "$want_build" ] || { echo "$name: run build differs from the Go-built binary:"; diff <(echo "$want_build") <(echo "$got"); exit 1; }
	# vx finds its remote-cache helper, vx-remote, in the installed package.
	got=$(cd "$dir" && "$@" cache status --remote-cache grpc://127.0.0.1:1 2>&1)
	case $got in *"helper vx-remote is not"*) echo "$name: vx-remote not found: $got"; exit 1 ;; *capabilities*) ;; *) echo "$name: cache status: $got"; exit 1 ;; esac
	echo "$name: ok"
}

cp -r examples/monorepo "$work/npm"
(cd "$work/npm" && npm install -D --loglevel=error "$main_tgz" "$plat_tgz")
for b in vx vx-remote vx-config; do
	head -c 4 "$work/npm/node_modules/@vxrun/vx/bin/$b" | grep -q ELF || { echo "npm: postinstall did not put the native $b in place"; exit 1; }
done
check "npm (npx vx)" "$work/npm" npx vx
cmp "$work/npm/node_modules/@vxrun/vx/vx.schema.json" vx.schema.json || { echo "npm: @vxrun/vx does not carry vx.schema.json"; exit 1; }
# The module vx.config.ts imports, for node and for tsc (its types).
(cd "$work/npm" && node --input-type=module -e 'import { defineConfig } from "@vxrun/vx"; if (defineConfig({ tasks: {} }).tasks === undefined) process.exit(1);') || { echo "npm: @vxrun/vx does not import"; exit 1; }
(cd "$work/npm" && node -e 'if (require("@vxrun/vx").defineProject({}) === undefined) process.exit(1);') || { echo "npm: @vxrun/vx does not require"; exit 1; }
[ -f "$work/npm/node_modules/@vxrun/vx/index.d.ts" ] || { echo "npm: @vxrun/vx has no types"; exit 1; }

cp -r examples/monorepo "$work/npm-ignore-scripts"
(cd "$work/npm-ignore-scripts" && npm install -D --ignore-scripts --loglevel=error "$main_tgz" "$plat_tgz")
head -2 "$work/npm-ignore-scripts/node_modules/@vxrun/vx/bin/vx" | grep -q node || { echo "--ignore-scripts: the launcher is not in place"; exit 1; }
check "npm --ignore-scripts (npx vx)" "$work/npm-ignore-scripts" npx vx
check "npm --ignore-scripts (.bin/vx)" "$work/npm-ignore-scripts" ./node_modules/.bin/vx

command -v pnpm >/dev/null || npm install -g --loglevel=error pnpm@10
cp -r examples/monorepo "$work/pnpm"
(cd "$work/pnpm" && pnpm add -D --reporter=silent "$main_tgz" "$plat_tgz")
check "pnpm (pnpm exec vx)" "$work/pnpm" pnpm exec vx
echo "npm packages: every install runs vx as the Go-built binary does"

# Release archives from the same binaries: every archive listed in checksums.txt, every sum right.
make dist VERSION=$version
(cd dist/archives && sha256sum -c checksums.txt && [ "$(wc -l <checksums.txt)" -eq 6 ])
tar -xzOf "dist/archives/vx_${version}_${os}_$( [ $cpu = x64 ] && echo amd64 || echo arm64 ).tar.gz" vx >"$work/vx-from-archive"
chmod +x "$work/vx-from-archive"
[ "$("$work/vx-from-archive" --version)" = "$want_version" ] || { echo "the archive's binary is not the stamped one"; exit 1; }
echo "release archives: ok"
