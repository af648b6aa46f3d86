// tsc: ok
import { defineConfig, type Task } from "@vxrun/vx";

const build: Task = { dependsOn: ["^build"], outputs: ["dist/**", "!dist/**/*.map"] };

export default defineConfig({
  $schema: "ignored",
  tasks: {
    build,
    "web#build": { ...build, env: { passThrough: ["NEXT_PUBLIC_*"], define: { MODE: "release" } } },
    dev: { persistent: true, cache: false, inputs: ["src/**", "//tsconfig.base.json"] },
  },
  remoteCache: { url: "grpcs://cache.example.com", instance: "main" },
});
