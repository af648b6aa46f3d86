// Package guard stops a task from starting vx run on its own workspace.
//
// vx sets VX_RUN_WORKSPACE (the workspace root) and VX_RUN_TASK (the task id)
// in every task it starts. A package.json script such as
// "build": "vx run build" would otherwise start itself again and again; with
// the guard, the nested run sees its own workspace in VX_RUN_WORKSPACE and
// stops at once with a [*NestedError].
//
// Only vx run calls [Check]; read-only commands (vx env, vx ls, --dry-run)
// are allowed inside a task. A vx run in another workspace runs normally.
// The package reads no environment itself: run.Nested passes the two values
// in.
package guard
