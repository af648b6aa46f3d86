// tsc: ok
import { defineProject } from "@vxrun/vx";

export default defineProject({ tasks: { build: { outputs: [".next/**"] } } });
