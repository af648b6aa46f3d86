// Package evaluate is vx-config's side of evaluating a vx.config.ts: it
// bundles each config file with esbuild (TypeScript stripped, imports
// bundled, node's built-in modules left to node; "@vxrun/vx" is a module
// of its own, installed or not, and a workspace project imported by name
// resolves to its directory), runs node on the bundles with evaluate.mjs,
// which records what the configs read through node:fs, process.env and
// os.homedir (or marks the result not rememberable: programs, workers, the
// network), and maps an exception's position back to the source through
// the source maps. [Main] is the helper's process: it ends what a config
// started detached (a child subreaper on Linux). vx itself never links
// this package (nor esbuild): see cmd/vx-config.
package evaluate
