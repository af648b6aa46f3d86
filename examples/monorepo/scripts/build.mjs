// A stand-in build: writes dist/index.txt and says what it saw.
import { mkdirSync, writeFileSync, readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const seen = Object.keys(process.env).sort();
mkdirSync("dist", { recursive: true });
writeFileSync("dist/index.txt", `${pkg.name} built in ${process.env.BUILD_MODE} mode\n`);
console.log(`built ${pkg.name} (${process.env.VX_RUN_TASK}), BUILD_MODE=${process.env.BUILD_MODE}`);
if (process.env.PUBLIC_SITE_URL) console.log(`for ${process.env.PUBLIC_SITE_URL}`);
console.log(`the task saw ${seen.length} variables: ${seen.join(" ")}`);
