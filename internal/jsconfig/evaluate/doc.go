// Package evaluate is vx-config's side of evaluating a vx.config.ts: it
// bundles each config file with esbuild (TypeScript stripped, imports
// bundled, node's built-in modules left to node; "@vxrun/vx" is a module
// of its own, installed or not, and a workspace project imported by name
// resolves to its directory), runs node on the bundles with evaluate.mjs,
// which records what the configs read through node:fs and process.env,
// and maps an exception's position back to the source through the source
// maps. vx itself never links this package (nor esbuild): see
// cmd/vx-config.
package evaluate
