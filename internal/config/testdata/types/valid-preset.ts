// tsc: ok
// A preset: readonly lists (as const) are fine, and so is a function that
// makes tasks.
import { defineConfig, type Task, type TaskEnv } from "@vxrun/vx";

const passThrough = ["NODE_ENV", "CI"] as const;
const env: TaskEnv = { passThrough };
const task = (extra: Partial<Task> = {}): Task => ({ dependsOn: ["^build"], env, ...extra });

export default defineConfig({ tasks: { build: task(), test: task({ outputs: [] }) } });
