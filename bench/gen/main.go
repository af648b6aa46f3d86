// Command gen writes the workspaces the vx benchmarks run in: a root whose
// package.json declares "workspaces": ["packages/*"] (and a pnpm-workspace.yaml
// saying the same), with no script of its own, and n projects
// packages/p0001 … each with the single script {"noop": "<script>"}.
//
// Usage:
//
//	gen [-n 100] [-script true] dir
//
// dir is emptied of any previous packages/ first, so the workspace has exactly
// n projects.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	n := flag.Int("n", 100, "how many projects")
	script := flag.String("script", "true", "the noop script of every project")
	flag.Parse()
	if flag.NArg() != 1 || *n < 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-n projects] [-script cmd] dir")
		os.Exit(2)
	}
	if err := generate(flag.Arg(0), *n, *script); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func generate(root string, n int, script string) error {
	pkgs := filepath.Join(root, "packages")
	if err := os.RemoveAll(pkgs); err != nil {
		return err
	}
	if err := os.MkdirAll(pkgs, 0o755); err != nil {
		return err
	}
	rootManifest := map[string]any{
		"name":       "vx-bench",
		"version":    "1.0.0",
		"private":    true,
		"workspaces": []string{"packages/*"},
	}
	if err := writeJSON(filepath.Join(root, "package.json"), rootManifest); err != nil {
		return err
	}
	yaml := "packages:\n  - \"packages/*\"\n"
	if err := os.WriteFile(filepath.Join(root, "pnpm-workspace.yaml"), []byte(yaml), 0o644); err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("p%04d", i)
		dir := filepath.Join(pkgs, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		manifest := map[string]any{
			"name":    name,
			"version": "1.0.0",
			"scripts": map[string]string{"noop": script},
		}
		if err := writeJSON(filepath.Join(dir, "package.json"), manifest); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
