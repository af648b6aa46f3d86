// tsc: ok
// vx.config.ts, written by vx init from turbo.jsonc: the same tasks, dependencies, outputs, inputs and
// variables (docs/from-turbo.md). vx reads this file, no longer turbo.json; edit it freely.
import { defineConfig, type Task } from "@vxrun/vx";

// globalEnv and globalPassThroughEnv: the variables every task may read (and its cache key holds).
const globalPassThrough = ["AWS_PROFILE"];

// What turbo.json applied to every task; each task spreads it, and adds its own.
const shared: Task = {
  env: { passThrough: globalPassThrough },
};

export default defineConfig({
  tasks: {
    build: { ...shared, dependsOn: ["^build", "gen#gen"], outputs: ["dist/**"] },
    test: { ...shared, dependsOn: ["^build", "^test"] },
    dev: { ...shared, dependsOn: ["^build"], persistent: true, cache: false },
    "gen#gen": { ...shared, outputs: ["out/**"] },
    "//#codegen": { ...shared, cache: false },
    "//#check": { ...shared, dependsOn: ["app#build"] },
    // from apps/app/turbo.json
    "app#build": { ...shared, dependsOn: ["^build", "gen#gen", "//#codegen"], outputs: ["dist/**"] },
  },
});
