// Package workspace finds the JavaScript workspace a directory belongs to:
// its root, the current project, every project the workspace declares
// (package.json "workspaces" or pnpm-workspace.yaml "packages") and the
// node_modules/.bin directories that go on a task's PATH.
//
// It reads package.json and pnpm-workspace.yaml and knows nothing about
// tasks' environments or processes.
//
// Discover is the entry point; its documentation states the rules (which
// ancestor is the root, how patterns match, how links are followed), and
// docs/workspace.md compares them with npm, pnpm, yarn and bun. In short:
//
//   - the current project is the nearest directory upward with a
//     package.json;
//   - the root is the nearest directory from there upward that declares
//     workspaces and lists the project (or is it), npm's rule; otherwise the
//     project alone is the workspace;
//   - Root is absolute with symbolic links resolved; projects are ordered by
//     their slash-separated RelDir, the same on every OS;
//   - BinPaths gives the project's node_modules/.bin, then the root's.
//
// Platform notes: paths use the OS's separator (Dir, Root, BinPaths);
// RelDir and patterns always use "/". On Windows directories are compared
// case-insensitively, and junctions are followed like symbolic links.
// Pattern matching is case-sensitive everywhere.
package workspace
