package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Generate writes a benchmark workspace of n projects at root: a package.json
// declaring "workspaces": ["packages/*"] with no script of its own, a
// pnpm-workspace.yaml saying the same, and projects packages/p0001 … each with
// the one script {"noop": script}. A packages/ folder already at root is
// removed first, so the workspace has exactly n projects. It returns the
// projects' directories, relative to root, in order.
func Generate(root string, n int, script string) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("bench: a workspace needs at least 1 project, not %d", n)
	}
	pkgs := filepath.Join(root, "packages")
	if err := os.RemoveAll(pkgs); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	if err := os.MkdirAll(pkgs, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	rootManifest := map[string]any{
		"name":       "vx-bench",
		"version":    "1.0.0",
		"private":    true,
		"workspaces": []string{"packages/*"},
	}
	if err := writeJSON(filepath.Join(root, "package.json"), rootManifest); err != nil {
		return nil, err
	}
	yaml := "packages:\n  - \"packages/*\"\n"
	if err := os.WriteFile(filepath.Join(root, "pnpm-workspace.yaml"), []byte(yaml), 0o644); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	dirs := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("p%04d", i)
		rel := filepath.Join("packages", name)
		if err := os.Mkdir(filepath.Join(root, rel), 0o755); err != nil {
			return nil, fmt.Errorf("bench: %w", err)
		}
		manifest := map[string]any{
			"name":    name,
			"version": "1.0.0",
			"scripts": map[string]string{"noop": script},
		}
		if err := writeJSON(filepath.Join(root, rel, "package.json"), manifest); err != nil {
			return nil, err
		}
		dirs = append(dirs, rel)
	}
	return dirs, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}
