// pnpm-oracle.mjs VX DIR: checks vx against pnpm on the installed pnpm
// workspace at DIR, and exits non-zero on any difference:
//   1. the projects: `vx ls --json` lists exactly the directories
//      `pnpm ls -r --depth -1 --json` lists;
//   2. the ^build order: for every project with a build script, the builds
//      vx's plan runs before it (its dependsOn, transitively) are exactly
//      those of the projects pnpm's graph puts before it
//      (`pnpm --filter "{dir}^..."`) that have a build script;
//   3. a real run: `vx run build` finishes every such build before the
//      project's own (order.log, written by the builds).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { relative, resolve } from 'node:path';

const [vx, dir] = process.argv.slice(2).map((p) => resolve(p));
const run = (cmd, args) => execFileSync(cmd, args, { cwd: dir, encoding: 'utf8' });
const rel = (p) => relative(dir, p).split('\\').join('/') || '.';
let failed = false;
const fail = (msg) => { console.error('pnpm-oracle: ' + msg); failed = true; };
const same = (a, b) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());

// 1. projects
const pnpmProjects = JSON.parse(run('pnpm', ['ls', '-r', '--depth', '-1', '--json'])).map((p) => rel(p.path));
const vxProjects = JSON.parse(run(vx, ['ls', '--json'])).projects.map((p) => p.path);
if (!same(pnpmProjects, vxProjects)) fail(`projects differ:\n  pnpm: ${pnpmProjects.sort()}\n  vx:   ${vxProjects.sort()}`);
else console.log(`projects: ${pnpmProjects.length}, the same as pnpm's`);

// 2. the plan's order
const scripts = new Map();
for (const p of pnpmProjects) {
  const m = JSON.parse(readFileSync(resolve(dir, p, 'package.json'), 'utf8'));
  scripts.set(p, { name: m.name, build: Boolean(m.scripts && m.scripts.build) });
}
const plan = JSON.parse(run(vx, ['run', 'build', '--dry-run=json'])).tasks;
const byId = new Map(plan.map((t) => [t.id, t]));
const before = (t, seen = new Set()) => {
  for (const d of t.dependsOn) if (!seen.has(d)) { seen.add(d); before(byId.get(d), seen); }
  return seen;
};
let checked = 0;
const pnpmOrder = new Map(); // project name -> names of the builds pnpm puts before it
for (const t of plan) {
  const p = rel(t.dir);
  if (p === '.') continue; // the root's own build is not part of pnpm -r
  const pnpmBefore = JSON.parse(run('pnpm', ['--filter', `{${p}}^...`, 'ls', '--depth', '-1', '--json']) || '[]')
    .map((q) => rel(q.path)).filter((q) => scripts.get(q)?.build);
  const vxBefore = [...before(t)].map((id) => rel(byId.get(id).dir));
  if (!same(pnpmBefore, vxBefore)) fail(`${t.id}: pnpm builds [${pnpmBefore.sort()}] before it, vx [${vxBefore.sort()}]`);
  else checked++;
  pnpmOrder.set(t.project, pnpmBefore.map((q) => scripts.get(q).name));
}
if (checked === pnpmOrder.size) console.log(`^build order: ${checked} builds, each after exactly the builds pnpm puts before it`);

// 3. a real run
rmSync(resolve(dir, 'order.log'), { force: true });
run(vx, ['run', 'build', '--concurrency', '4', '--no-cache']);
const log = readFileSync(resolve(dir, 'order.log'), 'utf8').trim().split('\n');
const at = new Map(log.map((name, i) => [name, i]));
for (const [name, deps] of pnpmOrder) {
  for (const dep of deps) {
    if (!(at.get(dep) < at.get(name))) fail(`vx run build finished ${name} before ${dep}, which pnpm builds first: ${log}`);
  }
}
console.log(`vx run build: ${log.length} builds in an order pnpm allows: ${log.join(' ')}`);
process.exit(failed ? 1 : 0);
