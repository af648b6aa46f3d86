// Package config reads vx.json, the optional file at the workspace root that
// declares, per task, what it depends on and which environment variables it
// may see.
//
// The file is JSON with two relaxations: comments (// to the end of the line
// and /* ... */) and a trailing comma after the last element of an object or
// array. An optional UTF-8 byte order mark at the start is skipped. Every
// problem found in the file, from a missing comma to a typo in a key, is
// reported as a [*diag.Error] that carries the file, the line and the column
// (counted in characters, starting at 1), and a suggestion where one is
// obvious.
//
// Layout of the file:
//
//	{
//	  "tasks": {
//	    "build": {                      // every project's "build" script
//	      "dependsOn": ["^build", "codegen"],
//	      "env": {
//	        "passThrough": ["NODE_ENV", "NEXT_PUBLIC_*"],
//	        "define": { "BUILD_MODE": "release" }
//	      }
//	    },
//	    "web#build": { "env": { "passThrough": ["SENTRY_DSN"] } }
//	  }
//	}
//
// A "<project>#<task>" entry replaces the generic "<task>" entry for that
// project entirely (see [Config.TaskFor]); the two are never merged.
// passThrough patterns are expanded against the parent environment by
// exec.ExpandPassThrough, with the rest of the environment's rules. The package reads nothing but the file: it never looks
// at the process's own environment.
//
// [ParseTurbo] reads a Turborepo turbo.json (and the projects' own files
// that extend it) into the same Config, for a workspace without a vx
// config: turbo's keys become vx's (inputs' $TURBO_DEFAULT$ is "**",
// $TURBO_ROOT$/ is "//", env and passThroughEnv are passThrough, the
// global keys are added to every task), a key vx does not use is named
// once in Turbo.Warnings, and what vx cannot honour (an output outside the
// project) makes the task uncached rather than wrongly cached. Its
// "remoteCache" object becomes [TurboRemote] (Config.TurboRemote), which
// package cli applies under vx's settings and turbo's variables.
// [Turbo.ConfigTS] writes the equivalent vx.config.ts (vx init).
//
// The user-facing references are docs/config.md and docs/from-turbo.md.
package config
