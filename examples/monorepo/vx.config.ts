// The workspace's configuration (docs/config.md). node evaluates it when
// something it read changed (this file, the preset, .env, a variable it
// reads); other runs reuse the result without starting node.
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { defineConfig } from "@vxrun/vx";
import { build, test } from "@example/vx-preset";

// The site's public settings, from .env, reach web's build as defines: an
// edit of .env rebuilds web (and only web).
const site = parseEnv(readFileSync(".env", "utf8"));

export default defineConfig({
  tasks: {
    build: build(),
    "web#build": build({ passThrough: ["PUBLIC_*"], define: site }),
    test,
  },
});
