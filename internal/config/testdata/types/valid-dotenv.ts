// tsc: ok
// The .env recipe of docs/config.md.
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { defineConfig } from "@vxrun/vx";

const dotenv = parseEnv(readFileSync(".env", "utf8"));
export default defineConfig({ tasks: { build: { env: { define: { ...dotenv, MODE: process.env.MODE ?? "dev" } } } } });
