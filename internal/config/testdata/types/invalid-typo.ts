// tsc: error TS2561: Object literal may only specify known properties, but 'passthrough' does not exist in type 'TaskEnv'. Did you mean to write 'passThrough'?
import { defineConfig } from "@vxrun/vx";

export default defineConfig({ tasks: { build: { env: { passthrough: ["X"] } } } });
