package config

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseReadyWhen(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want *ReadyWhen
		back string // the entry vx config writes
	}{
		{"a line", `{"lineMatches": "Listening on :\\d+"}`, &ReadyWhen{LineMatches: `Listening on :\d+`}, `{"lineMatches":"Listening on :\\d+"}`},
		{"a port", `{"port": 3000}`, &ReadyWhen{Port: 3000}, `{"port":3000}`},
		{"a url and a timeout", `{"url": "http://localhost:3000/health", "timeout": "90s"}`, &ReadyWhen{URL: "http://localhost:3000/health", Timeout: 90 * time.Second}, `{"timeout":"1m30s","url":"http://localhost:3000/health"}`},
		{"a timeout in minutes", `{"timeout": "2m", "port": 65535}`, &ReadyWhen{Port: 65535, Timeout: 2 * time.Minute}, `{"port":65535,"timeout":"2m"}`},
		{"an IPv6 url", `{"url": "http://[::1]:8080/"}`, &ReadyWhen{URL: "http://[::1]:8080/"}, `{"url":"http://[::1]:8080/"}`},
	}
	schema := compileSchema(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"tasks": {"dev": {"persistent": true, "readyWhen": ` + tt.in + `}}}`
			c, err := Parse("vx.json", []byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.TaskFor("web", "dev").ReadyWhen); diff != "" {
				t.Errorf("ReadyWhen (-want +got):\n%s", diff)
			}
			out, err := json.Marshal(c.Tasks["dev"].value()["readyWhen"])
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.back, string(out)); diff != "" {
				t.Errorf("vx config's readyWhen (-want +got):\n%s", diff)
			}
			again, err := Parse("vx.json", mustJSON(t, c))
			if err != nil {
				t.Fatalf("vx config's output does not read back: %v", err)
			}
			if diff := cmp.Diff(tt.want, again.Tasks["dev"].ReadyWhen); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
			var v any
			json.Unmarshal([]byte(in), &v)
			if err := schema.Validate(v); err != nil {
				t.Errorf("vx.schema.json refuses %s: %v", in, err)
			}
		})
	}
}

func mustJSON(t *testing.T, c *Config) []byte {
	t.Helper()
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseReadyWhenErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		schemaAccepts  bool // a problem the schema cannot see
	}{
		{"not persistent", `{"tasks": {"dev": {"readyWhen": {"port": 3000}}}}`,
			`vx.json:1:20: "readyWhen" of task "dev" is for persistent tasks (dev servers), and the task is not persistent; add "persistent": true, or remove "readyWhen"`, false},
		{"two conditions", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": 3000, "url": "http://localhost:3000/"}}}}`,
			`vx.json:1:53: "readyWhen" of task "dev" has both "port" and "url": it takes exactly one of "lineMatches", "port" or "url"; keep one; a task that needs several servers can depend on each`, false},
		{"no condition", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"timeout": "5s"}}}}`,
			`vx.json:1:53: "readyWhen" of task "dev" says nothing to wait for: it takes one of "lineMatches", "port" or "url"; write {"lineMatches": "<regexp>"}, {"port": 3000} or {"url": "http://localhost:3000/health"}, with an optional "timeout": "60s"`, false},
		{"a string", `{"tasks": {"dev": {"persistent": true, "readyWhen": "ready"}}}`,
			`vx.json:1:53: "readyWhen" of task "dev" must be an object, found a string; write {"lineMatches": "<regexp>"}, {"port": 3000} or {"url": "http://localhost:3000/health"}, with an optional "timeout": "60s"`, false},
		{"bad regexp", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"lineMatches": "ready ("}}}}`,
			`vx.json:1:69: invalid "readyWhen.lineMatches" "ready (" of task "dev": missing closing ): ` + "`ready (`", true},
		{"empty regexp", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"lineMatches": ""}}}}`,
			`vx.json:1:69: "readyWhen.lineMatches" of task "dev" is empty: it would match any line`, false},
		{"port zero", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": 0}}}}`,
			`vx.json:1:62: "readyWhen.port" of task "dev" must be a port number from 1 to 65535, found 0`, false},
		{"port too large", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": 70000}}}}`,
			`vx.json:1:62: "readyWhen.port" of task "dev" must be a port number from 1 to 65535, found 70000`, false},
		{"port a fraction", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": 30.5}}}}`,
			`vx.json:1:62: "readyWhen.port" of task "dev" must be a port number from 1 to 65535, found 30.5`, false},
		{"port a string", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": "3000"}}}}`,
			`vx.json:1:62: "readyWhen.port" of task "dev" must be a port number from 1 to 65535, found a string; did you mean 3000?`, false},
		{"https", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"url": "https://localhost:3000/"}}}}`,
			`vx.json:1:61: invalid "readyWhen.url" "https://localhost:3000/" of task "dev": https is not supported: probe the server's plain http address, or its port with {"port": N}`, false},
		{"no scheme", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"url": "localhost:3000"}}}}`,
			`vx.json:1:61: invalid "readyWhen.url" "localhost:3000" of task "dev": it must start with "http://"`, false},
		{"port not a number", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"url": "http://localhost:PORT/health"}}}}`,
			`vx.json:1:61: invalid "readyWhen.url" "http://localhost:PORT/health" of task "dev": not a URL`, false},
		{"timeout a number", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": 3000, "timeout": 30}}}}`,
			`vx.json:1:79: "readyWhen.timeout" of task "dev" must be a positive duration, found a number; did you mean "30s"?`, false},
		{"timeout without unit", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"port": 3000, "timeout": "30"}}}}`,
			`vx.json:1:79: "readyWhen.timeout" of task "dev" must be a positive duration, found "30"; a Go duration such as "30s", "2m" or "1m30s"`, false},
		{"misspelled key", `{"tasks": {"dev": {"persistent": true, "readyWhen": {"lineMatch": "ready"}}}}`,
			`vx.json:1:54: unknown key "lineMatch" in "readyWhen" of task "dev"; did you mean "lineMatches"?`, false},
		{"misspelled readyWhen", `{"tasks": {"dev": {"persistent": true, "readyWhn": {"port": 1}}}}`,
			`vx.json:1:40: unknown key "readyWhn" in task "dev"; did you mean "readyWhen"?`, false},
	}
	schema := compileSchema(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("vx.json", []byte(tt.in))
			if err == nil {
				t.Fatalf("Parse(%s) succeeded", tt.in)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			var v any
			json.Unmarshal([]byte(tt.in), &v)
			if accepted := schema.Validate(v) == nil; accepted != tt.schemaAccepts {
				t.Errorf("vx.schema.json accepts it: %v, want %v", accepted, tt.schemaAccepts)
			}
		})
	}
}
