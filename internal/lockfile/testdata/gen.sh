#!/usr/bin/env bash
# gen.sh PM [DIR]: writes the fixture workspace for PM (npm, pnpm, yarn for
# yarn 1, berry for yarn 4, bun) into DIR (default ./PM) and installs it with
# the real package manager to write its lockfile. The fixtures here were made
# with npm 11.19.1, pnpm 10.34.9, yarn 1.22.22, yarn 4.18.1 and bun 1.4.5.
# The projects: web -> ui (workspace), react 18 with a package peering on it,
# a scoped package, an npm: alias, is-odd (patched where the package manager
# patches: pnpm, berry, bun); docs -> react 17 and is-number 7, which
# conflict with web's; ui -> is-even from a tarball URL; the root -> ms (from
# pnpm's catalog) and an override (resolution) of js-tokens.
set -euo pipefail
pm=$1; d=$(realpath -m "${2:-$pm}"); here=$(dirname "$(realpath "$0")")
yarn1=${YARN1:-yarn}; yarn4=${YARN4:-yarn}
rm -rf "$d"; mkdir -p "$d/apps/web" "$d/apps/docs" "$d/packages/ui"
ws='"*"'; case $pm in pnpm|berry|bun) ws='"workspace:*"';; esac
isodd='"3.0.1"'
if [ "$pm" = berry ]; then
	isodd='"patch:is-odd@npm%3A3.0.1#~/.yarn/patches/is-odd-npm-3.0.1.patch"'
	mkdir -p "$d/.yarn/patches"; cp "$here/is-odd.patch" "$d/.yarn/patches/is-odd-npm-3.0.1.patch"
fi
if [ "$pm" = pnpm ] || [ "$pm" = bun ]; then
	mkdir -p "$d/patches"; cp "$here/is-odd.patch" "$d/patches/is-odd@3.0.1.patch"
fi
printf 'fund=false\n' > "$d/.npmrc"
ms='"2.1.3"'; [ "$pm" = pnpm ] && ms='"catalog:"'
override='"overrides": { "js-tokens": "4.0.0" },'
case $pm in yarn|berry) override='"resolutions": { "js-tokens": "4.0.0" },';; pnpm) override='';; esac
cat > "$d/package.json" <<J
{
  "name": "fixture",
  "private": true,
  "workspaces": ["apps/*", "packages/*"],
  $override
  "devDependencies": { "ms": $ms }
}
J
cat > "$d/apps/web/package.json" <<J
{
  "name": "web",
  "version": "1.0.0",
  "scripts": { "build": "node index.js" },
  "dependencies": { "ui": $ws, "is-odd": $isodd, "ms-old": "npm:ms@2.0.0", "react": "18.2.0",
    "use-sync-external-store": "1.2.0", "@isaacs/string-locale-compare": "1.1.0" }
}
J
echo 'console.log(require("ui"))' > "$d/apps/web/index.js"
cat > "$d/apps/docs/package.json" <<J
{
  "name": "docs",
  "version": "1.0.0",
  "dependencies": { "is-number": "7.0.0", "left-pad": "1.3.0", "react": "17.0.2" }
}
J
cat > "$d/packages/ui/package.json" <<J
{
  "name": "ui",
  "version": "1.0.0",
  "main": "index.js",
  "dependencies": { "is-number": "^6.0.0", "is-even": "https://registry.npmjs.org/is-even/-/is-even-1.0.0.tgz" }
}
J
echo 'module.exports = require("is-number")(1)' > "$d/packages/ui/index.js"
cd "$d"
case $pm in
npm) npm install --no-audit --no-fund --loglevel=error ;;
pnpm) printf 'packages:\n  - "apps/*"\n  - "packages/*"\npatchedDependencies:\n  is-odd@3.0.1: patches/is-odd@3.0.1.patch\ncatalog:\n  ms: 2.1.3\noverrides:\n  js-tokens: 4.0.0\n' > pnpm-workspace.yaml
      node -e 'const p=require("./package.json");delete p.workspaces;require("fs").writeFileSync("package.json",JSON.stringify(p,null,2)+"\n")'
      pnpm install --reporter=silent ;;
yarn) $yarn1 install --silent --no-progress ;;
berry) printf 'nodeLinker: node-modules\nenableTelemetry: false\nenableGlobalCache: false\n' > .yarnrc.yml
      touch yarn.lock; YARN_ENABLE_IMMUTABLE_INSTALLS=false $yarn4 install >/dev/null ;;
bun) node -e 'const p=require("./package.json");p.patchedDependencies={"is-odd@3.0.1":"patches/is-odd@3.0.1.patch"};require("fs").writeFileSync("package.json",JSON.stringify(p,null,2)+"\n")'
     bun install --save-text-lockfile >/dev/null ;;
esac
rm -rf node_modules apps/*/node_modules packages/*/node_modules .yarn/cache .yarn/install-state.gz
