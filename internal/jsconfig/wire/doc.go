// Package wire is what vx and its config helper, vx-config, share: the
// request vx writes to the helper's stdin, the response the helper writes to
// its stdout (one JSON value each), and the dependencies of an evaluation
// with the way their state is read, so that vx can tell, without starting
// node, whether a remembered evaluation still holds.
//
// A dependency is one of:
//
//   - a file, by its content: "sha256:<hex>", "absent" (missing, or a path
//     through something that is not a directory) or "other" (there, but not
//     a readable regular file);
//   - a directory listing, possibly only the names starting with a prefix:
//     the SHA-256 of the sorted names, or "absent";
//   - the kind of a path, following symbolic links or not: "file", "dir",
//     "other", "link" (not followed only) or "absent";
//   - what a Stats object tells: the kind, size and modification time;
//   - where a symbolic link points;
//   - an environment variable: set to a value, or unset.
//
// vx links this package and nothing heavier; the helper links esbuild.
package wire
