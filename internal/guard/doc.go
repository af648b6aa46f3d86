// Package guard stops a task from starting vx run on its own workspace.
//
// vx sets VX_RUN_WORKSPACE (the workspace root), VX_RUN_TASK (the task id)
// and VX_RUN_CHAIN (every workspace the task runs inside, outermost first)
// in every task it starts. A package.json script such as
// "build": "vx run build" would otherwise start itself again and again, and
// so would two workspaces whose scripts run vx in each other; with the
// guard, the nested run finds its own workspace in the chain and stops at
// once with a [*NestedError].
//
// Only vx run calls [Check]; read-only commands (vx env, vx ls, --dry-run)
// are allowed inside a task. A vx run in another workspace runs normally.
// The package reads no environment itself: run.Nested passes the values in.
package guard
