package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGenerate(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		script   string
		stale    bool // a packages/p0009 left by an earlier, larger run
		wantDirs []string
		wantErr  bool
	}{
		{name: "one project", n: 1, script: "true", wantDirs: []string{"packages/p0001"}},
		{name: "three projects", n: 3, script: "echo hi", wantDirs: []string{"packages/p0001", "packages/p0002", "packages/p0003"}},
		{name: "stale projects removed", n: 2, script: "true", stale: true, wantDirs: []string{"packages/p0001", "packages/p0002"}},
		{name: "no project", n: 0, script: "true", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			if tt.stale {
				if err := os.MkdirAll(filepath.Join(root, "packages", "p0009"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			dirs, err := Generate(root, tt.n, tt.script)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Generate() error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.wantDirs, slashes(dirs)); diff != "" {
				t.Errorf("Generate() dirs mismatch (-want +got):\n%s", diff)
			}
			entries, err := os.ReadDir(filepath.Join(root, "packages"))
			if err != nil {
				t.Fatal(err)
			}
			var onDisk []string
			for _, e := range entries {
				onDisk = append(onDisk, "packages/"+e.Name())
			}
			if diff := cmp.Diff(tt.wantDirs, onDisk); diff != "" {
				t.Errorf("Generate() projects on disk mismatch (-want +got):\n%s", diff)
			}
			wantRoot := map[string]any{"name": "vx-bench", "version": "1.0.0", "private": true, "workspaces": []any{"packages/*"}}
			if diff := cmp.Diff(wantRoot, readJSON(t, filepath.Join(root, "package.json"))); diff != "" {
				t.Errorf("Generate() root package.json mismatch (-want +got):\n%s", diff)
			}
			for i, dir := range dirs {
				want := map[string]any{"name": filepath.Base(tt.wantDirs[i]), "version": "1.0.0", "scripts": map[string]any{"noop": tt.script}}
				if diff := cmp.Diff(want, readJSON(t, filepath.Join(root, dir, "package.json"))); diff != "" {
					t.Errorf("Generate() %s/package.json mismatch (-want +got):\n%s", dir, diff)
				}
			}
			yaml, err := os.ReadFile(filepath.Join(root, "pnpm-workspace.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff("packages:\n  - \"packages/*\"\n", string(yaml)); diff != "" {
				t.Errorf("Generate() pnpm-workspace.yaml mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func slashes(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.ToSlash(p))
	}
	return out
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}
