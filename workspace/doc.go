// Package workspace finds the JavaScript workspace a directory belongs to:
// its root, the current project, every project the workspace declares
// (package.json "workspaces" or pnpm-workspace.yaml "packages") and the
// node_modules/.bin directories that go on a task's PATH.
//
// It reads package.json and pnpm-workspace.yaml and knows nothing about
// tasks' environments or processes.
package workspace
