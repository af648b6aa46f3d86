package lockfile

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fixtureProjects reads the package.json files of a testdata workspace
// (the root, apps/*, packages/*) as [Project]s.
func fixtureProjects(t *testing.T, root string) []Project {
	t.Helper()
	var out []Project
	for _, dir := range []string{".", "apps/docs", "apps/web", "packages/ui"} {
		data, err := os.ReadFile(filepath.Join(root, dir, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Name, Version                                       string
			Dependencies, DevDependencies, OptionalDependencies map[string]string
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		p := Project{Dir: dir, Name: m.Name, Version: m.Version, Deps: map[string]string{}}
		for _, d := range []map[string]string{m.Dependencies, m.DevDependencies, m.OptionalDependencies} {
			for k, v := range d {
				p.Deps[k] = v
			}
		}
		out = append(out, p)
	}
	return out
}
