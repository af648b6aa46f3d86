package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// GenerateCache writes the workspace of the cache benchmark at root: n
// projects packages/p0001 … of files source files each (src/fNNNN.js, about
// 200 bytes), each with a build script that writes one small file to dist/,
// and the configuration of both vx (vx.json) and turbo (turbo.json), the
// same task for each: build, depending on ^build (project i depends on
// project i-1 within groups of 10, so the graph has chains), outputs
// dist/**. The root is an npm workspace with a .gitignore for
// node_modules, dist, .turbo, and the package-lock.json `npm install
// --package-lock-only` writes for it (lockfileVersion 3: the root, each
// project's link node_modules/pNNNN and its entry packages/pNNNN with its
// dependency), so that each task's key holds its project's part of the
// lockfile, as in a workspace npm installed. It does not create the git
// repository or node_modules.
func GenerateCache(root string, n, files int) error {
	if err := os.RemoveAll(filepath.Join(root, "packages")); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	write := func(rel, content string) error {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		return nil
	}
	if err := writeJSON(filepath.Join(root, "package.json"), map[string]any{
		"name": "vx-cache-bench", "version": "1.0.0", "private": true,
		"workspaces": []string{"packages/*"}, "packageManager": "npm@10.9.0",
	}); err != nil {
		return err
	}
	if err := write(".gitignore", "node_modules/\ndist/\n.turbo/\n"); err != nil {
		return err
	}
	if err := write("vx.json", `{"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"]}}}`+"\n"); err != nil {
		return err
	}
	if err := write("turbo.json", `{"$schema": "https://turbo.build/schema.json", "tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"]}}}`+"\n"); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "package-lock.json"), cacheLockfile(n), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	body := strings.Repeat("// filler line of a source file\n", 6)
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("p%04d", i)
		m := map[string]any{
			"name": name, "version": "1.0.0",
			"scripts": map[string]string{"build": "mkdir -p dist && echo built > dist/out.txt"},
		}
		if dep := cacheDep(i); dep != "" {
			m["dependencies"] = map[string]string{dep: "1.0.0"}
		}
		if err := os.MkdirAll(filepath.Join(root, "packages", name), 0o755); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if err := writeJSON(filepath.Join(root, "packages", name, "package.json"), m); err != nil {
			return err
		}
		for f := 1; f <= files; f++ {
			if err := write(fmt.Sprintf("packages/%s/src/f%04d.js", name, f), fmt.Sprintf("export const v%d = %d;\n%s", f, f, body)); err != nil {
				return err
			}
		}
	}
	return nil
}

// cacheDep is the project that project i of the cache workspace depends on,
// "" for none: i-1 within groups of 10.
func cacheDep(i int) string {
	if i%10 == 1 {
		return ""
	}
	return fmt.Sprintf("p%04d", i-1)
}

// cacheLockfile returns the package-lock.json of the cache workspace of n
// projects, byte for byte as npm 11 writes it (keys in npm's order, two
// spaces, a final newline; TestCacheLockfileIsNpms checks it against npm).
func cacheLockfile(n int) []byte {
	var b strings.Builder
	b.WriteString(`{
  "name": "vx-cache-bench",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": {
      "name": "vx-cache-bench",
      "version": "1.0.0",
      "workspaces": [
        "packages/*"
      ]
    }`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ",\n    \"node_modules/p%04d\": {\n      \"resolved\": \"packages/p%04d\",\n      \"link\": true\n    }", i, i)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, ",\n    \"packages/p%04d\": {\n      \"version\": \"1.0.0\"", i)
		if dep := cacheDep(i); dep != "" {
			fmt.Fprintf(&b, ",\n      \"dependencies\": {\n        \"%s\": \"1.0.0\"\n      }", dep)
		}
		b.WriteString("\n    }")
	}
	b.WriteString("\n  }\n}\n")
	return []byte(b.String())
}
