// tsc: error TS2353: Object literal may only specify known properties, and 'passThrough' does not exist in type 'Task'.
import { defineConfig } from "@vxrun/vx";

export default defineConfig({ tasks: { build: { passThrough: ["X"] } } });
