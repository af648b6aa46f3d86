// The workspace's shared task settings: a preset is a plain module, here a
// workspace package in TypeScript that nothing builds; vx.config.ts imports
// it by name, installed or not.
import type { Task } from "@vxrun/vx";

// What every project's build may see of the environment, on top of the
// essentials.
const passThrough = ["NODE_ENV"];

// build is a project's build: it waits for the builds of the projects it
// depends on, and its result is cached: dist/ and the logs come back when
// nothing it reads changed (docs/cache.md). It reads the project's files and
// the shared build script at the workspace root ("//" starts a path from the
// root). A project's extra variables are added to the shared ones.
export function build(extra: { passThrough?: string[]; define?: Record<string, string | undefined> } = {}): Task {
  return {
    dependsOn: ["^build"],
    outputs: ["dist/**"],
    inputs: ["**", "//scripts/build.mjs"],
    env: {
      passThrough: [...passThrough, ...(extra.passThrough ?? [])],
      define: { BUILD_MODE: "release", ...extra.define },
    },
  };
}

// Tests produce no files: only their logs are cached.
export const test: Task = { dependsOn: ["build"], outputs: [] };
