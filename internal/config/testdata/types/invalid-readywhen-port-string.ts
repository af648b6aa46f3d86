// tsc: error TS2322: Type 'string' is not assignable to type 'number'.
import { defineConfig } from "@vxrun/vx";

export default defineConfig({ tasks: { dev: { persistent: true, readyWhen: { port: "3000" } } } });
