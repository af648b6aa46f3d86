#!/usr/bin/env bash
# gen.sh PM: writes a fixture workspace for PM into ./PM and installs to make its lockfile
set -euo pipefail
pm=$1; d=/tmp/fx/$pm; rm -rf "$d"; mkdir -p "$d/apps/web" "$d/apps/docs" "$d/packages/ui"
ws='"*"'; case $pm in pnpm|berry|bun) ws='"workspace:*"';; esac
cat > "$d/package.json" <<J
{
  "name": "fixture",
  "private": true,
  "workspaces": ["apps/*", "packages/*"],
  "devDependencies": { "ms": "2.1.3" }
}
J
cat > "$d/apps/web/package.json" <<J
{
  "name": "web",
  "version": "1.0.0",
  "scripts": { "build": "node index.js" },
  "dependencies": { "ui": $ws, "is-odd": "3.0.1", "ms-old": "npm:ms@2.0.0" }
}
J
echo 'console.log(require("ui"))' > "$d/apps/web/index.js"
cat > "$d/apps/docs/package.json" <<J
{
  "name": "docs",
  "version": "1.0.0",
  "dependencies": { "is-number": "7.0.0", "left-pad": "1.3.0" }
}
J
cat > "$d/packages/ui/package.json" <<J
{
  "name": "ui",
  "version": "1.0.0",
  "main": "index.js",
  "dependencies": { "is-number": "^6.0.0" }
}
J
echo 'module.exports = require("is-number")(1)' > "$d/packages/ui/index.js"
cd "$d"
case $pm in
npm) npm install --no-audit --no-fund --loglevel=error ;;
pnpm) printf 'packages:\n  - "apps/*"\n  - "packages/*"\n' > pnpm-workspace.yaml
      node -e 'const p=require("./package.json");delete p.workspaces;require("fs").writeFileSync("package.json",JSON.stringify(p,null,2)+"\n")'
      pnpm install --reporter=silent ;;
yarn) node /usr/lib/node_modules/yarn/bin/yarn.js install --silent --no-progress ;;
berry) printf 'nodeLinker: node-modules\nenableTelemetry: false\nenableGlobalCache: false\n' > .yarnrc.yml
      touch yarn.lock; YARN_ENABLE_IMMUTABLE_INSTALLS=false yarn install >/dev/null ;;
bun) bun install --save-text-lockfile >/dev/null ;;
esac
rm -rf node_modules apps/*/node_modules packages/*/node_modules .yarn/cache .yarn/install-state.gz
ls -a "$d"
