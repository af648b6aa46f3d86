// Package jsconfig reads the workspace's configuration when it is written
// in JavaScript or TypeScript: vx.config.ts (also .mts, .js, .mjs) at the
// root, and a project's own vx.config.* for its tasks. It owns:
//
//   - which files there are ([Load]): at most one config file at the root
//     (vx.json or a vx.config.*) and one per project;
//   - the memo: what an evaluation read (files by content, directory
//     listings, the kinds of paths, environment variables, node by its
//     path, size and time, vx's version) and what it returned, kept in one
//     file of the store, so that a run whose inputs did not change starts
//     no node at all;
//   - starting vx-config, the helper that bundles (esbuild) and evaluates
//     (node) the files, within a time limit that starts once the helper
//     runs (not while `go run` compiles it), as one process tree;
//   - what the configuration was made from (config.Config.Sources: its
//     files and what the evaluation read), for vx watch and --affected;
//   - merging the projects' files into the workspace's [config.Config] and
//     placing every problem in the source: the line and column of the key
//     path when it is written out there, else the key path alone.
//
// Validation is internal/config's, the same as vx.json's. vx-config's own
// side is package evaluate; what both sides share is package wire.
//
// The user-facing reference is docs/config.md.
package jsconfig
