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
// The user-facing reference is docs/config.md.
package config
