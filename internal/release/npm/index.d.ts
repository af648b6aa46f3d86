// The types of vx's configuration, for vx.config.ts. vx checks the same
// keys at run time with the same rules (docs/config.md); a test keeps these
// types, vx.schema.json and vx's own checks in step.

/**
 * The workspace's configuration: `export default defineConfig({ tasks: { ... } })` in vx.config.ts at the
 * workspace root. Reference: docs/config.md.
 */
export interface Config {
  /**
   * One entry per task (a package.json script), keyed "<task>" for every project or "<project>#<task>" for one
   * project ("//#<task>": the root's). A project entry replaces the generic entry for that project entirely.
   */
  tasks?: Record<string, Task>;
  /**
   * A shared REAPI v2 cache: its non-secret settings. Headers and keys go in the environment
   * (VX_REMOTE_HEADER, VX_REMOTE_SIGNING_KEY). --remote-cache / VX_REMOTE_CACHE win. Reference: docs/cache.md.
   */
  remoteCache?: RemoteCache;
  /** Accepted for the JSON Schema of vx.json; vx ignores it. */
  $schema?: string;
}

/**
 * A project's own configuration: `export default defineProject({ tasks: { ... } })` in the project's
 * vx.config.ts. Its tasks are named alone ("build"): each is the "<project>#<task>" entry of that project.
 */
export interface ProjectConfig {
  /** One entry per task of this project, by its script's name. */
  tasks?: Record<string, Task>;
}

/** What vx knows about one task. */
export interface Task {
  /**
   * Tasks that finish before this one starts: "^build" (build of every workspace dependency), "codegen" (a task
   * of the same project), "ui#build" (exactly that task).
   */
  dependsOn?: readonly string[];
  /** The variables the task sees on top of the essentials. */
  env?: TaskEnv;
  /**
   * The task does not end by itself (a dev server, a watcher): it starts whatever --concurrency says and it is
   * never cached. A task that depends on it starts once it is ready (readyWhen), and it is stopped once those
   * tasks are done unless it was asked for itself.
   */
  persistent?: boolean;
  /**
   * For a persistent task: when the tasks that depend on it may start. Without it, they start as soon as it has
   * started.
   */
  readyWhen?: ReadyWhen;
  /**
   * Globs of the files the task produces, relative to the project ("dist/**", "!dist/**\/*.map"): what a cache
   * hit restores. [] = no files, only the logs are cached.
   */
  outputs?: readonly string[];
  /**
   * Globs of the files the task reads, relative to the project, or to the workspace root when they start with
   * "//" ("//scripts/build.mjs"). Default: every file of the project git knows or would add.
   */
  inputs?: readonly string[];
  /** false: never cache this task. A task with an entry is cached by default; a script without one never is. */
  cache?: boolean;
  /**
   * How much of the task's output a run shows: "full" (the default), "hash-only" (only whether it came from the
   * cache, and its key), "new-only" (a cached task's output is not replayed), "errors-only" (only a failed task's
   * output), "none". vx run --output-logs wins.
   */
  outputLogs?: OutputLogs;
  /**
   * "strict": every run traces the task (Linux) and fails it for a file it read that its key does not cover or
   * wrote outside its outputs, nothing stored; as vx run --trace=strict does for every task.
   */
  trace?: "strict";
  /**
   * How long one attempt of the task may run, a Go duration ("90s", "10m", "1h30m"; "0" for no limit): then its
   * process tree is stopped (SIGTERM, then killed after --grace) and the attempt fails, "timed out after 10m";
   * nothing is stored. Wins over vx run --timeout. Not for a persistent task.
   */
  timeout?: Duration;
  /**
   * How many more times a failed attempt of the task runs (0 to 10); a task that fails and then passes is
   * flaky. The cache keeps nothing of a failed attempt. Wins over vx run --retries. Not for a persistent task.
   */
  retries?: number;
}

/** A Go duration: a number and a unit (ns, us, ms, s, m, h), repeated: "90s", "10m", "1h30m", "1.5s". */
export type Duration = string;

/**
 * When a persistent task is ready: exactly one of lineMatches, port or url, and an optional timeout.
 */
export interface ReadyWhen {
  /** A regular expression (Go RE2 syntax): ready once a line of the task's output (stdout or stderr) matches. */
  lineMatches?: string;
  /** Ready once a TCP connection to this port on localhost (127.0.0.1 or ::1) succeeds. */
  port?: number;
  /** Ready once an HTTP GET of this plain http:// URL answers 2xx or 3xx (https is not supported). */
  url?: string;
  /** How long the task has to become ready, a Go duration such as "30s" or "2m"; default 60s. */
  timeout?: Duration;
}

/** The values of a task's outputLogs, and of vx run --output-logs (turbo's modes). */
export type OutputLogs = "full" | "hash-only" | "new-only" | "errors-only" | "none";

/** The variables a task sees, on top of the essentials. */
export interface TaskEnv {
  /**
   * Names of variables of vx's environment the task may read, or patterns where "*" stands for any characters
   * ("NEXT_PUBLIC_*", "*_TOKEN"); "!" in front excludes ("!NEXT_PUBLIC_SECRET"). "*" alone is not allowed.
   */
  passThrough?: readonly string[];
  /**
   * Variables set to these literal string values for the task. A key whose value is undefined is left out, as JSON
   * leaves it out: the variable is not set (so `util.parseEnv`'s result and `process.env.X` fit as they are).
   */
  define?: Record<string, string | undefined>;
}

/** The non-secret settings of a shared REAPI v2 cache. */
export interface RemoteCache {
  /** grpc://host:port, or grpcs://host[:port] for TLS (port 443 by default): a REAPI server; https://host[:port][/path] (or http://): a turbo remote cache server. */
  url?: string;
  /** The REAPI instance name, empty for the server's default; for a turbo server, the team (team_... is sent as teamId, anything else as slug). */
  instance?: string;
}

/** The workspace's configuration, checked against {@link Config}. Returns it unchanged. */
export declare function defineConfig(config: Config): Config;

/** A project's own configuration, checked against {@link ProjectConfig}. Returns it unchanged. */
export declare function defineProject(config: ProjectConfig): ProjectConfig;
