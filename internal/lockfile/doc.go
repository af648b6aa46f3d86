// Package lockfile reads the lockfiles of npm (package-lock.json,
// npm-shrinkwrap.json), pnpm (pnpm-lock.yaml), yarn classic and yarn berry
// (yarn.lock) and bun (bun.lock) into one shape: the workspace's projects
// (importers), the external packages the lockfile resolved (entries), and the
// edges between them. Two users read that shape: the task cache keys each
// project on its own resolved external closure instead of the whole file, and
// `vx prune` writes a lockfile cut to the projects it keeps.
//
// [Lockfile.Describe] and [Same] say what a project can load, by package
// name, in a form that does not depend on where the lockfile keeps it (an npm
// install path moves when another project's install is hoisted elsewhere):
// the task cache keys on it, and --affected compares it.
//
// Yarn classic's yarn.lock does not list the workspace's projects: read it
// with [ParseWorkspace], which takes the projects' manifests ([Project],
// [ManifestProject]); [Parse] of one wraps [ErrUnsupported].
// [ParseWorkspacePartial] (the task cache's and --affected's reading) leaves a
// project whose range has no entry out, as [Lockfile.Stale], instead of
// failing: the closures that reach it are not trusted, the others are. [Prune] writes a lockfile cut to some
// projects, in the format's own text, and checks it by reading it back.
//
// It needs no package manager and no node. A lockfile it cannot read (bun.lockb,
// a format version it does not know) is [ErrUnsupported]: callers fall back to
// the whole file's bytes, never to a guess.
//
// (OS file locks, which vx takes on its own files, are internal/filelock.)
package lockfile
