#!/usr/bin/env bash
# pnpm-answer.sh DIR: writes DIR/pnpm-answer.json, pnpm's own answer for the
# workspace at DIR: the projects `pnpm ls -r --depth -1 --json` lists, and
# for each the projects `--filter "{dir}^..."` selects (its dependencies,
# transitively, as pnpm's workspace graph links them). The Go tests compare
# what vx discovers with it. Made with pnpm 10.34.9; rerun after editing a
# fixture.
set -euo pipefail
dir=$(cd "$1" && pwd -P)
cd "$dir"
pnpm ls -r --depth -1 --json >/tmp/pnpm-answer-ls.$$
python3 - "$dir" /tmp/pnpm-answer-ls.$$ <<'PY' >pnpm-answer.json
import json, os, subprocess, sys
root, ls = sys.argv[1], sys.argv[2]
def rel(p):
    r = os.path.relpath(p, root).replace(os.sep, "/")
    return r
projects = sorted(rel(p["path"]) for p in json.load(open(ls)))
deps = {}
for p in projects:
    out = subprocess.run(["pnpm", "--filter", "{%s}^..." % p, "ls", "--depth", "-1", "--json"],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    got = json.loads(out) if out.strip() else []
    deps[p] = sorted(rel(d["path"]) for d in got)
print(json.dumps({"pnpm": subprocess.run(["pnpm", "--version"], capture_output=True, text=True).stdout.strip(),
                  "projects": projects, "dependencies": deps}, indent=2))
PY
rm -f /tmp/pnpm-answer-ls.$$
