// node oracle.js PNPM...: writes pnpm.txt, the projects each pnpm selects
// for the rows of filters.txt, in the workspace ws/ after scenario.sh.
// node oracle.js --check PNPM: asks that pnpm again and fails when one of
// its answers is none of those pnpm.txt records for the row (.ci/run does
// this, so the table stays pnpm's own answers).
//
//   npm i --prefix /tmp/p12 pnpm@12 && npm i --prefix /tmp/p10 pnpm@10
//   node oracle.js /tmp/p12/node_modules/.bin/pnpm /tmp/p10/node_modules/.bin/pnpm
//
// The first pnpm given is the reference (TestFilterAgainstPnpm compares vx
// with it); each other pnpm gets a column with its answer where it differs,
// "=" where it agrees. An answer is what `pnpm ls -r --depth -1 --json
// --filter ...` lists when run in the row's directory, as project
// directories relative to the root ("-": none). `pnpm run` and `pnpm exec`
// add --filter '!{<root>}' when every filter starts with "!" (they leave
// the root out then; pnpm ls does not); this script does the same for such
// rows, so the table holds the projects `pnpm run` would run in.
"use strict";
const { spawnSync, execFileSync } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const check = process.argv[2] === "--check";
const pnpms = process.argv.slice(check ? 3 : 2);
if (pnpms.length === 0 || (check && pnpms.length !== 1)) {
  console.error("usage: node oracle.js PNPM... | node oracle.js --check PNPM");
  process.exit(2);
}
const here = __dirname;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "vx-oracle-"));
try {
  fs.cpSync(path.join(here, "ws"), path.join(tmp, "ws"), { recursive: true });
  execFileSync("sh", [path.join(here, "scenario.sh"), path.join(tmp, "ws")], { stdio: "inherit" });
  const root = fs.realpathSync(path.join(tmp, "ws"));
  const versions = pnpms.map((p) => "pnpm " + execFileSync(p, ["--version"]).toString().trim());
  const lines = ["# cwd\tfilters\t" + versions.join("\t")];
  for (const line of fs.readFileSync(path.join(here, "filters.txt"), "utf8").split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const [cwd, filters] = line.split("\t");
    const dir = path.join(root, cwd);
    const args = ["ls", "-r", "--depth", "-1", "--json"];
    for (const f of filters.split(" ")) args.push("--filter", f);
    if (filters.split(" ").every((f) => f.startsWith("!"))) {
      args.push("--filter", "!{" + (path.relative(dir, root) || ".") + "}");
    }
    const answers = pnpms.map((p) => {
      const r = spawnSync(p, args, { cwd: dir, encoding: "utf8" });
      let list;
      try { list = JSON.parse(r.stdout); } catch (e) { return "error"; }
      if (!Array.isArray(list)) return "error";
      const rels = list.map((x) => path.relative(root, x.path).split(path.sep).join("/") || ".").sort();
      return rels.length ? rels.join(" ") : "-";
    });
    lines.push([cwd, filters, answers[0], ...answers.slice(1).map((a) => (a === answers[0] ? "=" : a))].join("\t"));
  }
  if (check) {
    const recorded = new Map();
    for (const line of fs.readFileSync(path.join(here, "pnpm.txt"), "utf8").split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      const cols = line.split("\t");
      recorded.set(cols[0] + "\t" + cols[1], cols.slice(2).map((c) => (c === "=" ? cols[2] : c)));
    }
    let bad = 0;
    for (const line of lines.slice(1)) {
      const [cwd, filters, answer] = line.split("\t");
      const want = recorded.get(cwd + "\t" + filters);
      if (!want || !want.includes(answer)) {
        bad++;
        console.error(`${versions[0]} in ${cwd} with --filter ${filters}: ${answer}; pnpm.txt: ${want ? want.join(" | ") : "no row"}`);
      }
    }
    console.log(`${lines.length - 1 - bad} of ${lines.length - 1} rows agree with ${versions[0]}`);
    if (bad > 0) process.exitCode = 1;
  } else {
    fs.writeFileSync(path.join(here, "pnpm.txt"), lines.join("\n") + "\n");
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
