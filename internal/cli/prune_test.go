package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCutWorkspaces(t *testing.T) {
	dirs := []string{".", "apps/web", "packages/ui"}
	for _, tc := range []struct{ name, in, want string }{
		{"all stay: the bytes as they were", "{\"workspaces\": [\"apps/*\",  \"packages/*\"]}\n", "{\"workspaces\": [\"apps/*\",  \"packages/*\"]}\n"},
		{"a pattern matching nothing kept goes, order and indent kept",
			"{\n\t\"name\": \"r\",\n\t\"workspaces\": [\"apps/*\", \"tools/*\", \"!apps/old\"],\n\t\"private\": true\n}\n",
			"{\n\t\"name\": \"r\",\n\t\"workspaces\": [\n\t\t\"apps/*\",\n\t\t\"!apps/old\"\n\t],\n\t\"private\": true\n}\n"},
		{"yarn's object form keeps its other keys",
			"{\"workspaces\": {\"packages\": [\"apps/web\", \"apps/docs\", \"packages/**\"], \"nohoist\": [\"**/x\"]}}",
			"{\n  \"workspaces\": {\n    \"nohoist\": [\n      \"**/x\"\n    ],\n    \"packages\": [\n      \"apps/web\",\n      \"packages/**\"\n    ]\n  }\n}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := cutManifestWorkspaces([]byte(tc.in), dirs)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	in := "# the projects\npackages:\n  - 'apps/*'\n  - \"tools/*\" # gone\n  - packages/ui\ncatalog:\n  - not: a pattern\n"
	want := "# the projects\npackages:\n  - 'apps/*'\n  - packages/ui\ncatalog:\n  - not: a pattern\n"
	if diff := cmp.Diff(want, string(cutPnpmWorkspace([]byte(in), dirs))); diff != "" {
		t.Errorf("pnpm-workspace.yaml (-want +got)\n%s", diff)
	}
}

func TestPatchRefs(t *testing.T) {
	text := `"a@patch:a@npm%3A1.0.0#~/.yarn/patches/a-npm-1.0.0.patch::version=1.0.0&hash=1"
patchedDependencies:
  b@2.0.0: patches/b@2.0.0.patch
  c: ../outside.patch
  d: /abs.patch`
	// outside the root (../, an absolute path): not copied
	want := []string{".yarn/patches/a-npm-1.0.0.patch", "patches/b@2.0.0.patch"}
	if diff := cmp.Diff(want, patchRefs([]byte(text))); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}
