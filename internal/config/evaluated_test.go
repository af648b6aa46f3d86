package config

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vxrun/vx/internal/diag"
)

// TestDecodeValueErrors: an evaluated vx.config.ts gets every check of
// vx.json and the same message, its place given as a key path instead of a
// line and column. Every vx.json error case that is strict JSON (the ones
// an evaluated value can be) is decoded as a value; the path must lead to
// the very key or value vx.json's line and column point at.
func TestDecodeValueErrors(t *testing.T) {
	t.Parallel()
	pos := regexp.MustCompile(`^vx\.json:(\d+):(\d+): `)
	checked := 0
	for _, tt := range parseErrorCases {
		if _, serr := parseJSONC([]byte(tt.in)); serr != nil || !json.Valid([]byte(tt.in)) {
			continue // the text's own problems (syntax, duplicate keys): a value has none
		}
		checked++
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, verr := DecodeValue("vx.config.ts", []byte(tt.in), false)
			if verr == nil {
				t.Fatalf("DecodeValue(%s) = %+v, want an error", tt.in, c)
			}
			wantMsg := pos.ReplaceAllString(tt.want, "")
			gotMsg := verr.Msg
			if verr.Suggest != "" {
				gotMsg += "; " + verr.Suggest
			}
			if diff := cmp.Diff(wantMsg, gotMsg); diff != "" {
				t.Errorf("message mismatch (-vx.json +evaluated):\n%s", diff)
			}
			// The path leads to the offset vx.json's position names.
			root, serr := parseJSONC([]byte(tt.in))
			if serr != nil {
				t.Fatal(serr.msg)
			}
			off := follow(t, root, verr.Path, verr.Key)
			line, col := diag.Position([]byte(tt.in), off)
			m := pos.FindStringSubmatch(tt.want)
			if got := "vx.json:" + itoa(line) + ":" + itoa(col) + ": "; m == nil || got != m[0] {
				t.Errorf("path %s (key %v) leads to %s, vx.json's error is at %q", KeyPath(verr.Path), verr.Key, got, m)
			}
		})
	}
	if checked < 40 {
		t.Errorf("only %d of vx.json's error cases are strict JSON; the table moved?", checked)
	}
}

// follow returns the offset of the key (key set) or value at path.
func follow(t *testing.T, n *node, path []any, key bool) int {
	t.Helper()
	for i, k := range path {
		switch k := k.(type) {
		case string:
			found := false
			for _, m := range n.members {
				if m.key == k {
					if key && i == len(path)-1 {
						return m.keyOff
					}
					n, found = m.val, true
					break
				}
			}
			if !found {
				t.Fatalf("path %s: no key %q", KeyPath(path), k)
			}
		case int:
			if k >= len(n.elems) {
				t.Fatalf("path %s: no element %d", KeyPath(path), k)
			}
			n = n.elems[k]
		}
	}
	return n.off
}

// TestDecodeValue covers what only an evaluated config has: a project's
// own file, and the key paths' spelling.
func TestDecodeValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		project bool
		want    string // the error, "" for none
	}{
		{name: "a project's tasks", in: `{"tasks": {"build": {"dependsOn": ["^build", "ui#build"]}}}`, project: true},
		{name: "a project names no project", in: `{"tasks": {"web#build": {}}}`, project: true,
			want: `tasks["web#build"]: invalid task key "web#build": a project's config declares its own tasks, by their names alone; write "build"`},
		{name: "the workspace's remoteCache", in: `{"remoteCache": {"url": "grpc://x:1"}}`, project: true,
			want: `remoteCache: "remoteCache" belongs to the workspace, not to a project; set it in the workspace root's config`},
		{name: "the root may name projects", in: `{"tasks": {"web#build": {}}}`},
		{name: "an array element's path", in: `{"tasks": {"@acme/web#build": {"dependsOn": ["a", "^"]}}}`,
			want: `tasks["@acme/web#build"].dependsOn[1]: invalid dependsOn entry "^" in task "@acme/web#build": "^" must be followed by a task name, as in "^build"`},
		{name: "the top is not an object", in: `[]`, want: `the top level must be an object, found an array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeValue("x", []byte(tc.in), tc.project)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("DecodeValue(%s) error = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestValueRoundTrip: what vx config prints of a configuration reads back
// as the same configuration, for every vx.json of the repository vx
// accepts.
func TestValueRoundTrip(t *testing.T) {
	t.Parallel()
	n := 0
	for _, c := range append(collectSchemaCases(t), extraSchemaCases()...) {
		want, err := Parse("vx.json", c.data)
		if err != nil {
			continue
		}
		n++
		data, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse("vx.json", data)
		if err != nil {
			t.Fatalf("%s: the printed config does not parse: %v\n%s", c.name, err, data)
		}
		if diff := cmp.Diff(want, got, ignoreOrigins); diff != "" {
			t.Errorf("%s: round trip mismatch (-want +got):\n%s", c.name, diff)
		}
	}
	if n < 12 {
		t.Errorf("only %d configs checked", n)
	}
}
