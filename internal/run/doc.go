// Package run is vx's orchestrator. [Plan] selects the tasks a `vx run`
// asks for (the projects by pnpm's --filter selectors and --affected, in
// filter.go; git changes, in changed.go, through git run as a subprocess)
// and closes them over their dependsOn declarations into a
// [Graph] ([Graph.Only] leaves out the dependencies' tasks, not their keys); [Execute] runs that graph with a concurrency limit (persistent
// tasks, which run until stopped, hold no slot; a run whose slots stay held
// while tasks wait says so once), owns the output (direct for one task,
// line-prefixed for several, streamed or grouped per task, a line before
// the replayed logs of each task from the cache, what each task's
// --output-logs mode lets through (outputlogs.go), and a summary),
// records what became of each task ([TaskRun], for `vx run --summary`) and
// fans signals out to every running task's process tree. Execute and
// [Watch] run each task in attempts through one loop (attempt.go): a
// timeout stops an attempt's tree as a signal does, a failed attempt is
// retried while retries remain (the task's entry's "timeout"/"retries" win
// over [Options.Timeout]/[Options.Retries]; persistent tasks have neither),
// and a pass after a failure is flaky.
//
// [Watch] (vx watch) runs a graph, then reruns the tasks whose inputs
// change, and their dependents, as internal/watch reports the changes:
// which ones is planRerun's decision, a pure function over
// cache.InputMatcher, the key's own rule of what an input is. Execute and
// Watch share one scheduler (schedule.go), the one place where a task
// starts (restored from the cache, or spawned) and ends: Execute walks the
// graph once; Watch (watchrun.go) drives it in rounds, saying which tasks
// run again and hearing of each end, and reports each round as Execute
// reports its run (the summary line, the stall warning, grouped output,
// [RoundObserver] for --profile, --summary and --otel).
//
// Each task's environment comes from [TaskEnv], the one function both
// `vx run` and `vx env` use, so what `vx env` shows is what the child gets.
// [Steps] says what each task would start (`vx run --dry-run`) and [Nested]
// whether a run was started by a task of its own workspace: the command
// line asks, and formats the answers.
package run
