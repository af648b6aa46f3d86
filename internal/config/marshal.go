package config

import (
	"encoding/json"
	"maps"
	"slices"
)

// Value returns the configuration in vx.json's layout, as JSON can hold
// it: what vx config prints, and a vx.json that reads back as the same
// Config. Keys a task leaves at their default are left out.
func (c *Config) Value() map[string]any {
	tasks := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(c.Tasks)) {
		tasks[k] = c.Tasks[k].value()
	}
	v := map[string]any{"tasks": tasks}
	if c.RemoteCache != (RemoteCache{}) {
		rc := map[string]any{}
		if c.RemoteCache.URL != "" {
			rc["url"] = c.RemoteCache.URL
		}
		if c.RemoteCache.Instance != "" {
			rc["instance"] = c.RemoteCache.Instance
		}
		v["remoteCache"] = rc
	}
	return v
}

func (t Task) value() map[string]any {
	v := map[string]any{}
	if t.DependsOn != nil {
		v["dependsOn"] = t.DependsOn
	}
	if t.PassThrough != nil || t.Define != nil {
		env := map[string]any{}
		if t.PassThrough != nil {
			env["passThrough"] = t.PassThrough
		}
		if t.Define != nil {
			env["define"] = t.Define
		}
		v["env"] = env
	}
	if t.Persistent {
		v["persistent"] = true
	}
	if t.ReadyWhen != nil {
		v["readyWhen"] = t.ReadyWhen.value()
	}
	if t.Outputs != nil {
		v["outputs"] = t.Outputs
	}
	if t.Inputs != nil {
		v["inputs"] = t.Inputs
	}
	if t.NoCache {
		v["cache"] = false
	}
	if t.OutputLogs != "" {
		v["outputLogs"] = t.OutputLogs
	}
	if t.Trace != "" {
		v["trace"] = t.Trace
	}
	if t.Timeout != nil {
		v["timeout"] = FormatDuration(*t.Timeout)
	}
	if t.Retries != nil {
		v["retries"] = *t.Retries
	}
	return v
}

// MarshalJSON writes the configuration in vx.json's layout (see Value).
func (c *Config) MarshalJSON() ([]byte, error) { return json.Marshal(c.Value()) }
