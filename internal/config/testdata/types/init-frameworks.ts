// tsc: ok
// vx.config.ts, written by vx init from turbo.json: the same tasks, dependencies, outputs, inputs and
// variables (docs/from-turbo.md). vx reads this file, no longer turbo.json; edit it freely.
import { defineConfig } from "@vxrun/vx";


export default defineConfig({
  tasks: {
    build: { dependsOn: ["^build"], outputs: ["dist/**"], env: { passThrough: ["NODE_ENV"] } },
    lint: { env: { passThrough: ["!NEXT_PUBLIC_SECRET"] } },
  },
});
