// tsc: error TS2322: Type 'string' is not assignable to type 'boolean | undefined'.
import { defineConfig } from "@vxrun/vx";

export default defineConfig({ tasks: { dev: { persistent: "true" } } });
