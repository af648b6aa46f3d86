package run

import "testing"

func TestPlanRejectsDependingOnPersistent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, cfg, want string
		tasks           []string
	}{
		{
			name:  "same project",
			cfg:   `{"tasks": {"dev": {"persistent": true}, "e2e": {"dependsOn": ["dev"]}}}`,
			tasks: []string{"e2e"},
			want: `task "web#e2e" depends on "web#dev", which is persistent: it does not end by itself, so "web#e2e" would never start; ` +
				`remove the dependency from vx.json, or run both with vx run and let "web#e2e" wait for what it needs itself`,
		},
		{
			name:  "through ^",
			cfg:   `{"tasks": {"api#dev": {"persistent": true}, "dev": {"dependsOn": ["^dev"]}}}`,
			tasks: []string{"dev"},
			want: `task "web#dev" depends on "api#dev", which is persistent: it does not end by itself, so "web#dev" would never start; ` +
				`remove the dependency from vx.json, or run both with vx run and let "web#dev" wait for what it needs itself`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := testWorkspace(t, "root::", "api::dev", "web:api:dev,e2e")
			_, err := Plan(ws, mustConfig(t, tt.cfg), Selection{Tasks: tt.tasks, Filters: []string{"web"}})
			if err == nil || err.Error() != tt.want {
				t.Errorf("Plan error = %v\nwant %s", err, tt.want)
			}
		})
	}
	// A persistent task may depend on tasks that end: dev after ^build.
	ws := testWorkspace(t, "root::", "api::build", "web:api:dev")
	g, err := Plan(ws, mustConfig(t, `{"tasks": {"dev": {"persistent": true, "dependsOn": ["^build"]}}}`), Selection{Tasks: []string{"dev"}})
	if err != nil || len(g.Nodes) != 2 || !g.Nodes[1].Config.Persistent {
		t.Errorf("Plan(dev after ^build) = %v, %v", g, err)
	}
}

func TestListSome(t *testing.T) {
	ids := []string{"a#dev", "b#dev", "c#dev"}
	for _, tt := range []struct {
		n    int
		want string
	}{{3, "a#dev, b#dev, c#dev"}, {8, "a#dev, b#dev, c#dev"}, {2, "a#dev, b#dev and 1 more"}} {
		if got := listSome(ids, tt.n); got != tt.want {
			t.Errorf("listSome(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
