// tsc: error TS2322: Type 'number' is not assignable to type 'string'.
import { defineConfig } from "@vxrun/vx";

export default defineConfig({ tasks: { build: { env: { define: { PORT: 3000 } } } } });
