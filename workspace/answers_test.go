package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pnpmAnswer is a fixture's pnpm-answer.json: what pnpm itself answered for
// the workspace (testdata/workspaces/pnpm-answer.sh made it).
type pnpmAnswer struct {
	PNPM         string              `json:"pnpm"`
	Projects     []string            `json:"projects"`
	Dependencies map[string][]string `json:"dependencies"` // RelDir -> RelDirs of its dependencies, transitively
}

// TestPnpmAnswers discovers every fixture that has a pnpm-answer.json and
// checks that vx finds the projects pnpm lists and links each to the
// projects pnpm's workspace graph links it to: Vite's playground duplicates,
// each dependency spec form, with and without linkWorkspacePackages.
func TestPnpmAnswers(t *testing.T) {
	base := fixtures(t)
	answers, err := filepath.Glob(filepath.Join(base, "*", "pnpm-answer.json"))
	if err != nil || len(answers) < 3 {
		t.Fatalf("want at least 3 fixtures with a pnpm-answer.json, got %d (%v)", len(answers), err)
	}
	for _, file := range answers {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var want pnpmAnswer
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			w, err := Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			if w.PackageManager.Name != "pnpm" {
				t.Errorf("PackageManager = %+v, want pnpm", w.PackageManager)
			}
			var got pnpmAnswer
			got.PNPM = want.PNPM
			got.Dependencies = map[string][]string{}
			for _, p := range w.Projects {
				got.Projects = append(got.Projects, p.RelDir)
				got.Dependencies[p.RelDir] = depClosure(p)
			}
			slices.Sort(got.Projects)
			for k, v := range want.Dependencies {
				if v == nil {
					want.Dependencies[k] = []string{}
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("vx and pnpm disagree (-pnpm +vx):\n%s", diff)
			}
		})
	}
}

// depClosure returns the RelDirs of p's dependencies, transitively, sorted.
func depClosure(p *Project) []string {
	seen := map[*Project]bool{p: true}
	out := []string{}
	var walk func(*Project)
	walk = func(q *Project) {
		for _, d := range q.Deps {
			if !seen[d] {
				seen[d] = true
				out = append(out, d.RelDir)
				walk(d)
			}
		}
	}
	walk(p)
	slices.Sort(out)
	return out
}
