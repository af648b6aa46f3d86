package run

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPlanAllowsDependingOnPersistent(t *testing.T) {
	t.Parallel()
	// A task may depend on a persistent one (it starts once the server is
	// ready), and a persistent task on tasks that end: dev after ^build.
	ws := testWorkspace(t, "root::", "api::dev", "web:api:dev,e2e")
	g, err := Plan(ws, mustConfig(t, `{"tasks": {"dev": {"persistent": true}, "e2e": {"dependsOn": ["dev", "^dev"]}}}`), Selection{Tasks: []string{"e2e"}, Filters: []string{"web"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range g.Nodes {
		for _, d := range n.Deps {
			got = append(got, n.ID+" after "+d.ID)
		}
	}
	if diff := cmp.Diff([]string{"web#e2e after api#dev", "web#e2e after web#dev"}, got); diff != "" {
		t.Errorf("Plan (-want +got):\n%s", diff)
	}
	ws = testWorkspace(t, "root::", "api::build", "web:api:dev")
	g, err = Plan(ws, mustConfig(t, `{"tasks": {"dev": {"persistent": true, "dependsOn": ["^build"]}}}`), Selection{Tasks: []string{"dev"}})
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
