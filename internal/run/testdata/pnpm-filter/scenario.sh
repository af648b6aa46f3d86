#!/bin/sh
# scenario.sh DIR: makes the copy of ws/ at DIR a git repository with a
# history, the same for pnpm (oracle.sh) and vx (TestFilterAgainstPnpm):
#   base     the tag of the first commit: every file
#   HEAD     base + a change to packages/utils/src/index.ts and README.md
#   staged   tools/lint/index.js
#   unstaged apps/docs/README.md
# No untracked file: pnpm does not see them (vx does; see filter_test.go).
set -e
cd "$1"
export GIT_AUTHOR_NAME=vx GIT_AUTHOR_EMAIL=vx@example.com GIT_COMMITTER_NAME=vx GIT_COMMITTER_EMAIL=vx@example.com
export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git init -q .
git checkout -q -b main
git add -A
git commit -q -m base
git tag base
echo "export const y = 2" >> packages/utils/src/index.ts
echo "more" >> README.md
git commit -q -a -m "utils and readme"
echo "module.exports = { a: 1 }" > tools/lint/index.js
git add tools/lint/index.js
echo "more docs" >> apps/docs/README.md
