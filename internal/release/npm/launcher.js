#!/usr/bin/env node
// The launcher of @vxrun/vx: it starts the native vx binary from the
// platform package npm installed beside this one (@vxrun/vx-<os>-<cpu>) and
// ends as that binary ends. Where install.js could put the binary here in
// its place (npm and yarn 1 on Linux and macOS), this file is gone and vx
// starts without Node.js.
"use strict";

const { spawn } = require("child_process");

const platforms = {
  "linux x64": "@vxrun/vx-linux-x64",
  "linux arm64": "@vxrun/vx-linux-arm64",
  "darwin x64": "@vxrun/vx-darwin-x64",
  "darwin arm64": "@vxrun/vx-darwin-arm64",
  "win32 x64": "@vxrun/vx-win32-x64",
  "win32 arm64": "@vxrun/vx-win32-arm64",
};

function fail(message) {
  process.stderr.write(`vx: ${message}\n`);
  process.exit(2);
}

function binaryPath() {
  const pkg = platforms[`${process.platform} ${process.arch}`];
  if (!pkg) {
    fail(
      `no prebuilt binary for ${process.platform}-${process.arch} (there are: ${Object.keys(platforms).join(", ").replace(/ /g, "-")}); ` +
        "build it from source with: go install github.com/vxrun/vx/cmd/vx@latest",
    );
  }
  const exe = process.platform === "win32" ? "vx.exe" : "vx";
  try {
    return require.resolve(`${pkg}/bin/${exe}`);
  } catch {
    fail(
      `the package ${pkg}, which holds vx's binary for this platform, is not installed; ` +
        "it is an optional dependency of @vxrun/vx: install again without --no-optional or --omit=optional",
    );
  }
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit", windowsHide: false });

// A terminal's Ctrl-C, Ctrl-\ and hang-up reach vx directly (it is in the
// same process group), and vx counts a second signal as "kill now": relaying
// them would double them. SIGTERM is usually sent to this process alone
// (kill, a container runtime), so it is passed on.
for (const sig of ["SIGINT", "SIGQUIT", "SIGHUP"]) process.on(sig, () => {});
process.on("SIGTERM", () => child.kill("SIGTERM"));

child.on("error", (err) => fail(`cannot start ${child.spawnfile}: ${err.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code);
});
