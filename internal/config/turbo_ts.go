package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ConfigTS writes t as a vx.config.ts that evaluates to t.Config(): typed
// with defineConfig, one entry per task in the order of the files, and the
// settings turbo applied to every task (its global keys) written once, as
// a shared object each task spreads, not copied into every task. rel turns
// a file's path into the one shown in comments.
func (t *Turbo) ConfigTS(rel func(string) string) []byte {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// vx.config.ts, written by vx init from %s: the same tasks, dependencies, outputs, inputs and\n", rel(t.Path))
	w("// variables (docs/from-turbo.md). vx reads this file, no longer turbo.json; edit it freely.\n")
	hasEnv, hasInputs := len(t.Shared.PassThrough) > 0, len(t.Shared.Inputs) > 0
	if hasEnv || hasInputs {
		w("import { defineConfig, type Task } from \"@vxrun/vx\";\n\n")
	} else {
		w("import { defineConfig } from \"@vxrun/vx\";\n\n")
	}
	if hasEnv {
		w("// globalEnv and globalPassThroughEnv: the variables every task may read (and its cache key holds).\n")
		w("const globalPassThrough = %s;\n", jsList(t.Shared.PassThrough))
	}
	if hasInputs {
		w("// globalDependencies: files of the workspace root in every task's cache key.\n")
		w("const globalInputs = %s;\n", jsList(t.Shared.Inputs))
	}
	if hasEnv || hasInputs {
		w("\n// What turbo.json applied to every task; each task spreads it, and adds its own.\n")
		w("const shared: Task = {\n")
		if hasEnv {
			w("  env: { passThrough: globalPassThrough },\n")
		}
		if hasInputs {
			w("  inputs: [\"**\", ...globalInputs],\n")
		}
		w("};\n")
	}
	w("\nexport default defineConfig({\n  tasks: {\n")
	lastFile := t.Path
	for _, key := range t.Keys {
		own := t.Own[key]
		if o := t.Origins[key]; o.Path != t.Path && o.Path != lastFile {
			w("    // from %s\n", rel(o.Path))
			lastFile = o.Path
		} else {
			lastFile = o.Path
		}
		var parts []string
		if hasEnv || hasInputs {
			parts = append(parts, "...shared")
		}
		if own.DependsOn != nil {
			parts = append(parts, "dependsOn: "+jsList(own.DependsOn))
		}
		if own.Outputs != nil {
			parts = append(parts, "outputs: "+jsList(own.Outputs))
		}
		switch {
		case own.Inputs != nil && hasInputs:
			parts = append(parts, "inputs: "+jsSpread(own.Inputs, "globalInputs"))
		case own.Inputs != nil:
			parts = append(parts, "inputs: "+jsList(own.Inputs))
		}
		switch {
		case own.PassThrough != nil && hasEnv:
			parts = append(parts, "env: { passThrough: "+jsSpreadFirst("globalPassThrough", own.PassThrough)+" }")
		case own.PassThrough != nil:
			parts = append(parts, "env: { passThrough: "+jsList(own.PassThrough)+" }")
		}
		if own.Persistent {
			parts = append(parts, "persistent: true")
		}
		if own.NoCache {
			parts = append(parts, "cache: false")
		}
		if own.OutputLogs != "" {
			parts = append(parts, "outputLogs: "+jsString(own.OutputLogs))
		}
		w("    %s: { %s },\n", jsKey(key), strings.Join(parts, ", "))
	}
	w("  },\n});\n")
	return bytes.ReplaceAll(b.Bytes(), []byte("{  }"), []byte("{}"))
}

// jsString writes s as a JavaScript string literal.
func jsString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// jsKey writes a task key as an object key: bare when it is an
// identifier, quoted otherwise.
func jsKey(s string) string {
	if isIdentifier(s) {
		return s
	}
	return jsString(s)
}

func jsList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = jsString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// jsSpread writes list followed by the elements of the array named name.
func jsSpread(list []string, name string) string {
	l := jsList(list)
	if len(list) == 0 {
		return "[..." + name + "]"
	}
	return l[:len(l)-1] + ", ..." + name + "]"
}

// jsSpreadFirst writes the elements of the array named name followed by list.
func jsSpreadFirst(name string, list []string) string {
	l := jsList(list)
	return "[..." + name + ", " + l[1:]
}
