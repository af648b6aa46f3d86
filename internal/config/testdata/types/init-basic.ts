// tsc: ok
// vx.config.ts, written by vx init from turbo.json: the same tasks, dependencies, outputs, inputs and
// variables (docs/from-turbo.md). vx reads this file, no longer turbo.json; edit it freely.
import { defineConfig, type Task } from "@vxrun/vx";

// globalEnv and globalPassThroughEnv: the variables every task may read (and its cache key holds).
const globalPassThrough = ["CI_BUILD_ID"];
// globalDependencies: files of the workspace root in every task's cache key.
const globalInputs = ["//.env"];

// What turbo.json applied to every task; each task spreads it, and adds its own.
const shared: Task = {
  env: { passThrough: globalPassThrough },
  inputs: ["**", ...globalInputs],
};

export default defineConfig({
  tasks: {
    build: { ...shared, dependsOn: ["^build"], outputs: ["dist/**"], env: { passThrough: [...globalPassThrough, "NODE_ENV", "NEXT_PUBLIC_*", "!NEXT_PUBLIC_SECRET"] } },
    test: { ...shared, dependsOn: ["build"], inputs: ["**", "//jest.config.js", ...globalInputs], outputLogs: "new-only" },
    lint: { ...shared, inputs: ["src/**", "!src/**/*.test.ts", ...globalInputs], env: { passThrough: [...globalPassThrough, "ESLINT_*"] } },
    "c#lint": { ...shared, dependsOn: ["a#lint"] },
    "//#check": { ...shared, cache: false },
    // from packages/c/turbo.json
    "c#build": { ...shared, dependsOn: ["^build"], outputs: ["dist/**", "lib/**"], env: { passThrough: [...globalPassThrough, "NODE_ENV", "NEXT_PUBLIC_*", "!NEXT_PUBLIC_SECRET"] } },
  },
});
