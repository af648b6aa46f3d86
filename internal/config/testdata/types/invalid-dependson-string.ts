// tsc: error TS2322: Type 'string' is not assignable to type 'readonly string[]'.
import { defineConfig } from "@vxrun/vx";

export default defineConfig({ tasks: { build: { dependsOn: "^build" } } });
