// Package diag is vx's one way to report a problem at a place in a user's
// file: vx.json, a package.json, pnpm-workspace.yaml.
//
// A package that finds such a problem returns an [*Error] (not wrapped, so
// the edge can shorten its path) holding the file's path, the line and
// column and what is wrong, with an optional suggestion:
//
//	return nil, &diag.Error{Path: abs, Line: 3, Col: 9, Msg: `unknown key "x"`, Suggest: `did you mean "env"?`}
//
// Its text has one shape, the one the Go toolchain prints and that editors
// and terminals jump to:
//
//	path:line:col: message; suggestion
//
// Packages add no prefix of their own to it. cmd/vx prints every error once,
// as "vx: " followed by [Message], which names the file relative to the
// current directory.
package diag
