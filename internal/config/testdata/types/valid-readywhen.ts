// tsc: ok
import { defineConfig, type ReadyWhen } from "@vxrun/vx";

const api: ReadyWhen = { port: 4000, timeout: "2m" };

export default defineConfig({
  tasks: {
    "api#dev": { persistent: true, readyWhen: api },
    "web#dev": { persistent: true, readyWhen: { url: "http://localhost:3000/health" } },
    "docs#dev": { persistent: true, readyWhen: { lineMatches: "ready in \\d+ ms" } },
    e2e: { dependsOn: ["api#dev", "web#dev"] },
  },
});
