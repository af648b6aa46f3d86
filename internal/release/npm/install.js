// postinstall of @vxrun/vx: an optional, local-only speed-up. It makes no
// network request and never fails the install.
//
// npm and yarn 1 link node_modules/.bin/vx to this package's bin/vx on Linux
// and macOS. bin/vx is a Node.js launcher; replacing it with the native
// binary of the installed platform package lets `vx` start without Node.js
// (about 40 ms less per call). Everywhere else — Windows (npm's .cmd shims
// call node), pnpm, yarn berry and bun (their shims or Plug'n'Play read the
// launcher as a script), installs with --ignore-scripts — the launcher stays
// and vx works the same, only slower to start.
"use strict";

const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

function main() {
  if (process.platform === "win32") return "Windows: the launcher stays";
  const agent = process.env.npm_config_user_agent || "";
  if (!/^(npm\/|yarn\/1\.)/.test(agent)) return `package manager "${agent.split(" ")[0]}": the launcher stays`;
  const pkg = `@vxrun/vx-${process.platform}-${process.arch}`;
  let binary;
  try {
    binary = require.resolve(`${pkg}/bin/vx`);
  } catch {
    return `${pkg} is not installed: the launcher stays`;
  }
  const version = require("./package.json").version;
  const out = execFileSync(binary, ["--version"], { encoding: "utf8", timeout: 10000 }).trim();
  if (out !== `vx v${version}`) return `${binary} says "${out}", not "vx v${version}": the launcher stays`;
  // vx finds its helpers (vx-remote, the remote-cache client; vx-config,
  // which evaluates vx.config.ts) beside its own executable, so they go in
  // first and vx takes the launcher's place last.
  for (const name of ["vx-remote", "vx-config"]) {
    const helper = path.join(path.dirname(binary), name);
    if (fs.existsSync(helper)) place(helper, path.join(__dirname, "bin", name));
  }
  place(binary, path.join(__dirname, "bin", "vx"));
  return "the native binary replaces the launcher";
}

function place(from, to) {
  const tmp = `${to}.${process.pid}.tmp`;
  fs.copyFileSync(from, tmp);
  fs.chmodSync(tmp, 0o755);
  fs.renameSync(tmp, to);
}

try {
  const what = main();
  if (process.env.VX_INSTALL_DEBUG) console.error(`@vxrun/vx postinstall: ${what}`);
} catch (err) {
  if (process.env.VX_INSTALL_DEBUG) console.error(`@vxrun/vx postinstall: ${err.message}; the launcher stays`);
}
