// Package exec builds the isolated environment of every task vx runs and
// starts the task's script as a child process.
//
// It owns three things:
//
//   - the environment policy: [TaskEnviron] composes a child's env from a
//     fixed allowlist ([EssentialEnv]), the task's declared passThrough names,
//     its literal defines, its bin paths and the variables vx sets on every
//     task (VX_RUN_*, npm_lifecycle_*, npm_package_*, PWD);
//     [ExpandPassThrough] turns vx.json's passThrough patterns into those
//     names, under the same naming rule ([EnvNameKey]);
//   - program lookup against the child's PATH (not vx's own), with PATHEXT on
//     Windows;
//   - the process lifecycle: a script runs in its own process group (Unix) or
//     job object (Windows), so interrupting or killing a task reaches its whole
//     process tree. [Start] takes a context whose cancellation (with an
//     [Interrupt] cause naming the signal) ends the tree; on Linux vx is its
//     tasks' child subreaper ([BecomeSubreaper], [EndOrphans]) and follows
//     their stops for job control; on Unix a watchdog process
//     ([EnableWatchdog]) ends the task groups if vx is killed outright.
//
// The package imports nothing else of vx: it takes plain values (names, maps,
// paths, the parent environment as a []string) so the policy is a pure
// function that can be table-tested for every operating system on one machine.
package exec
